//! Exact decimal expansion of binary fractions: every finite binary float has one.

/// Writes `significand × 2^exponent` exactly in decimal, without exponent notation and without
/// trailing zeros (e.g. `0.100000001490116119384765625` for the FP32 nearest to 0.1).
/// Exact for any inputs; the string grows with |exponent| (up to ~1,100 digits for f64 subnormals).
pub fn exact_decimal(significand: u64, exponent: i32) -> String {
    if significand == 0 {
        return "0".to_string();
    }
    let mut digits = BigDecimalDigits::from_u64(significand);
    if exponent >= 0 {
        for _ in 0..exponent {
            digits.mul_small(2);
        }
        return digits.to_string();
    }
    let places = (-exponent) as usize;
    for _ in 0..places {
        digits.mul_small(5);
    }
    let text = digits.to_string();
    let (int_part, frac_part) = if text.len() > places {
        let (a, b) = text.split_at(text.len() - places);
        (a.to_string(), b.to_string())
    } else {
        (
            "0".to_string(),
            format!("{}{}", "0".repeat(places - text.len()), text),
        )
    };
    let frac = frac_part.trim_end_matches('0');
    if frac.is_empty() {
        int_part
    } else {
        format!("{int_part}.{frac}")
    }
}

/// Little-endian base-10^9 limbs of a non-negative integer.
struct BigDecimalDigits(Vec<u32>);

const LIMB: u64 = 1_000_000_000;

impl BigDecimalDigits {
    fn from_u64(mut v: u64) -> Self {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % LIMB) as u32);
            v /= LIMB;
        }
        Self(limbs)
    }

    fn mul_small(&mut self, k: u64) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = *limb as u64 * k + carry;
            *limb = (v % LIMB) as u32;
            carry = v / LIMB;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }
}

impl std::fmt::Display for BigDecimalDigits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut iter = self.0.iter().rev();
        match iter.next() {
            None => f.write_str("0")?,
            Some(top) => write!(f, "{top}")?,
        }
        for limb in iter {
            write!(f, "{limb:09}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp32_nearest_to_one_tenth_is_written_out_exactly() {
        // 0.1f32 = 13421773 × 2^-27
        assert_eq!(
            exact_decimal(13_421_773, -27),
            "0.100000001490116119384765625"
        );
    }

    #[test]
    fn integers_and_small_fractions() {
        assert_eq!(exact_decimal(3, 4), "48");
        assert_eq!(exact_decimal(1, -1), "0.5");
        assert_eq!(exact_decimal(1, -3), "0.125");
        assert_eq!(exact_decimal(0, -3), "0");
        assert_eq!(exact_decimal(u64::MAX, 0), "18446744073709551615");
    }

    #[test]
    fn smallest_fp32_subnormal_has_149_decimal_places() {
        let s = exact_decimal(1, -149);
        assert!(s.starts_with("0.000000000000000000000000000000000000000000001401298464"));
        assert_eq!(s.len() - 2, 149);
    }
}
