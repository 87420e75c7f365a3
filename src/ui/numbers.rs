//! Number formatting for display: sensible precision, units always shown by the caller.

/// A value in plain decimal when that reads well (1e-4 ≤ |v| < 1e7), otherwise scientific with
/// up to `digits` significant digits; specials as `NaN`, `+inf`, `-inf`.
pub fn short(v: f64, digits: usize) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        };
    }
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let a = v.abs();
    if (1e-4..1e7).contains(&a) {
        let magnitude = a.log10().floor() as i32;
        let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{v:.prec$e}", prec = digits.saturating_sub(1));
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa = if mantissa.contains('.') {
            mantissa.trim_end_matches('0').trim_end_matches('.')
        } else {
            mantissa
        };
        format!("{mantissa}e{exp}")
    }
}

/// Bytes in decimal units with the unit that reads best: `512 B`, `156.7 KB`, `44.6 MB`, `1.34 GB`.
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        0..=999 => format!("{bytes} B"),
        1_000..=999_999 => format!("{:.1} KB", b / 1e3),
        1_000_000..=999_999_999 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.2} GB", b / 1e9),
    }
}

/// An integer with thousands separators: `133,169,152`.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The shortest decimal that reads back as the same `f64` (what a user can paste back in).
pub fn round_trip(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let plain = format!("{v}");
    let sci = format!("{v:e}");
    if plain.len() <= sci.len() + 2 {
        plain
    } else {
        sci
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_counts_read_naturally() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(156_672), "156.7 KB");
        assert_eq!(human_bytes(44_564_480), "44.6 MB");
        assert_eq!(human_bytes(1_340_000_000), "1.34 GB");
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(133_169_152), "133,169,152");
    }

    #[test]
    fn short_picks_plain_or_scientific() {
        assert_eq!(short(0.10009765625, 4), "0.1001");
        assert_eq!(short(65504.0, 4), "65504");
        assert_eq!(short(3.3895313892515355e38, 4), "3.39e38");
        assert_eq!(short(5.960464477539063e-8, 3), "5.96e-8");
        assert_eq!(short(-0.0, 3), "-0");
        assert_eq!(short(f64::NEG_INFINITY, 3), "-inf");
    }

    #[test]
    fn round_trip_is_short_and_exact() {
        assert_eq!(round_trip(0.1), "0.1");
        assert_eq!(round_trip(1e-30), "1e-30");
        assert_eq!(round_trip(f64::NAN), "nan");
        assert_eq!(round_trip(-2.5), "-2.5");
    }
}
