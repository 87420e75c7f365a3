//! The [`super::Overview`]'s pass over a tensor: the range of its finite values and where the
//! largest |x| is. In wasm (simd128) four lanes at a time, since LLVM keeps this loop scalar
//! there; natively the scalar loop, which is also the definition the lanes reproduce.

/// (lo, hi, peak) of the finite values of `x`: the smallest and largest (lo > hi when there is
/// none) and the index of the first largest |x| (0 when there is none).
pub(super) fn range_and_peak(x: &[f32]) -> (f32, f32, usize) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::range_and_peak(x);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    in_order(x, Start::default())
}

/// Where [`in_order`] starts: the fold so far and the index of the first value it is given.
#[derive(Clone, Copy, Debug)]
struct Start {
    lo: f32,
    hi: f32,
    peak: usize,
    peak_abs: f32,
    first: usize,
}

impl Default for Start {
    fn default() -> Self {
        Self {
            lo: f32::INFINITY,
            hi: f32::NEG_INFINITY,
            peak: 0,
            peak_abs: -1.0,
            first: 0,
        }
    }
}

/// The fold one value at a time, from `start`: `lo.min(v)` and `hi.max(v)` as selects (the
/// same for non-NaN operands; an equal v, such as −0 against 0, wins, as in libm's `fminf`),
/// without the call to `fminf`/`fmaxf` that wasm makes for them; a strictly larger |x| moves the
/// peak, so the first one stays.
fn in_order(x: &[f32], start: Start) -> (f32, f32, usize) {
    let Start {
        mut lo,
        mut hi,
        mut peak,
        mut peak_abs,
        first,
    } = start;
    for (i, &v) in x.iter().enumerate().filter(|(_, v)| v.is_finite()) {
        lo = if lo < v { lo } else { v };
        hi = if hi < v { v } else { hi };
        if v.abs() > peak_abs {
            (peak, peak_abs) = (first + i, v.abs());
        }
    }
    (lo, hi, peak)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::{in_order, Start};
    use crate::lanes::load_f32x4;
    use core::arch::wasm32::*;

    /// [`super::range_and_peak`] in four lanes, lane j taking the values at 4k + j, then the
    /// lanes combined and the last values (fewer than four) folded in order.
    ///
    /// Per lane, `pmin(lo, v)` is `v < lo ? v : lo` and `pmax(hi, v)` is `hi < v ? v : hi`: a NaN
    /// never replaces the running value, and an equal one does not either, unlike the fold's
    /// selects, which differs only in the sign of a zero result. ±∞ are not left out here, so a
    /// range or peak that is infinite, as a zero lo or hi, takes the fold in order (rare: a
    /// tensor with an infinity or a zero bound). A lane moves its peak only on a strictly larger
    /// |x|, so it keeps its first; the first of the lanes' equal largest is then the tensor's
    /// first.
    pub(super) fn range_and_peak(x: &[f32]) -> (f32, f32, usize) {
        let n = x.len() / 4 * 4;
        let (mut lo, mut hi) = (f32x4_splat(f32::INFINITY), f32x4_splat(f32::NEG_INFINITY));
        let (mut top, mut at) = (f32x4_splat(-1.0), u32x4_splat(0));
        let (mut here, four) = (u32x4(0, 1, 2, 3), u32x4_splat(4));
        for k in (0..n).step_by(4) {
            let v = load_f32x4(&x[k..k + 4]);
            let a = f32x4_abs(v);
            lo = f32x4_pmin(lo, v);
            hi = f32x4_pmax(hi, v);
            at = v128_bitselect(here, at, f32x4_gt(a, top));
            top = f32x4_pmax(top, a);
            here = u32x4_add(here, four);
        }
        let lanes = |v: v128| -> [f32; 4] {
            // SAFETY: a v128 is 16 bytes, as [f32; 4] is, and every bit pattern is an f32.
            unsafe { std::mem::transmute(v) }
        };
        // SAFETY: as above, for u32.
        let at: [u32; 4] = unsafe { std::mem::transmute(at) };
        let (lo, hi, top) = (lanes(lo), lanes(hi), lanes(top));
        let mut start = Start {
            first: n,
            ..Start::default()
        };
        for j in 0..4 {
            start.lo = if start.lo < lo[j] { start.lo } else { lo[j] };
            start.hi = if start.hi < hi[j] { hi[j] } else { start.hi };
            let earlier = (at[j] as usize) < start.peak;
            if top[j] > start.peak_abs || (top[j] == start.peak_abs && earlier) {
                (start.peak, start.peak_abs) = (at[j] as usize, top[j]);
            }
        }
        let (lo, hi, peak) = in_order(&x[n..], start);
        let infinite = start.peak_abs == f32::INFINITY;
        if infinite {
            return in_order(x, Start::default());
        }
        if lo == 0.0 || hi == 0.0 {
            let (lo, hi, _) = in_order(x, Start::default());
            return (lo, hi, peak);
        }
        (lo, hi, peak)
    }
}
