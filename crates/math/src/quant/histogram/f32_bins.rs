//! The histograms' bins from f32 arithmetic, for speed, with the f64 definitions' results.
//!
//! The bins are defined in f64 ([`super::Bins::index_or_past_end`] and the fine bins of
//! [`super::GrowingHistogram`]), which keeps ranges as wide as f32's safe but leaves the loops
//! scalar in wasm, where they took about 0.4 of the measuring pass's 1.07 s per GB. These compute
//! each bin in f32 (four lanes of simd128, in `simd128.rs`; the scalar form here finishes the last
//! values, and measured slower than the f64 loop as a whole loop) and mark as [`DOUBTFUL`] every
//! value whose f32 bin could differ from the f64 one; the callers recompute those few in f64. So
//! every bin is the definition's: `tests/histogram_bins.rs` checks it against the f64 loops on
//! values at and next to every bin edge, in the browser. Natively the f64 loops run (see [`USED`]).

/// Whether the f32 loops are used at all: in wasm with simd128 only. Natively LLVM packs the f64
/// loops two lanes wide and they measured faster (the native measuring pass of Q8_0 went from
/// 1.99 to 1.65 GB/s with these), so there the f64 definitions run as they are.
const USED: bool = cfg!(all(target_arch = "wasm32", target_feature = "simd128"));

/// Marks a value whose bin the f32 arithmetic cannot vouch for.
pub(super) const DOUBTFUL: u32 = u32::MAX;

/// f32 form of fixed bins over [lo, hi] (see [`super::Bins`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct FixedBins {
    lo: f32,
    scale: f32,
    last: f32,
    /// How far from an integer an f32 position must be for its floor to be the f64 one's.
    margin: f32,
}

impl FixedBins {
    /// The f32 form of bins starting at `lo` (an f32 widened), `scale` bins per unit and `last`
    /// the last bin's index; `None` natively (see [`USED`]), when the scale is not a normal f32,
    /// or when there are more than 2^16 bins (where the margin would be too wide to help).
    ///
    /// The margin: the f32 position fl(fl(v − lo) · fl(scale)) is within 3 rounding errors
    /// (3 · 2^-24, relative) of the exact position, and the f64 one within 2 · 2^-53, so where
    /// the bin is in doubt (positions below last + 2) they differ by less than
    /// 4 · 2^-24 · (last + 2).
    pub(super) fn new(lo: f64, scale: f64, last: isize) -> Option<Self> {
        let (lo32, scale32) = (lo as f32, scale as f32);
        let usable =
            USED && lo32 as f64 == lo && scale32.is_normal() && (0..1 << 16).contains(&last);
        usable.then_some(Self {
            lo: lo32,
            scale: scale32,
            last: last as f32,
            margin: 2.0 * f32::EPSILON * (last as f32 + 2.0),
        })
    }

    /// Writes each value's bin to `at` (zipped), or [`DOUBTFUL`]; returns whether any is.
    #[inline]
    pub(super) fn indices(&self, values: &[f32], at: &mut [u32]) -> bool {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let (done, mut doubtful) = simd128::fixed_indices(self, values, at);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let (done, mut doubtful) = (0, false);
        for (i, v) in at.iter_mut().zip(values).skip(done) {
            *i = self.index(*v);
            doubtful |= *i == DOUBTFUL;
        }
        doubtful
    }

    /// The bin of `v`, or [`DOUBTFUL`].
    ///
    /// A finite position p ≤ −1 is in the first bin whatever the rounding, p ≥ last + 1 in the
    /// last, and one whose distance to the integers is at least the margin has the f64 floor.
    /// An infinite p (±∞ or NaN, or v − lo beyond f32's range) is doubtful, as is anything the
    /// margin does not clear.
    #[inline(always)]
    fn index(&self, v: f32) -> u32 {
        let top = self.last + 1.0;
        let p = (v - self.lo) * self.scale;
        let f = floor_within(p, -1.0, top);
        let frac = p - f;
        let clear = (frac >= self.margin) & (frac <= 1.0 - self.margin);
        let sure = (p.abs() < f32::INFINITY) & ((p <= -1.0) | (p >= top) | clear);
        // SAFETY: the clamped f is an integer in [0, last] (f is finite), which fits an i32.
        let bin = unsafe { f.clamp(0.0, self.last).to_int_unchecked::<i32>() } as u32;
        if sure {
            bin
        } else {
            DOUBTFUL
        }
    }
}

