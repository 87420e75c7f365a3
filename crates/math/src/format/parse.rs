//! Parsing what a user types as a value: decimals, scientific notation, bit patterns and names.

use super::catalog::{FormatId, Spec};
use super::minifloat::pow2;
use std::fmt;

/// A parsed value with an optional remark (e.g. that a decimal overflowed binary64).
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedValue {
    /// The value as a binary64 (the nearest `f64` to a typed decimal, ties to even).
    pub value: f64,
    /// A remark worth showing next to the input.
    pub note: Option<String>,
}

/// Why a typed value could not be understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError(pub String);

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValueError {}

/// Parses `text` as a value, with names and bit patterns read in format `id`:
/// - decimal or scientific (`0.1`, `-3e-5`, `1E5`): the nearest binary64, ties to even;
/// - `0x…` or `0b…`: a bit pattern of `id` (at most `id.bits()` bits), decoded exactly;
/// - `inf`, `-inf`, `nan`, `max`, `lowest` (−max), `min` / `min_normal` (smallest positive normal,
///   as C's FLT_MIN), `min_subnormal`, `eps` / `epsilon`, `pi`, `e`; names may carry a sign.
pub fn parse_value(text: &str, id: FormatId) -> Result<ParsedValue, ValueError> {
    let t = text.trim().to_ascii_lowercase();
    if t.is_empty() {
        return Err(ValueError(
            "type a number, a 0x bit pattern, or a name such as max".into(),
        ));
    }
    if let Some(pattern) = t
        .strip_prefix("0x")
        .map(|h| (h, 16))
        .or(t.strip_prefix("0b").map(|b| (b, 2)))
    {
        return parse_pattern(pattern.0, pattern.1, id);
    }
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(&t)),
    };
    if let Some(v) = named_value(body, id)? {
        return Ok(ParsedValue {
            value: if negative { -v } else { v },
            note: None,
        });
    }
    let valid = body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'));
    let parsed = if valid && body.chars().any(|c| c.is_ascii_digit()) {
        t.parse::<f64>().ok()
    } else {
        None
    };
    match parsed {
        Some(v) if v.is_infinite() => Ok(ParsedValue {
            value: v,
            note: Some("beyond the range of binary64 (about 1.8e308): treated as infinity".into()),
        }),
        Some(v)
            if v == 0.0
                && body.chars().any(|c| matches!(c, '1'..='9'))
                && !mantissa_is_zero(body) =>
        {
            Ok(ParsedValue {
                value: v,
                note: Some("below the smallest binary64 subnormal: treated as 0".into()),
            })
        }
        Some(v) => Ok(ParsedValue {
            value: v,
            note: None,
        }),
        None => Err(ValueError(format!(
            "'{}' is not a number: try 0.1, -2.5e-3, 0x3dcd, inf, nan, max or min_subnormal",
            text.trim()
        ))),
    }
}

fn mantissa_is_zero(body: &str) -> bool {
    let mantissa = body.split('e').next().unwrap_or("");
    !mantissa.chars().any(|c| matches!(c, '1'..='9'))
}

fn parse_pattern(digits: &str, radix: u32, id: FormatId) -> Result<ParsedValue, ValueError> {
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let bits = u64::from_str_radix(&clean, radix).map_err(|_| {
        ValueError(format!(
            "'{digits}' is not a valid base-{radix} bit pattern"
        ))
    })?;
    if bits > id.mask() as u64 {
        return Err(ValueError(format!(
            "0x{bits:x} has more than {} bits, too wide for {}",
            id.bits(),
            id.label()
        )));
    }
    Ok(ParsedValue {
        value: id.decode(bits as u32),
        note: None,
    })
}

fn named_value(name: &str, id: FormatId) -> Result<Option<f64>, ValueError> {
    let float_only = |v: Option<f64>| {
        v.map(Some).ok_or_else(|| {
            ValueError(format!(
                "{} is an integer format: '{name}' does not apply",
                id.label()
            ))
        })
    };
    let (min_normal, min_sub, eps) = match id.spec() {
        Spec::Float(f) => (
            Some(pow2(f.emin())),
            Some(pow2(f.emin() - f.man_bits as i32)),
            Some(pow2(-(f.man_bits as i32))),
        ),
        Spec::Int(_) => (None, None, None),
    };
    Ok(match name {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        "max" => Some(id.max_value()),
        "lowest" => Some(id.lowest_value()),
        "min" if !id.is_float() => Some(id.lowest_value()),
        "min" | "min_normal" | "minnormal" => return float_only(min_normal),
        "min_subnormal" | "minsubnormal" | "denorm_min" => return float_only(min_sub),
        "eps" | "epsilon" => return float_only(eps),
        "pi" => Some(std::f64::consts::PI),
        "e" => Some(std::f64::consts::E),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str, id: FormatId) -> f64 {
        parse_value(text, id).unwrap().value
    }

    #[test]
    fn decimals_scientific_and_signs() {
        assert_eq!(v("0.1", FormatId::Bf16), 0.1);
        assert_eq!(v(" -2.5e-3 ", FormatId::Bf16), -2.5e-3);
        assert_eq!(v("1E5", FormatId::F16), 1e5);
        assert_eq!(v(".5", FormatId::F16), 0.5);
    }

    #[test]
    fn bit_patterns_are_read_in_the_chosen_format() {
        assert_eq!(v("0x3dcd", FormatId::Bf16), 0.10009765625);
        assert_eq!(v("0x7e", FormatId::F8E4M3), 448.0);
        assert!(v("0x7f", FormatId::F8E4M3).is_nan());
        assert_eq!(v("0b1000_0000", FormatId::Int8), -128.0);
        assert!(parse_value("0x1ff", FormatId::F8E4M3)
            .unwrap_err()
            .0
            .contains("too wide"));
    }

    #[test]
    fn names_follow_the_format() {
        assert_eq!(v("max", FormatId::F16), 65504.0);
        assert_eq!(v("-max", FormatId::F8E5M2), -57344.0);
        assert_eq!(v("min_subnormal", FormatId::F8E4M3), 0.001953125);
        assert_eq!(v("min", FormatId::F16), 6.103515625e-5);
        assert_eq!(v("min", FormatId::Int8), -128.0);
        assert_eq!(v("-inf", FormatId::F32), f64::NEG_INFINITY);
        assert!(v("NaN", FormatId::F32).is_nan());
        assert!(parse_value("eps", FormatId::Int4).is_err());
    }

    #[test]
    fn garbage_and_extremes_say_why() {
        assert!(parse_value("", FormatId::F32).is_err());
        assert!(parse_value("abc", FormatId::F32)
            .unwrap_err()
            .0
            .contains("not a number"));
        assert!(parse_value("1.2.3", FormatId::F32).is_err());
        assert!(parse_value("infinityx", FormatId::F32).is_err());
        let big = parse_value("1e400", FormatId::F32).unwrap();
        assert!(big.value.is_infinite() && big.note.is_some());
        let tiny = parse_value("1e-400", FormatId::F32).unwrap();
        assert!(tiny.value == 0.0 && tiny.note.is_some());
        assert!(parse_value("0e5", FormatId::F32).unwrap().note.is_none());
    }
}
