//! What a value looks like once stored in a format: bits, exact stored value, rounding error and
//! the decoding written out. Shared by the CLI's `bits` command and the Bits page.

use super::catalog::{FormatId, Spec};
use super::decimal::exact_decimal;
use super::minifloat::{Decoded, Minifloat, Overflow};
use serde::Serialize;

/// What one bit position means, most significant bit first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BitRole {
    /// The sign bit of a float.
    Sign,
    /// A bit of a float's biased exponent field.
    Exponent,
    /// A bit of a float's stored mantissa (fraction) field.
    Mantissa,
    /// A bit of an integer, contributing `weight` when set (negative for a two's complement top bit).
    Integer {
        /// Value contributed when the bit is set.
        weight: i64,
    },
}

/// The class of a stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ValueClass {
    /// Not a number.
    Nan,
    /// ±infinity.
    Infinite,
    /// ±0.
    Zero,
    /// A float with exponent field 0 and non-zero mantissa.
    Subnormal,
    /// A normal float.
    Normal,
    /// An integer format's value.
    Integer,
}

/// A value `x` stored in one format.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Described {
    /// The format.
    pub id: FormatId,
    /// The stored bit pattern (low `id.bits()` bits).
    pub bits: u32,
    /// The stored value, exact.
    pub stored: f64,
    /// The stored value written out exactly in decimal (`NaN`, `+inf` and `-inf` for specials).
    pub stored_exact: String,
    /// Its class.
    pub class: ValueClass,
    /// stored − x (0 when both are the same infinity; NaN when either is NaN).
    pub abs_error: f64,
    /// |stored − x| / |x|, for finite non-zero x and finite stored values.
    pub rel_error: Option<f64>,
    /// The decoding written out, e.g. `(-1)^0 × 2^(123-127) × 1.6015625`.
    pub formula: String,
    /// True when a finite x did not fit: it became ±inf, NaN, or was clamped to ±max.
    pub overflowed: bool,
    /// A remark for the reader, e.g. that FP4 cannot store NaN.
    pub note: Option<String>,
}

/// Roles of each bit of `id`, most significant first.
pub fn bit_roles(id: FormatId) -> Vec<BitRole> {
    match id.spec() {
        Spec::Float(f) => std::iter::once(BitRole::Sign)
            .chain((0..f.exp_bits).map(|_| BitRole::Exponent))
            .chain((0..f.man_bits).map(|_| BitRole::Mantissa))
            .collect(),
        Spec::Int(i) => i
            .bit_weights()
            .into_iter()
            .map(|weight| BitRole::Integer { weight })
            .collect(),
    }
}

/// Stores `x` in `id` (see [`FormatId::encode`]) and describes the result.
pub fn describe(id: FormatId, x: f64, overflow: Overflow) -> Described {
    describe_bits(id, id.encode(x, overflow), x)
}

/// Describes the pattern `bits` of `id` as the stored form of `x` (errors are measured against x).
pub fn describe_bits(id: FormatId, bits: u32, x: f64) -> Described {
    let bits = bits & id.mask();
    let stored = id.decode(bits);
    let (class, formula) = match id.spec() {
        Spec::Float(f) => float_formula(&f, bits),
        Spec::Int(i) => (
            ValueClass::Integer,
            int_formula(&i.bit_weights(), bits, id.bits()),
        ),
    };
    let abs_error = if stored.is_infinite() && stored == x {
        0.0
    } else {
        stored - x
    };
    let rel_error =
        (x.is_finite() && x != 0.0 && stored.is_finite()).then(|| (stored - x).abs() / x.abs());
    let clamped =
        x.is_finite() && stored.is_finite() && x.abs() > id.max_value().max(-id.lowest_value());
    let overflowed = x.is_finite() && (!stored.is_finite() || clamped);
    let note = if x.is_nan() && !stored.is_nan() {
        Some(format!(
            "{} has no NaN: nothing can represent it; shown as {}",
            id.label(),
            stored
        ))
    } else if x.is_finite() && stored.is_nan() {
        Some(format!(
            "{} has no infinity: an overflow becomes NaN",
            id.label()
        ))
    } else if clamped {
        Some(format!("out of range: clamped to {}", stored))
    } else if x.is_infinite() && stored.is_finite() {
        Some(format!(
            "{} has no infinity: {} is clamped to {}",
            id.label(),
            exact_text(x),
            exact_text(stored)
        ))
    } else if class == ValueClass::Integer && x.is_finite() && stored != x {
        Some(format!(
            "{} stores whole numbers only, so {} becomes {}. To store small weights in {} bits, \
             quantization first divides them by a scale.",
            id.label(),
            crate::numbers::short(x, 6),
            exact_text(stored),
            id.bits()
        ))
    } else {
        None
    };
    Described {
        id,
        bits,
        stored,
        stored_exact: exact_text(stored),
        class,
        abs_error,
        rel_error,
        formula,
        overflowed,
        note,
    }
}

/// `v` written out exactly in decimal, with `NaN`, `+inf`, `-inf` and `-0` for the specials.
pub fn exact_text(v: f64) -> String {
    if let Some(text) = crate::numbers::special_text(v) {
        return text.into();
    }
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let a = v.abs();
    if a == 0.0 {
        return format!("{sign}0");
    }
    let bits = a.to_bits();
    let field = (bits >> 52) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), field - 1075)
    };
    let shift = m.trailing_zeros().min(52) as i32;
    format!("{sign}{}", exact_decimal(m >> shift, e + shift))
}

