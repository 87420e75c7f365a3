//! Number formatting for people: byte sizes (GB and GiB, always labelled), counts, and short or
//! round-tripping decimals. Internally every size is an integer number of bytes.

use serde::Serialize;

/// How sizes are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    /// Decimal gigabytes, 10^9 bytes (what GPU vendors print on the box).
    #[default]
    Gb,
    /// Binary gibibytes, 2^30 bytes (what nvidia-smi and PyTorch report, often labelled "GB").
    Gib,
}

impl Units {
    /// Bytes per unit.
    pub const fn bytes(self) -> f64 {
        match self {
            Units::Gb => 1e9,
            Units::Gib => 1_073_741_824.0,
        }
    }

    /// The unit's label.
    pub const fn label(self) -> &'static str {
        match self {
            Units::Gb => "GB",
            Units::Gib => "GiB",
        }
    }
}

impl std::str::FromStr for Units {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "gb" => Ok(Units::Gb),
            "gib" => Ok(Units::Gib),
            _ => Err(format!("unknown units '{s}'; expected gb or gib")),
        }
    }
}

impl std::fmt::Display for Units {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label().to_ascii_lowercase())
    }
}

/// `bytes` in `units` with two decimals below 100 and one above (e.g. `16.06 GB`, `0.12 GB`,
/// `120.0 GB`); below 10 MB (MiB) it switches to MB or KB (MiB, KiB), so that small numbers keep
/// two significant digits or more instead of reading `0.00 GB`.
pub fn format_bytes(bytes: u64, units: Units) -> String {
    let v = bytes as f64 / units.bytes();
    if v >= 0.01 || bytes == 0 {
        let decimals = if v >= 100.0 { 1 } else { 2 };
        return format!("{v:.decimals$} {}", units.label());
    }
    let (scale, label) = match units {
        Units::Gb => (1e3, "KB"),
        Units::Gib => (1024.0, "KiB"),
    };
    let kb = bytes as f64 / scale;
    if kb >= 1000.0 {
        format!(
            "{:.2} {}",
            kb / scale,
            if units == Units::Gb { "MB" } else { "MiB" }
        )
    } else {
        format!("{kb:.1} {label}")
    }
}

/// A count with a short suffix: `8.03B`, `124.4M`, `12.3K`, `512`.
pub fn format_count(n: u64) -> String {
    let v = n as f64;
    match n {
        n if n >= 1_000_000_000_000 => format!("{:.2}T", v / 1e12),
        n if n >= 1_000_000_000 => format!("{:.2}B", v / 1e9),
        n if n >= 1_000_000 => format!("{:.1}M", v / 1e6),
        n if n >= 10_000 => format!("{:.1}K", v / 1e3),
        n => n.to_string(),
    }
}

/// How bitbudget writes a value that is not a finite number: `NaN`, `+inf` or `-inf`; `None`
/// for a finite `v`.
pub fn special_text(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v.is_infinite() {
        Some(if v > 0.0 { "+inf" } else { "-inf" })
    } else {
        None
    }
}

/// A value in plain decimal when that reads well (1e-4 ≤ |v| < 1e7), otherwise scientific with
/// up to `digits` significant digits; specials as `NaN`, `+inf`, `-inf`.
pub fn short(v: f64, digits: usize) -> String {
    if let Some(text) = special_text(v) {
        return text.into();
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
    fn bytes_are_labelled_in_either_unit() {
        assert_eq!(format_bytes(16_060_522_496, Units::Gb), "16.06 GB");
        assert_eq!(format_bytes(16_060_522_496, Units::Gib), "14.96 GiB");
        assert_eq!(format_bytes(120_000_000_000, Units::Gb), "120.0 GB");
        assert_eq!(format_bytes(819_200, Units::Gb), "819.2 KB");
        // Between 1 and 10 MB the GB figure would read "0.00 GB".
        assert_eq!(format_bytes(4_718_592, Units::Gb), "4.72 MB");
        assert_eq!(format_bytes(4_718_592, Units::Gib), "4.50 MiB");
        assert_eq!(format_bytes(10_000_000, Units::Gb), "0.01 GB");
        assert_eq!(format_bytes(0, Units::Gib), "0.00 GiB");
    }

    #[test]
    fn counts_get_short_suffixes() {
        let cases = [
            (8_030_261_248, "8.03B"),
            (124_439_808, "124.4M"),
            (10_000_000_000_000, "10.00T"),
            (512, "512"),
        ];
        for (n, text) in cases {
            assert_eq!(format_count(n), text);
        }
    }
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
