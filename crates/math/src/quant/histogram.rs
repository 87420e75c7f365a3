//! Histograms for the Quantize lab: fixed bins over a known range, and a histogram of values
//! whose range is only known at the end (quantization errors), built a part at a time in bounded
//! memory with exact counts.

mod f32_bins;

use f32_bins::{FineBins, FixedBins, DOUBTFUL};

/// Counts in equal bins over [lo, hi].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Histogram {
    /// Left edge of the first bin.
    pub lo: f32,
    /// Right edge of the last bin.
    pub hi: f32,
    /// Count per bin, left to right.
    pub counts: Vec<u32>,
}

/// Counts of `values` in `bins` equal bins over [lo, hi] (values outside are clamped into the end
/// bins; NaN is skipped).
pub fn histogram(values: &[f32], lo: f32, hi: f32, bins: usize) -> Vec<u32> {
    let bins = bins.clamp(1, i32::MAX as usize);
    let mut lanes = vec![[0u32; 4]; bins + 1];
    Bins::new(bins, lo, hi).count(values, &mut lanes);
    lanes[..bins].iter().map(|c| c.iter().sum()).collect()
}

/// Where a value falls among equal bins over [lo, hi]: values outside go to the end bins, NaN to
/// none. Positions are computed in f64, so even a range as wide as f32's is safe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bins {
    lo: f64,
    scale: f64,
    last: isize,
}

impl Bins {
    /// `count` bins (at least one, at most `i32::MAX`) over [lo, hi]; an empty range puts
    /// everything in the first.
    pub fn new(count: usize, lo: f32, hi: f32) -> Self {
        let count = count.clamp(1, i32::MAX as usize);
        let span = hi as f64 - lo as f64;
        Self {
            lo: lo as f64,
            scale: if span > 0.0 {
                count.max(1) as f64 / span
            } else {
                0.0
            },
            last: count.max(1) as isize - 1,
        }
    }

    /// The bin of `v`, or `None` for NaN.
    #[inline]
    pub fn index(&self, v: f32) -> Option<usize> {
        (!v.is_nan()).then(|| self.index_or_past_end(v))
    }

    /// The bin of `v`, or the bin count (one past the last bin) for NaN: branch-free, so a loop
    /// of it vectorizes. Clamping the position to [0, last] before truncating gives the same bin
    /// as truncating and then clamping, since `last` is an integer; ±inf land in the end bins.
    #[inline(always)]
    pub fn index_or_past_end(&self, v: f32) -> usize {
        let p = (v as f64 - self.lo) * self.scale;
        let last = self.last as f64;
        // `>` is false for NaN: a NaN position becomes 0 here, and the NaN check picks its bin.
        let p = if p > 0.0 { p } else { 0.0 };
        let p = if p < last { p } else { last };
        // SAFETY: p is in [0, last] (NaN became 0), and `last` is a bin index, so it fits an i32.
        let i = unsafe { p.to_int_unchecked::<i32>() } as usize;
        if v.is_nan() {
            self.last as usize + 1
        } else {
            i
        }
    }

    /// Writes the bin of each of `values` to `at` (as [`Bins::index_or_past_end`]; zipped, the
    /// shorter length wins): a loop without branches.
    #[inline]
    pub fn indices(&self, values: &[f32], at: &mut [u32]) {
        // f32 arithmetic where it gives the f64 bin (see `f32_bins`), f64 for the rest.
        let fast = FixedBins::new(self.lo, self.scale, self.last);
        if fast.is_some_and(|fast| !fast.indices(values, at)) {
            return;
        }
        for (i, v) in at.iter_mut().zip(values) {
            if fast.is_none() || *i == DOUBTFUL {
                *i = self.index_or_past_end(*v) as u32;
            }
        }
    }

    /// Adds the bins of `values` to `counts` (at least [`Bins::index_or_past_end`]'s largest
    /// index + 1 long; NaN lands one past the last bin). Four interleaved sets of counts keep
    /// consecutive values in the same bin from waiting on each other's increments.
    pub fn count(&self, values: &[f32], counts: &mut [[u32; 4]]) {
        let mut at = [0u32; 256];
        for run in values.chunks(256) {
            let at = &mut at[..run.len()];
            self.indices(run, at);
            add_in_lanes(at, counts);
        }
    }
}

