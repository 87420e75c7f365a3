//! Charts of the Quantize lab: value histograms with the quantization levels, the error
//! histogram, per-block error heat map and the error-vs-bits trade-off of every scheme.

use bitbudget_math::numbers::short;

pub mod errors;
pub mod heatmap;
pub mod tradeoff;
pub mod values;

/// Height of each chart in CSS pixels.
pub const HEIGHT: u32 = 260;

/// An axis tick with `digits` significant digits; a tick within a millionth of the axis `span` of
/// zero (floating-point residue of the tick arithmetic, like -5.55e-17) reads 0.
pub(crate) fn tick(v: f64, span: f64, digits: usize) -> String {
    if v.abs() < span * 1e-6 {
        "0".into()
    } else {
        short(v, digits)
    }
}
