//! The simd128 forms of [`super::fast`]'s block loops, for wasm32 builds with simd128 on, where
//! LLVM leaves these loops scalar (a lane mask, horizontal minima, narrowing and nibble packing
//! have no scalar pattern it recognises). Each gives exactly the value of the portable loop it
//! replaces; the comments say why. `tests/ggml_fast_parity.rs` runs in the browser against the
//! scalar reference, and `scripts/bench_ggml_wasm.mjs` times them against llama.cpp's C in wasm.

use super::QK;
use crate::lanes::{load_f32x4, small_integers};
use core::arch::wasm32::*;

/// One block of weights.
type Block = [f32; QK];

/// Values `4i..4i + 4` of the block as one vector.
#[inline(always)]
fn four(x: &Block, i: usize) -> v128 {
    load_f32x4(&x[4 * i..4 * i + 4])
}

/// Bit j set when |x[j]| = `m`: four compares at a time and their lane mask.
#[inline(always)]
pub(super) fn magnitude_mask(x: &Block, m: f32) -> u32 {
    let m = f32x4_splat(m);
    (0..QK / 4).fold(0u32, |at, i| {
        at | u32::from(i32x4_bitmask(f32x4_eq(f32x4_abs(four(x, i)), m))) << (4 * i)
    })
}

/// The block's minimum and maximum over eight lanes of `pmin`/`pmax` (`b < a ? b : a`: a NaN
/// value never replaces the running lane, which starts at ±∞, so no lane is NaN), then halved
/// twice by shuffles. Min and max do not depend on the order of the comparisons except for the
/// sign of a zero result, which the caller settles in order.
#[inline(always)]
pub(super) fn min_max(x: &Block) -> (f32, f32) {
    let (mut l0, mut l1) = (f32x4_splat(f32::INFINITY), f32x4_splat(f32::INFINITY));
    let (mut h0, mut h1) = (
        f32x4_splat(f32::NEG_INFINITY),
        f32x4_splat(f32::NEG_INFINITY),
    );
    for i in (0..QK / 4).step_by(2) {
        let (a, b) = (four(x, i), four(x, i + 1));
        (l0, l1) = (f32x4_pmin(l0, a), f32x4_pmin(l1, b));
        (h0, h1) = (f32x4_pmax(h0, a), f32x4_pmax(h1, b));
    }
    let (l, h) = (f32x4_pmin(l0, l1), f32x4_pmax(h0, h1));
    let (l, h) = (
        f32x4_pmin(l, i32x4_shuffle::<2, 3, 0, 1>(l, l)),
        f32x4_pmax(h, i32x4_shuffle::<2, 3, 0, 1>(h, h)),
    );
    (
        f32x4_extract_lane::<0>(f32x4_pmin(l, i32x4_shuffle::<1, 0, 3, 2>(l, l))),
        f32x4_extract_lane::<0>(f32x4_pmax(h, i32x4_shuffle::<1, 0, 3, 2>(h, h))),
    )
}

/// The block's codes trunc(clamp(f(x), 0, `top`)) (NaN: 0), stored as [`super::fast`]'s
/// `store_codes` does: for 5-bit formats (`out` 20 bytes) the fifth bits first, then 16 bytes of
/// nibbles, code j low and code j + 16 high.
///
/// `pmax(0, y)` is `0 < y ? y : 0` and `pmin(top, y)` is `y < top ? y : top`, the portable loop's
/// selects (NaN becomes 0); the clamped value is finite and at most 31, so its truncation
/// converts with `small_integers` and the narrowings keep it. Bit 4 of a code, shifted to bit 7, is
/// what the byte mask reads.
#[inline(always)]
pub(super) fn store_codes(x: &Block, top: f32, f: impl Fn(v128) -> v128, out: &mut [u8]) {
    let (zero, top) = (f32x4_splat(0.0), f32x4_splat(top));
    let code = |i: usize| {
        small_integers(f32x4_trunc(f32x4_pmin(
            top,
            f32x4_pmax(zero, f(four(x, i))),
        )))
    };
    let sixteen = |i: usize| {
        u8x16_narrow_i16x8(
            i16x8_narrow_i32x4(code(i), code(i + 1)),
            i16x8_narrow_i32x4(code(i + 2), code(i + 3)),
        )
    };
    let (low, high) = (sixteen(0), sixteen(4));
    let nibbles = if out.len() > QK / 2 {
        let fifth = |q: v128| u32::from(i8x16_bitmask(i8x16_shl(q, 3)));
        out[..4].copy_from_slice(&(fifth(low) | fifth(high) << 16).to_le_bytes());
        &mut out[4..]
    } else {
        out
    };
    let mask = u8x16_splat(0x0F);
    let packed = v128_or(v128_and(low, mask), i8x16_shl(v128_and(high, mask), 4));
    let nibbles: &mut [u8; QK / 2] = nibbles.try_into().expect("16 bytes of nibbles");
    // SAFETY: `nibbles` is 16 bytes; `v128_store` has no alignment requirement.
    unsafe { v128_store(nibbles.as_mut_ptr().cast(), packed) };
}