/// Adds one to `counts[i][lane]` for each bin `i` in `at`, the lane cycling through the four so
/// that consecutive values in one bin do not wait on each other's increments.
#[inline]
pub(crate) fn add_in_lanes(at: &[u32], counts: &mut [[u32; 4]]) {
    let mut four = at.chunks_exact(4);
    for f in &mut four {
        for (lane, i) in f.iter().enumerate() {
            counts[*i as usize][lane] += 1;
        }
    }
    for i in four.remainder() {
        counts[*i as usize][0] += 1;
    }
}

/// Fine bins of a [`GrowingHistogram`] over its symmetric range.
pub const FINE: usize = 4096;

/// Where fine bin `i` of a [`GrowingHistogram`] goes when its range doubles `k` times: each
/// doubling merges bin pairs into the middle half (`FINE / 4 + i / 2`), exactly as the range's
/// own growth does.
pub fn fold_fine_bin(mut i: usize, k: u32) -> usize {
    // After 12 doublings every bin has settled on FINE / 2 − 1 or FINE / 2.
    for _ in 0..k.min(12) {
        i = FINE / 4 + i / 2;
    }
    i
}

/// A histogram of values centred on zero whose range is not known in advance: `FINE` bins over
/// [−R, R], where R is a power of two that doubles (merging pairs of bins) whenever a value falls
/// outside. Counts are exact; NaN and ±inf are skipped. [`GrowingHistogram::finish`] trims the
/// empty ends and groups the fine bins into at most the requested number.
#[derive(Clone, Debug, PartialEq)]
pub struct GrowingHistogram {
    /// log2 of R once a non-zero value has been seen.
    exponent: Option<i32>,
    /// R (0 until a non-zero value has been seen).
    r: f64,
    /// FINE / 2R. R and this are powers of two, so the bin arithmetic is exact.
    scale: f64,
    counts: Vec<u64>,
    /// Counts added by [`GrowingHistogram::add_differences`] and the lab's measuring pass, in
    /// 32 bits so that the [`FINE`] bins take 16 KiB and stay in the L1 cache (consecutive
    /// errors rarely share one of 4096 bins, so one lane per bin is enough); moved into `counts`
    /// before the range doubles, at the end, and before a count could overflow.
    recent: Vec<u32>,
    /// Values in `recent`.
    in_recent: u64,
    /// Zeros seen before any non-zero value (they belong in the bin just right of 0).
    zeros: u64,
}

impl Default for GrowingHistogram {
    fn default() -> Self {
        Self {
            exponent: None,
            r: 0.0,
            scale: 0.0,
            counts: vec![0; FINE],
            recent: vec![0; FINE],
            in_recent: 0,
            zeros: 0,
        }
    }
}

impl GrowingHistogram {
    /// Adds values; each takes O(1) except the rare doubling of the range.
    pub fn add(&mut self, values: &[f32]) {
        for &v in values {
            self.push(v);
        }
    }

    /// Adds `b[i] − a[i]` for every i (zipped), as [`GrowingHistogram::push`] of each would:
    /// runs whose differences are all finite and inside the range take a loop without branches.
    pub fn add_differences(&mut self, a: &[f32], b: &[f32]) {
        let mut at = [0u32; 256];
        for (a, b) in a.chunks(256).zip(b.chunks(256)) {
            let at = &mut at[..a.len().min(b.len())];
            if self.fine_bins(a, b, at) {
                let recent = self.recent_for(at.len());
                for i in at.iter() {
                    recent[*i as usize] += 1;
                }
            } else {
                for (a, b) in a.iter().zip(b) {
                    self.push(b - a);
                }
            }
        }
    }

