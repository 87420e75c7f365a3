//! The Bits page's URL state: the value as typed, the format, and saturation.

use crate::ui::shell::url::encode_component;
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
