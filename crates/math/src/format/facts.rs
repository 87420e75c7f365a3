//! The facts table of a format: range, precision and storage cost.

use super::catalog::{FormatId, Spec};
use super::minifloat::pow2;
use serde::Serialize;

/// Range, precision and cost of one format. Values are exact `f64`s; `None` where the notion does
/// not apply (integers have no subnormals).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FormatFacts {
    /// The format described.
    pub id: FormatId,
    /// Total width in bits.
    pub bits: u32,
    /// Field split as sign+exponent+mantissa bits, e.g. "1+8+7", or "two's complement" / "unsigned".
    pub fields: String,
    /// Largest finite value.
    pub max: f64,
    /// Most negative finite value.
    pub lowest: f64,
    /// Smallest positive normal value (floats only).
    pub min_normal: Option<f64>,
    /// Smallest positive subnormal value (floats only).
    pub min_subnormal: Option<f64>,
    /// Machine epsilon: the gap between 1 and the next value (1 for integers).
    pub epsilon: f64,
    /// Decimal digits of precision, (mantissa bits + 1) × log10(2).
    pub decimal_digits: f64,
    /// Whether ±infinity is representable.
    pub has_inf: bool,
    /// Whether NaN is representable.
    pub has_nan: bool,
    /// Exponent bias (floats only).
    pub bias: Option<i32>,
    /// Storage per parameter in bytes (0.5 for 4-bit formats, 0.75 for 6-bit).
    pub bytes_per_param: f64,
    /// Bytes needed for 1 billion (1e9) parameters, exact.
    pub bytes_per_billion: u64,
}

impl FormatFacts {
    /// Computes the facts of `id` from its bit layout.
    pub fn of(id: FormatId) -> Self {
        let bits = id.bits();
        let common = |fields: String| FormatFacts {
            id,
            bits,
            fields,
            max: id.max_value(),
            lowest: id.lowest_value(),
            min_normal: None,
            min_subnormal: None,
            epsilon: 1.0,
            decimal_digits: bits as f64 * std::f64::consts::LOG10_2,
            has_inf: false,
            has_nan: false,
            bias: None,
            bytes_per_param: bits as f64 / 8.0,
            bytes_per_billion: bits as u64 * 1_000_000_000 / 8,
        };
        match id.spec() {
            Spec::Float(f) => FormatFacts {
                min_normal: Some(pow2(f.emin())),
                min_subnormal: Some(pow2(f.emin() - f.man_bits as i32)),
                epsilon: pow2(-(f.man_bits as i32)),
                decimal_digits: (f.man_bits + 1) as f64 * std::f64::consts::LOG10_2,
                has_inf: f.has_inf(),
                has_nan: f.has_nan(),
                bias: Some(f.bias),
                ..common(format!("1+{}+{}", f.exp_bits, f.man_bits))
            },
            Spec::Int(i) => common(i.encoding().into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp16_facts_match_ieee_table() {
        let f = FormatFacts::of(FormatId::F16);
        assert_eq!(f.max, 65504.0);
        assert_eq!(f.min_normal, Some(6.103515625e-5));
        assert_eq!(f.min_subnormal, Some(5.960464477539063e-8));
        assert_eq!(f.epsilon, 0.0009765625);
        assert_eq!(f.bytes_per_billion, 2_000_000_000);
    }

    #[test]
    fn e4m3_facts_match_ocp_table() {
        let f = FormatFacts::of(FormatId::F8E4M3);
        assert_eq!(f.max, 448.0);
        assert_eq!(f.min_normal, Some(0.015625));
        assert_eq!(f.min_subnormal, Some(0.001953125));
        assert!(!f.has_inf && f.has_nan);
        let g = FormatFacts::of(FormatId::F8E5M2);
        assert_eq!((g.max, g.min_subnormal), (57344.0, Some(1.52587890625e-5)));
        assert!(g.has_inf);
    }

    #[test]
    fn four_bit_formats_cost_half_a_byte() {
        assert_eq!(FormatFacts::of(FormatId::F4E2M1).bytes_per_param, 0.5);
        assert_eq!(
            FormatFacts::of(FormatId::Int4).bytes_per_billion,
            500_000_000
        );
        assert_eq!(
            FormatFacts::of(FormatId::F6E2M3).bytes_per_billion,
            750_000_000
        );
    }
}
