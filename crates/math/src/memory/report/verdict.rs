//! Whether a job fits a GPU, in one sentence: the only place the verdict is worded.

use crate::memory::model::gpus::GpuPreset;
use crate::numbers::{format_bytes, Units};

/// The verdict on `total_bytes` per GPU against `gpu`, sizes in `units` (two decimals, as
/// [`format_bytes`] rounds them).
///
/// Fits: `"Fits: 42.39 GB of 85.52 GB per NVIDIA H100 80GB (50% used, 43.13 GB free)."` (percent
/// rounded to a whole number, half away from zero).
/// Does not fit: `"Does not fit: needs 90.15 GB, 4.25 GB more than the 85.90 GB of one NVIDIA A100
/// 80GB (1.05x)."`: the shortfall, and the ratio total ÷ capacity rounded *up* to two decimals so
/// a job that does not fit never reads `1.00x`. No article before the GPU's name, so "a"/"an"
/// never reads wrong. A zero capacity (no real GPU) reads as "does not fit" without a ratio.
pub fn verdict(total_bytes: u64, gpu: &GpuPreset, units: Units) -> String {
    let (total, cap) = (total_bytes, gpu.capacity_bytes);
    let b = |n: u64| format_bytes(n, units);
    if total <= cap {
        format!(
            "Fits: {} of {} per {} ({}% used, {} free).",
            b(total),
            b(cap),
            gpu.name,
            percent_used(total, cap),
            b(cap - total)
        )
    } else {
        format!(
            "Does not fit: needs {}, {} more than the {} of one {}{}.",
            b(total),
            b(total - cap),
            b(cap),
            gpu.name,
            ratio_text(total, cap)
        )
    }
}

/// The verdict in a few words, for a strip that stays in view on a phone while the setup is
/// changed: `"Fits: 42.39 GB of 85.52 GB (50%)"`, `"Does not fit: 90.15 GB of 85.90 GB (1.05x)"`.
/// The same rounding as [`verdict`]; the GPU's name is left to the full sentence.
pub fn verdict_brief(total_bytes: u64, gpu: &GpuPreset, units: Units) -> String {
    let (total, cap) = (total_bytes, gpu.capacity_bytes);
    let b = |n: u64| format_bytes(n, units);
    if total <= cap {
        format!(
            "Fits: {} of {} ({}%)",
            b(total),
            b(cap),
            percent_used(total, cap)
        )
    } else {
        format!(
            "Does not fit: {} of {}{}",
            b(total),
            b(cap),
            ratio_text(total, cap)
        )
    }
}

/// Percent of `cap` that `total` uses, a whole number rounded half away from zero.
fn percent_used(total: u64, cap: u64) -> String {
    format!("{:.0}", (total as f64 / cap.max(1) as f64 * 100.0).round())
}

/// `" (1.05x)"`: total ÷ capacity rounded *up* to two decimals, so a job that does not fit never
/// reads `1.00x`; empty for a zero capacity.
fn ratio_text(total: u64, cap: u64) -> String {
    if cap == 0 {
        return String::new();
    }
    // Ceiling at two decimals in integers: 100 × total ÷ cap, rounded up.
    let hundredths = (total as u128 * 100).div_ceil(cap as u128);
    format!(" ({}.{:02}x)", hundredths / 100, hundredths % 100)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::find_gpu;

    fn gpu(capacity_bytes: u64) -> GpuPreset {
        GpuPreset {
            capacity_bytes,
            ..find_gpu("a100-80gb").unwrap()
        }
    }

    #[test]
    fn a_near_miss_reads_1_05x_and_says_how_much_is_missing() {
        let v = verdict(90_150_000_000, &gpu(85_900_000_000), Units::Gb);
        assert_eq!(
            v,
            "Does not fit: needs 90.15 GB, 4.25 GB more than the 85.90 GB of one NVIDIA A100 80GB (1.05x)."
        );
    }

    #[test]
    fn one_byte_too_many_never_reads_1_00x() {
        let v = verdict(85_900_000_001, &gpu(85_900_000_000), Units::Gb);
        assert!(v.ends_with("(1.01x)."), "{v}");
    }

    #[test]
    fn a_fit_says_what_is_used_and_free() {
        let v = verdict(42_390_000_000, &gpu(85_520_000_000), Units::Gb);
        assert_eq!(
            v,
            "Fits: 42.39 GB of 85.52 GB per NVIDIA A100 80GB (50% used, 43.13 GB free)."
        );
    }

    #[test]
    fn the_brief_verdict_rounds_as_the_sentence_does() {
        let g = gpu(85_900_000_000);
        assert_eq!(
            verdict_brief(90_150_000_000, &g, Units::Gb),
            "Does not fit: 90.15 GB of 85.90 GB (1.05x)"
        );
        assert_eq!(
            verdict_brief(42_390_000_000, &gpu(85_520_000_000), Units::Gb),
            "Fits: 42.39 GB of 85.52 GB (50%)"
        );
        assert_eq!(
            verdict_brief(1, &gpu(0), Units::Gb),
            "Does not fit: 0.0 KB of 0.00 GB"
        );
    }

    #[test]
    fn a_zero_capacity_does_not_divide_by_zero() {
        assert!(verdict(1, &gpu(0), Units::Gb).starts_with("Does not fit"));
        assert!(verdict(0, &gpu(0), Units::Gb).starts_with("Fits"));
    }
}
