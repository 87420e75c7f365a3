//! The f32 bin loops four values at a time with simd128 (LLVM left them scalar in wasm, where
//! they measured slower than the f64 loops they replace). Each lane computes what
//! `FixedBins::index` and `FineBins::index` compute for its value, with `f32x4.floor` for the
//! floor and `small_integers` for the conversion of the clamped bin; the callers finish the
//! last values (fewer than four) with those.

use super::{FineBins, FixedBins, FINE_HALF, FINE_LAST, FINE_TINY};
use crate::lanes::{load_f32x4, small_integers};
use core::arch::wasm32::*;

/// Four f32 from `x` at `k` (k + 4 ≤ x.len()).
#[inline(always)]
fn load(x: &[f32], k: usize) -> v128 {
    load_f32x4(&x[k..k + 4])
}

/// Stores four u32 to `at` at `k` (k + 4 ≤ at.len()).
#[inline(always)]
fn store(at: &mut [u32], k: usize, v: v128) {
    let four: &mut [u32; 4] = (&mut at[k..k + 4]).try_into().expect("four bins");
    // SAFETY: `four` is 16 writable bytes; `v128_store` has no alignment requirement.
    unsafe { v128_store(four.as_mut_ptr().cast(), v) }
}

/// `FixedBins::indices` for the longest prefix of whole fours: (values done, any doubtful).
/// A lane that is not sure is all ones, which is `DOUBTFUL`.
#[inline(always)]
pub(super) fn fixed_indices(bins: &FixedBins, values: &[f32], at: &mut [u32]) -> (usize, bool) {
    let n = values.len().min(at.len()) / 4 * 4;
    let (lo, scale) = (f32x4_splat(bins.lo), f32x4_splat(bins.scale));
    let (zero, last, top) = (
        f32x4_splat(0.0),
        f32x4_splat(bins.last),
        f32x4_splat(bins.last + 1.0),
    );
    let (minus_one, infinity, margin, far) = (
        f32x4_splat(-1.0),
        f32x4_splat(f32::INFINITY),
        f32x4_splat(bins.margin),
        f32x4_splat(1.0 - bins.margin),
    );
    let mut doubtful = i32x4_splat(0);
    for k in (0..n).step_by(4) {
        let p = f32x4_mul(f32x4_sub(load(values, k), lo), scale);
        let f = f32x4_floor(p);
        let frac = f32x4_sub(p, f);
        let clear = v128_and(f32x4_ge(frac, margin), f32x4_le(frac, far));
        let beyond = v128_or(f32x4_le(p, minus_one), f32x4_ge(p, top));
        let finite = f32x4_lt(f32x4_abs(p), infinity);
        let sure = v128_and(finite, v128_or(beyond, clear));
        // NaN f: `pmax` keeps it, `pmin` keeps it, and its conversion means nothing (the lane
        // is not sure, so it becomes DOUBTFUL below); otherwise a whole number in [0, last].
        let bin = small_integers(f32x4_pmin(f32x4_pmax(f, zero), last));
        let unsure = v128_not(sure);
        doubtful = v128_or(doubtful, unsure);
        store(at, k, v128_or(bin, unsure));
    }
    (n, v128_any_true(doubtful))
}

/// `FineBins::indices` for the longest prefix of whole fours: (values done, every |e| ≤ r32,
/// any doubtful). A tiny negative lane is all ones, which is `DOUBTFUL`.
#[inline(always)]
pub(super) fn fine_indices(
    bins: &FineBins,
    a: &[f32],
    b: &[f32],
    r32: f32,
    at: &mut [u32],
) -> (usize, bool, bool) {
    let n = a.len().min(b.len()).min(at.len()) / 4 * 4;
    let (scale, r, zero, tiny) = (
        f32x4_splat(bins.scale),
        f32x4_splat(r32),
        f32x4_splat(0.0),
        f32x4_splat(FINE_TINY),
    );
    let (half, last) = (f32x4_splat(FINE_HALF), f32x4_splat(FINE_LAST));
    let (mut inside, mut doubtful) = (i32x4_splat(-1), i32x4_splat(0));
    for k in (0..n).step_by(4) {
        let e = f32x4_sub(load(b, k), load(a, k));
        // `le` is false for NaN, so NaN is not inside.
        inside = v128_and(inside, f32x4_le(f32x4_abs(e), r));
        let q = f32x4_mul(e, scale);
        let tiny_negative = v128_and(f32x4_lt(e, zero), f32x4_lt(f32x4_abs(q), tiny));
        let bin = f32x4_pmin(f32x4_pmax(f32x4_add(f32x4_floor(q), half), zero), last);
        doubtful = v128_or(doubtful, tiny_negative);
        // A NaN bin converts to nothing meaningful: its e is not inside, so `at` is not used.
        store(at, k, v128_or(small_integers(bin), tiny_negative));
    }
    (n, i32x4_all_true(inside), v128_any_true(doubtful))
}
