//! What every chapter is made of, and the helpers the chapters' own columns share.

use super::scenario::{Row, Scenario};
use bitbudget_math::memory::step::CommKind;
use bitbudget_math::numbers::human_bytes;

/// Which live widget a chapter shows.
pub enum Widget {
    /// Bytes of a parameter count in each number format (chapter 1).
    Bytes,
    /// FP32, FP16 and BF16 bit by bit (chapter 3).
    Formats,
    /// The gradients FP16 keeps under a loss scale (chapter 4).
    LossScale,
    /// The same job under a few choices (most chapters).
    Scenario(&'static Scenario),
    /// Absmax and zero-point on a worked example (chapter 13).
    Quantize,
    /// The KV budget and the requests it holds (chapter 14).
    Serve,
    /// The FP8 and FP4 recipes' memory and the block shapes' error (chapter 15).
    Fp8,
    /// The same job under a few parallel layouts, with the chosen one's GPUs by group
    /// (chapter 16).
    Layout(&'static Scenario),
}

/// A chapter: title, prose, widget and what to try.
pub struct ChapterText {
    /// Title, without the number.
    pub title: &'static str,
    /// A few short paragraphs.
    pub paragraphs: &'static [&'static str],
    /// The widget.
    pub widget: Widget,
    /// A suggestion of what to change in the widget and what to notice.
    pub try_this: &'static str,
}

/// The bytes one GPU sends per step of traffic `kind` in `row`, or "none".
pub fn comm_bytes(row: &Row, kind: CommKind) -> String {
    let bytes = row
        .step
        .as_ref()
        .ok()
        .and_then(|s| s.timing.as_ref())
        .and_then(|t| t.comm.iter().find(|c| c.kind == kind).map(|c| c.bytes));
    bytes.map_or("none".into(), |b| human_bytes(b as u64))
}

/// `part` bytes ÷ parameters, as "12.0 B".
pub fn per_param(bytes: u64, params: u64) -> String {
    if params == 0 {
        return "—".into();
    }
    format!("{:.1} B", bytes as f64 / params as f64)
}

/// The Bits page's query (with `?`) showing `x` in `fmt`.
pub fn bits_link(x: String, fmt: bitbudget_math::format::FormatId) -> String {
    crate::ui::pages::bits::query::bits_query_string(
        &crate::ui::pages::bits::query::BitsQuery {
            x,
            fmt,
            ..Default::default()
        },
        false,
    )
}
