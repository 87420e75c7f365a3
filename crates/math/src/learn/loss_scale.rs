//! What FP16 keeps of a set of gradients under a loss scale, and dynamic loss scaling step by
//! step (Micikevicius et al. 2018, "Mixed precision training", section 3.2; PyTorch's
//! `GradScaler` uses the same rule with a growth interval of 2000 steps).

use crate::format::{FormatId, Overflow};

/// How a set of gradients fares in FP16 after multiplying by a loss scale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fp16Fate {
    /// Non-zero gradients that round to zero (underflow).
    pub underflow: usize,
    /// Gradients that become ±infinity (overflow).
    pub overflow: usize,
    /// Non-zero gradients stored as a non-zero finite FP16 value.
    pub kept: usize,
    /// Gradients that were exactly zero to begin with (a ReLU unit that was off, an embedding row
    /// of a token not in the batch).
    pub zero: usize,
}

/// Rounds every `g × scale` to FP16 (round to nearest even, overflow to infinity, as a GPU's
/// conversion does) and counts what survives. NaN gradients count as overflow.
pub fn fp16_fate(gradients: &[f32], scale: f64) -> Fp16Fate {
    let mut f = Fp16Fate::default();
    for &g in gradients {
        if g == 0.0 {
            f.zero += 1;
            continue;
        }
        let stored = FormatId::F16.decode(FormatId::F16.encode(g as f64 * scale, Overflow::Native));
        if !stored.is_finite() {
            f.overflow += 1;
        } else if stored == 0.0 {
            f.underflow += 1;
        } else {
            f.kept += 1;
        }
    }
    f
}

/// Counts of log2|g| in one-unit bins from `lo` (inclusive) to `hi` (exclusive): bin i holds
/// 2^(lo+i) ≤ |g| < 2^(lo+i+1); smaller and larger values go to the end bins; zeros and NaN are
/// left out.
pub fn log2_histogram(gradients: &[f32], lo: i32, hi: i32) -> Vec<u32> {
    let bins = (hi - lo).max(1) as usize;
    let mut h = vec![0u32; bins];
    for g in gradients.iter().filter(|g| **g != 0.0 && !g.is_nan()) {
        let e = (g.abs() as f64).log2().floor() as i64;
        let i = (e - lo as i64).clamp(0, bins as i64 - 1) as usize;
        h[i] += 1;
    }
    h
}

/// One step of dynamic loss scaling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScalerStep {
    /// The loss scale this step used.
    pub scale: f64,
    /// What FP16 made of this step's gradients at that scale.
    pub fate: Fp16Fate,
    /// Whether the step was skipped (some gradient overflowed): the scale is halved.
    pub skipped: bool,
    /// Clean steps in a row after this one (the scale doubles when it reaches the interval).
    pub clean_run: u32,
}

/// Dynamic loss scaling over `steps` (each step's gradients): start at `start`, halve after a
/// step with an overflow (and skip it), double after `growth_interval` clean steps in a row.
pub fn dynamic_scaling(steps: &[Vec<f32>], start: f64, growth_interval: u32) -> Vec<ScalerStep> {
    let mut scale = start;
    let mut run = 0;
    steps
        .iter()
        .map(|g| {
            let fate = fp16_fate(g, scale);
            let used = scale;
            let skipped = fate.overflow > 0;
            if skipped {
                scale /= 2.0;
                run = 0;
            } else {
                run += 1;
                if run >= growth_interval.max(1) {
                    scale *= 2.0;
                    run = 0;
                }
            }
            ScalerStep {
                scale: used,
                fate,
                skipped,
                clean_run: run,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fp16_keeps_what_lies_between_its_smallest_subnormal_and_65504() {
        let g = [1e-9f32, 1e-3, 70000.0, 0.0, 3e-8];
        let f = fp16_fate(&g, 1.0);
        // 3e-8 is above half the smallest subnormal (2^-25 ≈ 2.98e-8): it rounds up to 2^-24.
        assert_eq!(
            f,
            Fp16Fate {
                underflow: 1,
                overflow: 1,
                kept: 2,
                zero: 1
            }
        );
        let scaled = fp16_fate(&g, 1024.0);
        assert_eq!(scaled.underflow, 0);
    }

    #[test]
    fn log2_bins_put_each_power_of_two_in_its_own_bin() {
        assert_eq!(
            log2_histogram(&[0.5, 0.75, 1.0, 0.0, 1e-30], -3, 2),
            vec![1, 0, 2, 1, 0]
        );
    }

    #[test]
    fn the_scale_halves_on_overflow_and_doubles_after_clean_steps() {
        let steps = vec![vec![1.0f32]; 6];
        // 1 × 2^17 overflows FP16 (max 65504): halve to 2^16, also too big (65536 > 65504 rounds
        // to inf), halve to 2^15, then two clean steps double it back to 2^16.
        let log = dynamic_scaling(&steps, 131072.0, 2);
        let scales: Vec<f64> = log.iter().map(|s| s.scale).collect();
        assert_eq!(
            scales,
            vec![131072.0, 65536.0, 32768.0, 32768.0, 65536.0, 32768.0]
        );
        assert!(log[0].skipped && log[1].skipped && !log[2].skipped);
    }
}
