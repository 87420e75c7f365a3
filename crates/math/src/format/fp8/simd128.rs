//! [`super::Fp8Codec::encode_divided`] in simd128 lanes: LLVM keeps the encoder's two branches
//! (subnormal or normal, and NaN) scalar in wasm, at about 1.9 GB/s for the FP8 schemes.

use super::Fp8Codec;
use crate::lanes::{load_f32x4, small_integers};
use core::arch::wasm32::*;

/// Writes the patterns of `x[i] / divisor` to `out[i]` for the first multiple of 16 values
/// (`out` at least as long as `x`) and returns how many.
///
/// Each lane computes what [`Fp8Codec::encode_saturating`] computes on the same bits: the
/// subnormal count `nearest(|v| · to_steps)` (ties to even, as `round_ties_even`; `to_steps` is
/// a power of two, so the product is exact) and the normal pattern from the mantissa bits, each
/// in wrapping u32 arithmetic, then selects the one for its exponent, saturates at `max_bits`,
/// puts the sign back and replaces NaN by the codec's NaN pattern. The patterns (at most 255)
/// narrow to bytes without saturating.
pub(super) fn encode_divided(c: &Fp8Codec, x: &[f32], divisor: f32, out: &mut [u8]) -> usize {
    let n = x.len() / 16 * 16;
    let divisor = f32x4_splat(divisor);
    let drop = 23 - c.man_bits;
    let rebias = (c.min_normal_field - 1) << 23;
    // abs − rebias + 2^(drop−1) − 1, as one wrapping addend.
    let addend = u32x4_splat(((1u32 << (drop - 1)) - 1).wrapping_sub(rebias));
    let (to_steps, min_field) = (f32x4_splat(c.to_steps), u32x4_splat(c.min_normal_field));
    let (max_bits, nan_bits) = (u32x4_splat(c.max_bits), u32x4_splat(c.nan_bits as u32));
    let (magnitude_bits, inf_bits, one) = (
        u32x4_splat(0x7FFF_FFFF),
        u32x4_splat(0x7F80_0000),
        u32x4_splat(1),
    );
    let pattern = |v: &[f32]| -> v128 {
        let v = f32x4_div(load_f32x4(v), divisor);
        let abs = v128_and(v, magnitude_bits);
        // Whole and at most 2^man_bits in the lanes that take it (others are not selected).
        let subnormal = small_integers(f32x4_nearest(f32x4_mul(abs, to_steps)));
        let odd = v128_and(u32x4_shr(abs, drop), one);
        let normal = u32x4_shr(i32x4_add(i32x4_add(abs, addend), odd), drop);
        let is_subnormal = u32x4_lt(u32x4_shr(abs, 23), min_field);
        let magnitude = u32x4_min(v128_bitselect(subnormal, normal, is_subnormal), max_bits);
        let signed = v128_or(u32x4_shl(u32x4_shr(v, 31), c.sign_bit), magnitude);
        v128_bitselect(nan_bits, signed, u32x4_gt(abs, inf_bits))
    };
    for (x, o) in x[..n].chunks_exact(16).zip(out.chunks_exact_mut(16)) {
        let low = i16x8_narrow_i32x4(pattern(&x[..4]), pattern(&x[4..8]));
        let high = i16x8_narrow_i32x4(pattern(&x[8..12]), pattern(&x[12..]));
        let bytes = u8x16_narrow_i16x8(low, high);
        // SAFETY: `o` is 16 bytes, and a v128 store has no alignment requirement.
        unsafe { v128_store(o.as_mut_ptr().cast(), bytes) };
    }
    n
}