    /// Writes the fine bin of each difference `b[i] − a[i]` (zipped, at most `at.len()` of them)
    /// to `at` and returns true when every difference is finite and within the current range,
    /// so adding them changes no range; otherwise returns false (`at` then means nothing) and
    /// the differences must be pushed one by one. A NaN or ±inf in `a` or `b` makes its
    /// difference fail the test, so true also says every value of both is finite.
    #[inline]
    pub(crate) fn fine_bins(&self, a: &[f32], b: &[f32], at: &mut [u32]) -> bool {
        if self.r == 0.0 {
            return false;
        }
        // Whether every |e| ≤ R (so none is NaN or infinite): R as an f32, at most the largest
        // finite f32, so the test stays exact and ±inf never passes it.
        let r = self.r.min(f32::MAX as f64) as f32;
        // f32 arithmetic where it gives the f64 bin (see `f32_bins`), f64 for the rest.
        if let Some(fast) = FineBins::new(self.r) {
            let (inside, doubtful) = fast.indices(a, b, r, at);
            if inside && doubtful {
                for ((i, a), b) in at.iter_mut().zip(a).zip(b) {
                    if *i == DOUBTFUL {
                        *i = self.fine_bin(b - a);
                    }
                }
            }
            return inside;
        }
        let mut inside = 1u32;
        for ((i, a), b) in at.iter_mut().zip(a).zip(b) {
            let e = b - a;
            inside &= (e.abs() <= r) as u32;
            *i = self.fine_bin(e);
        }
        inside == 1
    }

    /// The fine bin of `e` (|e| ≤ R; a NaN lands in the last bin): trunc((e + R) · FINE / 2R)
    /// in f64, clamped to the last bin.
    #[inline(always)]
    fn fine_bin(&self, e: f32) -> u32 {
        // |e| ≤ R: the position is in [0, FINE], and only FINE itself needs clamping.
        let last = (FINE - 1) as f64;
        let p = (e as f64 + self.r) * self.scale;
        let p = if p < last { p } else { last };
        let p = if p > 0.0 { p } else { 0.0 };
        // SAFETY: p is in [0, FINE − 1] (a NaN fails `p < last` and becomes FINE − 1), so it
        // fits an i32.
        unsafe { p.to_int_unchecked::<i32>() as u32 }
    }

    /// The counts to add `n` more values to, one per fine bin (bins from
    /// [`GrowingHistogram::fine_bins`]), moved into the main counts first when one could
    /// otherwise overflow.
    #[inline]
    pub(crate) fn recent_for(&mut self, n: usize) -> &mut [u32; FINE] {
        if self.in_recent + n as u64 > u32::MAX as u64 {
            self.settle();
        }
        self.in_recent += n as u64;
        // A fixed length lets a caller index with `& (FINE − 1)` and no bounds check.
        self.recent
            .as_mut_slice()
            .try_into()
            .expect("FINE recent counts")
    }

    /// Adds one value (NaN and ±inf are skipped).
    #[inline]
    pub fn push(&mut self, v: f32) {
        if !v.is_finite() {
            return;
        }
        let a = v.abs() as f64;
        if a > self.r {
            self.grow(a);
        } else if self.r == 0.0 {
            self.zeros += 1;
            return;
        }
        // Through i64: a float-to-unsigned conversion is several instructions on x86.
        let i = ((v as f64 + self.r) * self.scale) as i64;
        self.counts[i.clamp(0, FINE as i64 - 1) as usize] += 1;
    }

    /// Makes R at least `a` (> 0).
    #[cold]
    fn grow(&mut self, a: f64) {
        match self.exponent {
            None => {
                let e = a.log2().ceil() as i32;
                // log2 can round down to an integer just below the true value.
                self.exponent = Some(if 2f64.powi(e) < a { e + 1 } else { e });
            }
            Some(_) => {
                while a > self.r {
                    self.double();
                }
            }
        }
        let e = self.exponent.unwrap_or(0);
        self.r = 2f64.powi(e);
        self.scale = FINE as f64 / (2.0 * self.r);
    }

    /// An empty histogram whose range is already 2^`exponent` (`None`: not yet set), as one that
    /// has seen values up to that size but counts none of them: the start of a part's
    /// histogram that continues another's (see [`GrowingHistogram::merge`]).
    pub fn starting_at(exponent: Option<i32>) -> Self {
        let mut h = Self::default();
        if let Some(e) = exponent {
            h.exponent = Some(e);
            h.r = 2f64.powi(e);
            h.scale = FINE as f64 / (2.0 * h.r);
        }
        h
    }

