//! The step-time estimate in words: one line for the CLI's text report and the Memory page.

use super::StepTime;
use crate::numbers::{format_count, human_bytes};

/// Seconds with a unit that reads well: `850 µs`, `12.3 ms`, `1.23 s`, `3.5 min`, `2.1 h`;
/// 3 significant digits; `n/a` for a value that is not finite or is negative.
pub fn format_seconds(s: f64) -> String {
    match s {
        s if !s.is_finite() || s < 0.0 => "n/a".into(),
        s if s < 1e-3 => format!("{:.0} µs", s * 1e6),
        s if s < 1.0 => format!("{} ms", crate::numbers::short(s * 1e3, 3)),
        s if s < 120.0 => format!("{s:.2} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

/// FLOPs with an SI prefix: `1.23 PFLOP`, `45.6 TFLOP`; scientific above 1e21 (`3.2e22 FLOP`).
pub fn format_flops(f: f64) -> String {
    match f {
        f if !f.is_finite() || f < 0.0 => "n/a".into(),
        f if f >= 1e21 => format!("{f:.2e} FLOP"),
        f if f >= 1e18 => format!("{:.2} EFLOP", f / 1e18),
        f if f >= 1e15 => format!("{:.2} PFLOP", f / 1e15),
        f if f >= 1e12 => format!("{:.2} TFLOP", f / 1e12),
        f if f >= 1e9 => format!("{:.2} GFLOP", f / 1e9),
        f => format!("{f:.0} FLOP"),
    }
}

/// Tokens per second: `12.3K tokens/s` (rounded down to whole tokens).
pub fn format_tokens_per_s(t: f64) -> String {
    if !t.is_finite() || t < 0.0 {
        return "n/a".into();
    }
    format!("{} tokens/s", format_count(t as u64))
}

impl StepTime {
    /// One line: seconds per step and what they are made of, tokens per second, MFU and the
    /// FLOPs; or the FLOPs and why there are no seconds. Bytes in decimal units per GPU.
    pub fn summary(&self) -> String {
        let flops = format_flops(self.hardware_flops);
        let Some(t) = &self.timing else {
            let why = self.no_timing.as_deref().unwrap_or("no GPU speed known");
            return format!("{flops} per step; {why}");
        };
        let mut parts = vec![format!("compute {}", format_seconds(t.compute_s))];
        if t.attention_scores_s > 0.0 {
            parts.push(format!(
                "eager attention's scores {}",
                format_seconds(t.attention_scores_s)
            ));
        }
        if t.bubble_s > 0.0 {
            parts.push(format!("bubble {}", format_seconds(t.bubble_s)));
        }
        for c in &t.comm {
            parts.push(format!(
                "{} {} over {} ({} exposed)",
                c.kind.label(),
                human_bytes(c.bytes as u64),
                c.link.label(),
                format_seconds(c.exposed_seconds)
            ));
        }
        format!(
            "{} per step ({}) · {} · MFU {:.0}% · {flops}",
            format_seconds(t.total_s),
            parts.join(", "),
            format_tokens_per_s(t.tokens_per_s),
            t.mfu * 100.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_flops_and_rates_pick_a_readable_unit() {
        type Format = fn(f64) -> String;
        let cases: [(Format, f64, &str); 10] = [
            (format_seconds, 0.000_85, "850 µs"),
            (format_seconds, 0.0123, "12.3 ms"),
            (format_seconds, 1.234, "1.23 s"),
            (format_seconds, 210.0, "3.5 min"),
            (format_seconds, 9000.0, "2.5 h"),
            (format_seconds, f64::NAN, "n/a"),
            (format_flops, 1.234e15, "1.23 PFLOP"),
            (format_flops, 4.56e13, "45.60 TFLOP"),
            (format_flops, 3.2e22, "3.20e22 FLOP"),
            (format_tokens_per_s, 12_345.6, "12.3K tokens/s"),
        ];
        for (format, x, text) in cases {
            assert_eq!(format(x), text, "{x}");
        }
    }
}