fn float_formula(f: &Minifloat, bits: u32) -> (ValueClass, String) {
    let (sign, exp, man) = f.fields(bits);
    match f.decode(bits) {
        Decoded::Nan => (
            ValueClass::Nan,
            "exponent all ones and a NaN mantissa: NaN".into(),
        ),
        Decoded::Inf { negative } => {
            let s = if negative { "-" } else { "+" };
            (
                ValueClass::Infinite,
                format!("exponent all ones, mantissa 0: {s}infinity"),
            )
        }
        Decoded::Zero { negative } => {
            let z = if negative { "-0" } else { "0" };
            (ValueClass::Zero, format!("(-1)^{sign} × 0 = {z}"))
        }
        Decoded::Finite {
            subnormal: true, ..
        } => {
            let frac = exact_decimal(man as u64, -(f.man_bits as i32));
            let text = format!(
                "(-1)^{sign} × 2^(1-{}) × {frac}  (subnormal: no implicit 1)",
                f.bias
            );
            (ValueClass::Subnormal, text)
        }
        Decoded::Finite { .. } => {
            let frac = exact_decimal((man | (1 << f.man_bits)) as u64, -(f.man_bits as i32));
            (
                ValueClass::Normal,
                format!("(-1)^{sign} × 2^({exp}-{}) × {frac}", f.bias),
            )
        }
    }
}

fn int_formula(weights: &[i64], bits: u32, width: u32) -> String {
    let terms: Vec<String> = weights
        .iter()
        .enumerate()
        .filter(|(i, _)| bits >> (width - 1 - *i as u32) & 1 == 1)
        .map(|(_, w)| w.to_string())
        .collect();
    let total: i64 = weights
        .iter()
        .enumerate()
        .filter(|(i, _)| bits >> (width - 1 - *i as u32) & 1 == 1)
        .map(|(_, w)| w)
        .sum();
    if terms.len() <= 1 {
        return format!("{total}");
    }
    format!("{} = {total}", terms.join(" + ").replace("+ -", "- "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_one_tenth_is_described_with_its_decoding() {
        let d = describe(FormatId::Bf16, 0.1, Overflow::Native);
        assert_eq!(d.bits, 0x3DCD);
        assert_eq!(d.stored_exact, "0.10009765625");
        assert_eq!(d.formula, "(-1)^0 × 2^(123-127) × 1.6015625");
        assert_eq!(d.class, ValueClass::Normal);
        assert!((d.rel_error.unwrap() - 9.765625e-4).abs() < 1e-9);
    }

    #[test]
    fn int8_decoding_shows_the_negative_top_weight() {
        let d = describe(FormatId::Int8, -127.0, Overflow::Native);
        assert_eq!(d.bits, 0x81);
        assert_eq!(d.formula, "-128 + 1 = -127");
        assert_eq!(
            bit_roles(FormatId::Int8)[0],
            BitRole::Integer { weight: -128 }
        );
    }

    #[test]
    fn a_fraction_in_an_integer_format_says_integers_need_a_scale() {
        let d = describe(FormatId::Int8, 0.1, Overflow::Native);
        assert_eq!(d.stored_exact, "0");
        let note = d.note.expect("a note for 0.1 in INT8");
        assert!(
            note.contains("whole numbers only, so 0.1 becomes 0"),
            "{note}"
        );
        assert!(note.contains("scale"), "{note}");
        assert_eq!(describe(FormatId::Int8, 3.0, Overflow::Native).note, None);
    }

    #[test]
    fn an_infinity_in_a_format_without_one_says_it_was_clamped() {
        let note = |id| describe(id, f64::INFINITY, Overflow::Native).note;
        assert_eq!(
            note(FormatId::Int8).as_deref(),
            Some("INT8 has no infinity: +inf is clamped to 127")
        );
        assert_eq!(
            note(FormatId::F4E2M1).as_deref(),
            Some("FP4 E2M1 has no infinity: +inf is clamped to 6")
        );
        assert_eq!(note(FormatId::F32), None);
    }

    #[test]
    fn overflow_is_flagged_and_explained() {
        let d = describe(FormatId::F8E4M3, 1000.0, Overflow::Native);
        assert!(d.overflowed && d.stored.is_nan());
        assert!(d.note.unwrap().contains("no infinity"));
        let s = describe(FormatId::F8E4M3, 1000.0, Overflow::Saturate);
        assert_eq!(s.stored, 448.0);
        assert!(s.overflowed);
        assert!(describe(FormatId::F16, 1e6, Overflow::Native)
            .stored
            .is_infinite());
    }

    #[test]
    fn subnormal_formula_has_no_implicit_one() {
        let d = describe_bits(FormatId::F16, 0x0001, 0.0);
        assert_eq!(d.class, ValueClass::Subnormal);
        assert!(d.formula.starts_with("(-1)^0 × 2^(1-15) × 0.0009765625"));
    }

    #[test]
    fn nan_into_fp4_says_it_cannot_be_stored() {
        let d = describe(FormatId::F4E2M1, f64::NAN, Overflow::Native);
        assert_eq!(d.stored, 0.0);
        assert!(d.note.unwrap().contains("no NaN"));
    }
}