    /// log2 of the range R, once a non-zero finite value has been seen: the growth so far, which
    /// decides where later values land (a value equal to R sits in the top bin; a tiny negative
    /// one rounds to the bin right of 0 when it is at most R·2⁻⁵⁴).
    pub fn exponent(&self) -> Option<i32> {
        self.exponent
    }

    /// Adds [`FINE`] counts binned elsewhere (e.g. on a GPU) over [−2^e, 2^e] for `exponent` e,
    /// each value binned as [`GrowingHistogram::push`] would have binned it with the range it
    /// had then, then folded into e; with `exponent` `None` every count must be of zeros (bin
    /// `FINE / 2`). The range grows to the larger of the two exponents and the smaller side
    /// folds as doubling would fold it, so the counts equal pushing the same values in order.
    /// Counts beyond [`FINE`] are ignored. Exact when the counts were binned knowing this
    /// histogram's exponent (e at least this one's; see [`GrowingHistogram::starting_at`]).
    pub fn add_fine(&mut self, exponent: Option<i32>, counts: &[u64]) {
        let Some(e) = exponent else {
            let zeros: u64 = counts.iter().sum();
            match self.exponent {
                None => self.zeros += zeros,
                Some(_) => self.counts[FINE / 2] += zeros,
            }
            return;
        };
        match self.exponent {
            None => {
                *self = Self {
                    zeros: self.zeros,
                    ..Self::starting_at(Some(e))
                }
            }
            Some(mine) => {
                for _ in mine..e {
                    self.double();
                }
                self.scale = FINE as f64 / (2.0 * self.r);
            }
        }
        let k = (self.exponent.unwrap_or(e) - e).max(0) as u32;
        for (i, c) in counts.iter().take(FINE).enumerate() {
            self.counts[fold_fine_bin(i, k)] += c;
        }
    }

    /// The count of each of the [`FINE`] bins over [−2^e, 2^e] so far (zeros seen before the
    /// range was set included in the bin right of 0): what two histograms compare by.
    pub fn fine_counts(&self) -> Vec<u64> {
        let mut counts = self.counts.clone();
        for (c, l) in counts.iter_mut().zip(&self.recent) {
            *c += *l as u64;
        }
        counts[FINE / 2] += self.zeros;
        counts
    }

    /// Adds everything `other` counted, as if its values had been pushed here after this
    /// histogram's own: exactly so when `other` started at this histogram's exponent
    /// ([`GrowingHistogram::starting_at`]), since its values were then binned with the range
    /// they would have met here (see [`GrowingHistogram::add_fine`]).
    pub fn merge(&mut self, other: &GrowingHistogram) {
        let mut counts = other.fine_counts();
        counts[FINE / 2] -= other.zeros;
        self.add_fine(other.exponent, &counts);
        self.add_fine(None, &[other.zeros]);
    }

    /// Moves the recent counts into `counts`.
    fn settle(&mut self) {
        if self.in_recent > 0 {
            for (c, l) in self.counts.iter_mut().zip(&mut self.recent) {
                *c += *l as u64;
                *l = 0;
            }
            self.in_recent = 0;
        }
    }

    /// Doubles R: bin pairs merge into the middle half.
    fn double(&mut self) {
        self.settle();
        let mut merged = vec![0u64; FINE];
        for (j, pair) in self.counts.chunks_exact(2).enumerate() {
            merged[FINE / 4 + j] = pair[0] + pair[1];
        }
        self.counts = merged;
        self.exponent = self.exponent.map(|e| e + 1);
        self.r *= 2.0;
    }