/// f32 form of a growing histogram's fine bins at range R = 2^E: position e · FINE / 2R + FINE/2.
#[derive(Clone, Copy, Debug)]
pub(super) struct FineBins {
    /// FINE / 2R, a power of two.
    scale: f32,
}

impl FineBins {
    /// The f32 form at range `r` (a power of two); `None` natively (see [`USED`]) and when
    /// FINE / 2R is not a normal f32.
    pub(super) fn new(r: f64) -> Option<Self> {
        let scale = (super::FINE as f64 / (2.0 * r)) as f32;
        (USED && scale.is_normal()).then_some(Self { scale })
    }

    /// Writes the fine bin of each difference `b[i] − a[i]` (f32, zipped) to `at`, or
    /// [`DOUBTFUL`]; returns (whether every |difference| ≤ `r32`, whether any bin is doubtful).
    #[inline]
    pub(super) fn indices(&self, a: &[f32], b: &[f32], r32: f32, at: &mut [u32]) -> (bool, bool) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let (done, mut inside, mut doubtful) = simd128::fine_indices(self, a, b, r32, at);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let (done, mut inside, mut doubtful) = (0, true, false);
        for ((i, a), b) in at.iter_mut().zip(a).zip(b).skip(done) {
            let e = b - a;
            inside &= e.abs() <= r32;
            *i = self.index(e);
            doubtful |= *i == DOUBTFUL;
        }
        (inside, doubtful)
    }

    /// The fine bin of a difference |e| ≤ R, or [`DOUBTFUL`] (anything for NaN).
    ///
    /// Exact where it answers: e · FINE/2R multiplies by a power of two, so q = e · scale is
    /// exact (a result too small to be exact has |q| < 2^-126), and FINE/2 + floor(q) is the
    /// floor of the position. The f64 definition adds e + R first, which rounds only when
    /// |e| < 2^-29 R, that is |q| < 2^-18 ([`FINE_TINY`]): a positive e then still lands in bin
    /// FINE/2, as here, but a negative one may land in FINE/2 instead of FINE/2 − 1, so those are
    /// doubtful. Bins are clamped to the last one (e = R gives FINE).
    #[inline(always)]
    fn index(&self, e: f32) -> u32 {
        let q = e * self.scale;
        if (e < 0.0) & (q.abs() < FINE_TINY) {
            return DOUBTFUL;
        }
        let bin = floor_within(q, -FINE_HALF - 1.0, FINE_HALF + 1.0) + FINE_HALF;
        // SAFETY: the clamped bin is an integer in [0, FINE − 1], which fits an i32.
        unsafe { bin.clamp(0.0, FINE_LAST).to_int_unchecked::<i32>() as u32 }
    }
}

/// FINE / 2 as an f32.
const FINE_HALF: f32 = (super::FINE / 2) as f32;
/// The last fine bin as an f32.
const FINE_LAST: f32 = (super::FINE - 1) as f32;
/// |q| below which the f64 definition's e + R may round (2^-18, |e| < 2^-29 R). It changes the
/// bin only from about 2^-43 down (e + R rounding up to R itself), so this errs on the safe side:
/// those values are recomputed in f64.
const FINE_TINY: f32 = 1.0 / (1 << 18) as f32;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// floor(p) for p in [lo, hi] (integers of magnitude below 2^24; NaN gives lo, beyond the
/// bounds the bound) with a truncation and a step down for negative non-integers, so that it
/// stays a packed instruction sequence (no `floorf` call on x86-64 without SSE4.1).
#[inline(always)]
fn floor_within(p: f32, lo: f32, hi: f32) -> f32 {
    // `>`/`<` are false for NaN, which becomes `lo`.
    let p = if p > lo { p } else { lo };
    let p = if p < hi { p } else { hi };
    // SAFETY: p is finite and within ±2^24, so it fits an i32.
    let t = unsafe { p.to_int_unchecked::<i32>() } as f32;
    t - (t > p) as i32 as f32
}
