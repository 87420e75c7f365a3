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
    /// Mean signed error mean(x̂ − x) over the pairs where both are finite (0 for none): the
    /// rounding's bias, as `fp4_options::mean_error` (up to the order of the f64 additions).
    /// Stochastic rounding brings it near 0; round-to-nearest can leave it away from 0.
    pub mean_error: f64,
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
    /// Σ (x − x̂), signed.
    pub sd: f64,
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
///
/// Each sum is kept as two partial sums in f64: one over the counted pairs (both values finite)
/// of even rank, one over those of odd rank, each added in order, and the two added at the end.
/// That is as exact as one running sum (rather more), does not depend on where the parts are
/// cut, and lets two pairs be added at once: a single running sum makes every pair wait for the
/// previous pair's addition, which bounded the Quantize lab's measuring pass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MetricsAccumulator {
    se: Lanes,
    sx: Lanes,
    sy: Lanes,
    sxy: Lanes,
    sd: Lanes,
    max: f64,
    n: usize,
    skipped: usize,
    lost: usize,
}

/// A sum's partial sums over pairs of even rank (index 0) and odd rank (index 1).
pub(crate) type Lanes = [f64; 2];

/// The sum of two partial sums (the same whichever order, since f64 addition commutes).
#[inline]
pub(crate) fn total(lanes: Lanes) -> f64 {
    lanes[0] + lanes[1]
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

    /// The partial sums the next counted pair goes to (0 or 1; see the type's docs).
    #[inline]
    pub(crate) fn lane(&self) -> usize {
        self.n & 1
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
        let l = self.lane();
        self.se[l] += squared;
        self.sx[l] += a * a;
        self.sy[l] += b * b;
        self.sxy[l] += a * b;
        self.sd[l] += e;
        // Both are finite here, so a plain comparison (no NaN handling) is enough.
        if e.abs() > self.max {
            self.max = e.abs();
        }
        self.n += 1;
        Some(squared)
    }

    /// Adds pairs that are all finite (the caller has checked), exactly as
    /// [`MetricsAccumulator::push_measured`] of each in order would, and sums their squared
    /// errors per block as well: `open` is the current block's sum so far (two lanes labelled
    /// by this accumulator's ranks, so their total is the block's whichever lane its first pair
    /// took), the block ends after the first `first` pairs and then every `block` pairs (both
    /// at least 1; `usize::MAX` for none), `end` gets each completed block's sums, and the open
    /// block's sums are returned. `each` is called with each pair's index in the loop that sums
    /// it (to count it elsewhere while the sums wait on their additions). Nothing branches per
    /// pair, and the sums stay in registers across blocks.
    #[inline(always)]
    pub(crate) fn add_finite_blocks(
        &mut self,
        original: &[f32],
        approx: &[f32],
        open: Lanes,
        (first, block): (usize, usize),
        mut each: impl FnMut(usize),
        mut end: impl FnMut(Lanes),
    ) -> Lanes {
        let len = original.len().min(approx.len());
        let block = block.max(1);
        let mut sums = Sums::load(self, open);
        let mut at = Walk {
            pair: 0,
            left: first.max(1),
            block,
        };
        // Pairs go two by two from an even rank: an odd first pair takes lane 1 alone.
        if self.n & 1 == 1 && len > 0 {
            at.one(&mut sums, 1, original, approx, &mut each, &mut end);
        }
        while at.pair < len {
            let (j, run) = (at.pair, at.left.min(len - at.pair) / 2 * 2);
            sums.halves(&original[j..j + run], &approx[j..j + run], |i| each(j + i));
            at.pair += run;
            at.left -= run;
            if at.left == 0 {
                end(sums.take_block());
                at.left = block;
            } else if at.pair < len {
                // One pair before the block's end: it takes lane 0 and the next pair, if any,
                // lane 1 (in the next block), after which pairs go two by two again.
                at.one(&mut sums, 0, original, approx, &mut each, &mut end);
                if at.pair < len {
                    at.one(&mut sums, 1, original, approx, &mut each, &mut end);
                }
            }
        }
        self.n += len;
        sums.store(self)
    }

    /// Adds sums measured elsewhere (a GPU's reduction of one part). The result is within the
    /// tolerance of those sums, not bit for bit what [`MetricsAccumulator::add`] of the same pairs
    /// gives; the counts are exact.
    pub fn add_sums(&mut self, sums: &MetricSums) {
        self.se[0] += sums.se;
        self.sx[0] += sums.sx;
        self.sy[0] += sums.sy;
        self.sxy[0] += sums.sxy;
        self.sd[0] += sums.sd;
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
        let mean_error = if self.n == 0 {
            0.0
        } else {
            -total(self.sd) / self.n as f64
        };
        if lost > 0 {
            return ErrorMetrics {
                mse: f64::INFINITY,
                rmse: f64::INFINITY,
                max_abs_error: f64::INFINITY,
                sqnr_db: f64::NEG_INFINITY,
                cosine: f64::NAN,
                mean_error,
                skipped,
                lost,
            };
        }
        let (se, sx, sy) = (total(self.se), total(self.sx), total(self.sy));
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
            (total(self.sxy) / (sx * sy).sqrt()).clamp(-1.0, 1.0)
        };
        ErrorMetrics {
            mse,
            rmse: mse.sqrt(),
            max_abs_error: self.max,
            sqnr_db,
            cosine,
            mean_error,
            skipped,
            lost,
        }
    }
}