    /// At most `bins` equal bins spanning the values seen (whole fine bins, so the edges can lie a
    /// little outside the extreme values). No values, or only zeros: one bin over [−1, 1].
    pub fn finish(&self, bins: usize) -> Histogram {
        let counts = self.fine_counts();
        let Some(e) = self.exponent else {
            let mut counts = vec![0u32; bins.max(1)];
            counts[bins.max(1) / 2] = self.zeros.min(u32::MAX as u64) as u32;
            return Histogram {
                lo: -1.0,
                hi: 1.0,
                counts,
            };
        };
        let first = counts.iter().position(|c| *c > 0).unwrap_or(0);
        let last = counts.iter().rposition(|c| *c > 0).unwrap_or(FINE - 1);
        let group = (last - first + 1).div_ceil(bins.max(1));
        let width = 2f64.powi(e + 1) / FINE as f64;
        let lo = -(2f64.powi(e)) + first as f64 * width;
        let grouped: Vec<u32> = counts[first..=last]
            .chunks(group)
            .map(|c| c.iter().sum::<u64>().min(u32::MAX as u64) as u32)
            .collect();
        let hi = lo + (grouped.len() * group) as f64 * width;
        Histogram {
            lo: lo as f32,
            hi: hi as f32,
            counts: grouped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_bins_count_everything_once() {
        let h = histogram(&[-2.0, -1.0, 0.0, 0.5, 1.0, 9.0, f32::NAN], -1.0, 1.0, 4);
        assert_eq!(h.iter().sum::<u32>(), 6);
        assert_eq!(h, vec![2, 0, 1, 3]);
    }

    #[test]
    fn growing_counts_are_exact_and_bins_follow_the_values() {
        let values: Vec<f32> = (0..10_000)
            .map(|i| ((i as f32 * 0.618).fract() - 0.3) * 0.001)
            .chain([f32::NAN, f32::INFINITY, 0.0])
            .collect();
        let mut g = GrowingHistogram::default();
        // Small values first, then the large ones: the range has to grow several times.
        g.add(&values[..10]);
        g.add(&[5e-7]);
        g.add(&values[10..]);
        let h = g.finish(80);
        assert_eq!(h.counts.iter().sum::<u32>(), 10_000 + 1 + 1);
        assert!(
            h.counts.len() <= 80 && h.counts.len() > 40,
            "{}",
            h.counts.len()
        );
        // The values span [-0.0003, 0.0007); the bins span that and not much more.
        assert!(h.lo <= -0.0003 && h.lo > -0.00032, "{}", h.lo);
        assert!(h.hi >= 0.0007 && h.hi < 0.00072, "{}", h.hi);
        // The same values through fixed bins with the same edges give the same counts.
        let finite: Vec<f32> = values
            .iter()
            .copied()
            .chain([5e-7])
            .filter(|v| v.is_finite())
            .collect();
        let fixed = histogram(&finite, h.lo, h.hi, h.counts.len());
        let moved: i64 = fixed
            .iter()
            .zip(&h.counts)
            .map(|(a, b)| (*a as i64 - *b as i64).abs())
            .sum();
        assert!(moved <= 4, "only values on a bin edge may differ: {moved}");
    }

    #[test]
    fn differences_in_runs_count_exactly_what_pushing_each_counts() {
        let a: Vec<f32> = (0..5000).map(|i| (i as f32 * 0.37).sin()).collect();
        let mut b: Vec<f32> = a.iter().map(|v| (v * 64.0).round() / 64.0).collect();
        // Differences that make the range grow part-way, and ones that are skipped.
        b[3000] = a[3000] + 0.75;
        b[4000] = f32::NAN;
        b[4001] = f32::INFINITY;
        let (mut runs, mut one_by_one) = (GrowingHistogram::default(), GrowingHistogram::default());
        for (a, b) in a.chunks(700).zip(b.chunks(700)) {
            runs.add_differences(a, b);
        }
        for (a, b) in a.iter().zip(&b) {
            one_by_one.push(b - a);
        }
        assert_eq!(runs.finish(80), one_by_one.finish(80));
        assert_eq!(runs.finish(80).counts.iter().sum::<u32>(), 4998);
    }

    #[test]
    fn growing_with_nothing_or_only_zeros() {
        let empty = GrowingHistogram::default().finish(10);
        assert_eq!(
            (empty.lo, empty.hi, empty.counts.iter().sum::<u32>()),
            (-1.0, 1.0, 0)
        );
        let mut g = GrowingHistogram::default();
        g.add(&[0.0, -0.0, f32::NAN]);
        assert_eq!(g.finish(10).counts.iter().sum::<u32>(), 2);
    }
}
