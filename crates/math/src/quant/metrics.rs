//! Error metrics of a reconstruction against the original.

use serde::{Deserialize, Serialize};

/// How far `approx` is from `original`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorMetrics {
    /// Mean squared error; +inf when any value was lost.
    pub mse: f64,
    /// Root mean squared error; +inf when any value was lost.
    pub rmse: f64,
    /// Largest absolute error; +inf when any value was lost.
    pub max_abs_error: f64,
    /// Signal-to-quantization-noise ratio in dB: 10·log10(Σx² / Σ(x − x̂)²); +inf when exact,
    /// −inf when any value was lost.
    pub sqnr_db: f64,
    /// Cosine similarity of the two vectors (1 when both are zero); NaN when any value was lost.
    pub cosine: f64,
    /// Originals that are NaN or ±inf: no error can be measured against them, so they are skipped.
    pub skipped: usize,
    /// Finite originals that came back NaN or ±inf (a block whose scale overflowed because it held
    /// an infinity, say). Each is an infinite error.
    pub lost: usize,
}

/// What [`MetricsAccumulator`] sums over the pairs of one part, measured elsewhere (e.g. on a
/// GPU): the sums over pairs whose original and approximation are both finite.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MetricSums {
    /// Σ (x − x̂)².
    pub se: f64,
    /// Σ x².
    pub sx: f64,
    /// Σ x̂².
    pub sy: f64,
    /// Σ x·x̂.
    pub sxy: f64,
    /// Largest |x − x̂| (0 when no pair was counted).
    pub max_abs_error: f64,
    /// Pairs in the sums.
    pub counted: usize,
    /// Pairs with a NaN or ±inf original (see [`ErrorMetrics::skipped`]).
    pub skipped: usize,
    /// Pairs with a finite original and a NaN or ±inf approximation (see [`ErrorMetrics::lost`]).
    pub lost: usize,
}

/// Running sums behind [`ErrorMetrics`], so a tensor can be measured a part at a time; adding
/// the parts in order gives exactly the metrics of the whole.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MetricsAccumulator {
    se: f64,
    sx: f64,
    sy: f64,
    sxy: f64,
    max: f64,
    n: usize,
    skipped: usize,
    lost: usize,
}

impl MetricsAccumulator {
    /// Adds the pairs of `original` and `approx` (zipped; the shorter length wins).
    pub fn add(&mut self, original: &[f32], approx: &[f32]) {
        for (a, b) in original.iter().zip(approx) {
            self.push(*a, *b);
        }
    }

    /// Adds one pair.
    #[inline]
    pub fn push(&mut self, original: f32, approx: f32) {
        self.push_measured(original, approx);
    }

    /// Adds one pair and returns its squared error (computed in f64), or `None` when the pair
    /// was skipped (non-finite original) or lost (non-finite approximation).
    #[inline(always)]
    pub fn push_measured(&mut self, original: f32, approx: f32) -> Option<f64> {
        if !original.is_finite() {
            self.skipped += 1;
            return None;
        }
        if !approx.is_finite() {
            self.lost += 1;
            return None;
        }
        let (a, b) = (original as f64, approx as f64);
        let e = a - b;
        let squared = e * e;
        self.se += squared;
        self.sx += a * a;
        self.sy += b * b;
        self.sxy += a * b;
        // Both are finite here, so a plain comparison (no NaN handling) is enough.
        if e.abs() > self.max {
            self.max = e.abs();
        }
        self.n += 1;
        Some(squared)
    }

    /// Adds pairs that are all finite (the caller has checked), exactly as
    /// [`MetricsAccumulator::push_measured`] of each in order would, and returns `block_se` plus
    /// their squared errors, added one by one in order: the sums live in registers for the
    /// whole run instead of in `self`, and nothing branches per pair. `each` is called with
    /// each pair's index in the same loop (to count it elsewhere while the sums wait on each
    /// other's additions).
    #[inline(always)]
    pub(crate) fn add_finite(
        &mut self,
        original: &[f32],
        approx: &[f32],
        block_se: f64,
        mut each: impl FnMut(usize),
    ) -> f64 {
        let (mut se, mut sx, mut sy, mut sxy, mut max) =
            (self.se, self.sx, self.sy, self.sxy, self.max);
        let mut block_se = block_se;
        for (j, (a, b)) in original.iter().zip(approx).enumerate() {
            each(j);
            let (a, b) = (*a as f64, *b as f64);
            let e = a - b;
            let squared = e * e;
            se += squared;
            block_se += squared;
            sx += a * a;
            sy += b * b;
            sxy += a * b;
            // Finite pairs: no NaN, so the select is `push_measured`'s comparison.
            max = if e.abs() > max { e.abs() } else { max };
        }
        (self.se, self.sx, self.sy, self.sxy, self.max) = (se, sx, sy, sxy, max);
        self.n += original.len().min(approx.len());
        block_se
    }

