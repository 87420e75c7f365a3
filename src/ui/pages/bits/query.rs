//! The Bits page's URL state: the value as typed, the format, saturation, and the scaled-value
//! view's block format (`block`) with the block's and the tensor's largest magnitudes (`bamax`,
//! `tamax`; empty: the value's own).

use crate::ui::shell::query::{flag, PageQuery};
use crate::ui::shell::url::encode_component;
use crate::ui::shell::url::Tab;
use bitbudget_math::format::parse_value;
use bitbudget_math::format::FormatId;
use bitbudget_math::quant::scaled::BlockFormat;

/// State of the Bits page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitsQuery {
    /// The value as typed (always parseable in `fmt` when produced by [`parse_query`]).
    pub x: String,
    /// The selected format.
    pub fmt: FormatId,
    /// Saturating overflow instead of the formats' own inf/NaN convention.
    pub saturate: bool,
    /// The scaled-value view's block format.
    pub block: BlockFormat,
    /// The block's largest magnitude as typed (empty: the value's).
    pub block_amax: String,
    /// NVFP4's tensor's largest magnitude as typed (empty: the block's).
    pub tensor_amax: String,
}

impl Default for BitsQuery {
    fn default() -> Self {
        Self {
            x: "0.1".into(),
            fmt: FormatId::Bf16,
            saturate: false,
            block: BlockFormat::Mxfp8,
            block_amax: String::new(),
            tensor_amax: String::new(),
        }
    }
}

/// A largest magnitude as typed in the scaled view: empty, or a finite number above 0.
pub fn parse_amax(text: &str) -> Result<Option<f64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        Ok(_) => Err(format!("'{t}' is not a finite number above 0")),
        Err(_) => Err(format!("'{t}' is not a number")),
    }
}

/// The query string (with `?`) that reproduces a Bits view.
pub fn bits_query_string(bits: &BitsQuery, embed: bool) -> String {
    let mut s = format!("?tab=bits&x={}&fmt={}", encode_component(&bits.x), bits.fmt);
    if bits.saturate {
        s.push_str("&saturate=1");
    }
    if bits.block != BlockFormat::Mxfp8 {
        s.push_str(&format!("&block={}", bits.block.name()));
    }
    for (key, text) in [("bamax", &bits.block_amax), ("tamax", &bits.tensor_amax)] {
        if !text.trim().is_empty() {
            s.push_str(&format!("&{key}={}", encode_component(text.trim())));
        }
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
            "block" => Some(match value.parse() {
                Ok(b) => {
                    self.block = b;
                    Ok(())
                }
                Err(e) => Err(format!("block: {e}; showing {}", self.block.name())),
            }),
            "bamax" | "tamax" => Some(match parse_amax(value) {
                Ok(_) => {
                    let slot = if key == "bamax" {
                        &mut self.block_amax
                    } else {
                        &mut self.tensor_amax
                    };
                    *slot = value.trim().to_string();
                    Ok(())
                }
                Err(e) => Err(format!("{key}: {e}; using the value's own magnitude")),
            }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::shell::query::parse_page_query;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn the_scaled_view_travels_in_the_link_and_bad_magnitudes_leave_a_note() {
        let q = BitsQuery {
            x: "5".into(),
            block: BlockFormat::Nvfp4,
            block_amax: "6".into(),
            tensor_amax: "448".into(),
            ..BitsQuery::default()
        };
        let text = bits_query_string(&q, false);
        assert!(text.ends_with("&block=nvfp4&bamax=6&tamax=448"), "{text}");
        let (shell, back) = parse_page_query::<BitsQuery>(&text);
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        assert_eq!(back, q);
        let (shell, bad) = parse_page_query::<BitsQuery>("?tab=bits&block=fp5&bamax=-1&tamax=NaN");
        assert_eq!(
            (bad.block, bad.block_amax.as_str(), bad.tensor_amax.as_str()),
            (BlockFormat::Mxfp8, "", "")
        );
        assert_eq!(shell.notes.len(), 3, "{:?}", shell.notes);
        assert!(shell.notes[1].starts_with("bamax: '-1' is not a finite number above 0"));
    }
}
