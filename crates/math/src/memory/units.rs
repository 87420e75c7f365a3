//! Byte and count formatting. Internally every size is an integer number of bytes; GB (10^9) and
//! GiB (2^30) are both available and always labelled.

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

/// `bytes` in `units` with 3 significant digits at least two decimals below 10 (e.g. `16.06 GB`,
/// `0.12 GB`, `120 GB`); below 1 MB it switches to MB or KB so small numbers stay readable.
pub fn format_bytes(bytes: u64, units: Units) -> String {
    let v = bytes as f64 / units.bytes();
    if v >= 0.001 || bytes == 0 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_labelled_in_either_unit() {
        assert_eq!(format_bytes(16_060_522_496, Units::Gb), "16.06 GB");
        assert_eq!(format_bytes(16_060_522_496, Units::Gib), "14.96 GiB");
        assert_eq!(format_bytes(120_000_000_000, Units::Gb), "120.0 GB");
        assert_eq!(format_bytes(819_200, Units::Gb), "819.2 KB");
        assert_eq!(format_bytes(0, Units::Gib), "0.00 GiB");
    }

    #[test]
    fn counts_get_short_suffixes() {
        assert_eq!(format_count(8_030_261_248), "8.03B");
        assert_eq!(format_count(124_439_808), "124.4M");
        assert_eq!(format_count(10_000_000_000_000), "10.00T");
        assert_eq!(format_count(512), "512");
    }
}