    /// Adds sums measured elsewhere (a GPU's reduction of one part). The result is within the
    /// tolerance of those sums, not bit for bit what [`MetricsAccumulator::add`] of the same pairs
    /// gives; the counts are exact.
    pub fn add_sums(&mut self, sums: &MetricSums) {
        self.se += sums.se;
        self.sx += sums.sx;
        self.sy += sums.sy;
        self.sxy += sums.sxy;
        if sums.max_abs_error > self.max {
            self.max = sums.max_abs_error;
        }
        self.n += sums.counted;
        self.skipped += sums.skipped;
        self.lost += sums.lost;
    }

    /// The metrics of everything added so far (see [`error_metrics`]).
    pub fn finish(&self) -> ErrorMetrics {
        let (skipped, lost) = (self.skipped, self.lost);
        if lost > 0 {
            return ErrorMetrics {
                mse: f64::INFINITY,
                rmse: f64::INFINITY,
                max_abs_error: f64::INFINITY,
                sqnr_db: f64::NEG_INFINITY,
                cosine: f64::NAN,
                skipped,
                lost,
            };
        }
        let (se, sx, sy) = (self.se, self.sx, self.sy);
        let mse = if self.n == 0 { 0.0 } else { se / self.n as f64 };
        let sqnr_db = if se == 0.0 {
            f64::INFINITY
        } else {
            10.0 * (sx / se).log10()
        };
        let cosine = if sx == 0.0 && sy == 0.0 {
            1.0
        } else if sx == 0.0 || sy == 0.0 {
            0.0
        } else {
            // One square root of the product: exactly 1 for identical vectors more often than two.
            (self.sxy / (sx * sy).sqrt()).clamp(-1.0, 1.0)
        };
        ErrorMetrics {
            mse,
            rmse: mse.sqrt(),
            max_abs_error: self.max,
            sqnr_db,
            cosine,
            skipped,
            lost,
        }
    }
}

/// Metrics over the pairs whose original is finite (NaN and ±inf originals are counted in
/// `skipped`); a finite original that comes back non-finite is counted in `lost` and makes the
/// error infinite.
pub fn error_metrics(original: &[f32], approx: &[f32]) -> ErrorMetrics {
    let mut acc = MetricsAccumulator::default();
    acc.add(original, approx);
    acc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_of_a_known_error() {
        let m = error_metrics(&[1.0, -1.0, 2.0, 0.0], &[1.0, -1.0, 2.5, 0.0]);
        assert_eq!(m.mse, 0.0625);
        assert_eq!(m.rmse, 0.25);
        assert_eq!(m.max_abs_error, 0.5);
        assert!((m.sqnr_db - 10.0 * (6.0f64 / 0.25).log10()).abs() < 1e-12);
        assert!(m.cosine > 0.99 && m.cosine < 1.0);
        assert_eq!(error_metrics(&[1.0], &[1.0]).sqnr_db, f64::INFINITY);
    }

    #[test]
    fn parts_add_up_to_the_whole() {
        let x: Vec<f32> = (0..100).map(|i| (i as f32 * 0.37).sin()).collect();
        let y: Vec<f32> = x.iter().map(|v| (v * 16.0).round() / 16.0).collect();
        let mut acc = MetricsAccumulator::default();
        for (a, b) in x.chunks(7).zip(y.chunks(7)) {
            acc.add(a, b);
        }
        assert_eq!(acc.finish(), error_metrics(&x, &y));
    }

    #[test]
    fn non_finite_originals_are_skipped_and_counted() {
        let m = error_metrics(&[f32::NAN, f32::INFINITY, 1.0, 2.0], &[0.0, 0.0, 1.0, 2.0]);
        assert_eq!((m.skipped, m.lost), (2, 0));
        assert_eq!((m.mse, m.sqnr_db), (0.0, f64::INFINITY));
        assert_eq!(m.cosine, 1.0);
    }

    #[test]
    fn a_value_that_comes_back_non_finite_is_an_infinite_error() {
        let m = error_metrics(&[f32::INFINITY, 0.5, 0.25], &[f32::NAN, f32::NAN, 0.25]);
        assert_eq!((m.skipped, m.lost), (1, 1));
        assert_eq!(m.mse, f64::INFINITY);
        assert_eq!(m.max_abs_error, f64::INFINITY);
        assert_eq!(m.sqnr_db, f64::NEG_INFINITY);
        assert!(m.cosine.is_nan());
    }
}
