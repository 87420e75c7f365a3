//! The Bits page's URL state: the value as typed, the format, and saturation.

use crate::ui::shell::query::{flag, PageQuery};
use crate::ui::shell::url::encode_component;
use crate::ui::shell::url::Tab;
use bitbudget_math::format::parse_value;
use bitbudget_math::format::FormatId;

/// State of the Bits page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitsQuery {
    /// The value as typed (always parseable in `fmt` when produced by [`parse_query`]).
    pub x: String,
    /// The selected format.
    pub fmt: FormatId,
    /// Saturating overflow instead of the formats' own inf/NaN convention.
    pub saturate: bool,
}

impl Default for BitsQuery {
    fn default() -> Self {
        Self {
            x: "0.1".into(),
            fmt: FormatId::Bf16,
            saturate: false,
        }
    }
}

/// The query string (with `?`) that reproduces a Bits view.
pub fn bits_query_string(bits: &BitsQuery, embed: bool) -> String {
    let mut s = format!("?tab=bits&x={}&fmt={}", encode_component(&bits.x), bits.fmt);
    if bits.saturate {
        s.push_str("&saturate=1");
    }
    if embed {
        s.push_str("&embed=1");
    }
    s
}

impl PageQuery for BitsQuery {
    const TAB: Tab = Tab::Bits;

    /// `x` is kept as typed and checked in [`PageQuery::finish`], once `fmt` is known wherever
    /// it stands in the URL.
    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        match key {
            "saturate" => {
                let mut notes = Vec::new();
                self.saturate = flag(key, value, &mut notes);
                Some(notes.pop().map_or(Ok(()), Err))
            }
            "fmt" => Some(match value.parse() {
                Ok(id) => {
                    self.fmt = id;
                    Ok(())
                }
                Err(e) => Err(format!("fmt: {e}; showing {}", self.fmt)),
            }),
            "x" => {
                self.x = value.to_string();
                Some(Ok(()))
            }
            _ => None,
        }
    }

    /// A value that does not parse in the format falls back to the default value, with a note.
    fn finish(&mut self, _keys: &[String], notes: &mut Vec<String>) {
        if let Err(e) = parse_value(&self.x, self.fmt) {
            let fallback = BitsQuery::default().x;
            notes.push(format!("x: {e}; showing {fallback}"));
            self.x = fallback;
        }
    }
}