/// Where [`MetricsAccumulator::add_finite_blocks`] is: the next pair, the pairs left in the
/// current block, and the block length.
struct Walk {
    pair: usize,
    left: usize,
    block: usize,
}

impl Walk {
    /// Adds the next pair alone in `lane`, and ends the block when it is the block's last.
    #[inline(always)]
    fn one(
        &mut self,
        sums: &mut Sums,
        lane: usize,
        original: &[f32],
        approx: &[f32],
        each: &mut impl FnMut(usize),
        end: &mut impl FnMut(Lanes),
    ) {
        each(self.pair);
        sums.one(lane, original[self.pair], approx[self.pair]);
        self.pair += 1;
        self.left -= 1;
        if self.left == 0 {
            end(sums.take_block());
            self.left = self.block;
        }
    }
}

/// The sums of [`MetricsAccumulator::add_finite_blocks`] while it runs, one pair at a time in
/// each lane (natively; in wasm `simd128::Sums` holds them in f64x2 lanes): the definition of
/// what the accumulator adds.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
struct Sums {
    se: Lanes,
    sx: Lanes,
    sy: Lanes,
    sxy: Lanes,
    sd: Lanes,
    block: Lanes,
    max: f64,
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl Sums {
    /// The accumulator's sums, and `open` as the block's.
    #[inline(always)]
    fn load(acc: &MetricsAccumulator, block: Lanes) -> Self {
        let (se, sx, sy, sxy, sd, max) = (acc.se, acc.sx, acc.sy, acc.sxy, acc.sd, acc.max);
        Self {
            se,
            sx,
            sy,
            sxy,
            sd,
            block,
            max,
        }
    }

    /// Adds the pairs of `a` and `b` (an even number, the first of even rank) two by two,
    /// calling `each` with each pair's index.
    #[inline(always)]
    fn halves(&mut self, a: &[f32], b: &[f32], mut each: impl FnMut(usize)) {
        for (k, (a, b)) in a.chunks_exact(2).zip(b.chunks_exact(2)).enumerate() {
            each(2 * k);
            each(2 * k + 1);
            self.one(0, a[0], b[0]);
            self.one(1, a[1], b[1]);
        }
    }

    /// Adds one finite pair to `lane`'s sums.
    #[inline(always)]
    fn one(&mut self, lane: usize, a: f32, b: f32) {
        let (a, b) = (a as f64, b as f64);
        let e = a - b;
        let squared = e * e;
        self.se[lane] += squared;
        self.block[lane] += squared;
        self.sx[lane] += a * a;
        self.sy[lane] += b * b;
        self.sxy[lane] += a * b;
        self.sd[lane] += e;
        // Finite pairs: no NaN, so the select is `push_measured`'s comparison.
        self.max = if e.abs() > self.max {
            e.abs()
        } else {
            self.max
        };
    }

    /// The block's sums, which start again from zero.
    #[inline(always)]
    fn take_block(&mut self) -> Lanes {
        std::mem::take(&mut self.block)
    }

    /// Writes the sums back to `acc`; returns the open block's.
    #[inline(always)]
    fn store(self, acc: &mut MetricsAccumulator) -> Lanes {
        (acc.se, acc.sx, acc.sy, acc.sxy, acc.sd, acc.max) =
            (self.se, self.sx, self.sy, self.sxy, self.sd, self.max);
        self.block
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use simd128::Sums;

/// Metrics over the pairs whose original is finite (NaN and ±inf originals are counted in
/// `skipped`); a finite original that comes back non-finite is counted in `lost` and makes the
/// error infinite.
pub fn error_metrics(original: &[f32], approx: &[f32]) -> ErrorMetrics {
    let mut acc = MetricsAccumulator::default();
    acc.add(original, approx);
    acc.finish()
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

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
        assert_eq!(m.mean_error, 0.125);
        assert_eq!(error_metrics(&[1.0], &[1.0]).sqnr_db, f64::INFINITY);
        // The same mean as `fp4_options::mean_error`, lost and skipped pairs left out.
        let (x, y) = (
            [1.0, 2.0, f32::NAN, 4.0, 0.5],
            [1.5, 1.0, 0.0, f32::INFINITY, 0.75],
        );
        let m = error_metrics(&x, &y);
        assert_eq!(m.mean_error, crate::quant::fp4_options::mean_error(&x, &y));
        assert_eq!(m.mean_error, (0.5 - 1.0 + 0.25) / 3.0);
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
