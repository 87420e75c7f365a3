//! The GGML 4- and 5-bit and MXFP4 block quantizers as branch-free loops over a block's 32
//! values, which LLVM turns into SIMD (SSE2 natively, simd128 in wasm builds that enable it).
//! Each writes exactly the bytes of [`super::scalar::quantize_block_scalar`]; the comments say
//! why each rewrite keeps them.

use super::scalar::{min_max as min_max_in_order, signed_absmax as signed_absmax_in_order};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use super::simd128;
use super::{e8m0_to_f32_half, inverse, KVALUES_MXFP4, QK};
use crate::format::half::f32_to_f16_bits as f16_bits;
use crate::quant::kernels::absmax;

/// One block of weights.
type Block = [f32; QK];

/// Q4_0: signed scale d = max / −8, codes trunc(x/d + 8.5) in 0..=15, split nibbles.
#[inline]
pub fn q4_0(x: &Block, out: &mut [u8]) {
    signed_scale(x, out, -8.0, 8.5, 15.0);
}

/// Q5_0: signed scale d = max / −16, codes trunc(x/d + 16.5) in 0..=31; fifth bits, then nibbles.
#[inline]
pub fn q5_0(x: &Block, out: &mut [u8]) {
    signed_scale(x, out, -16.0, 16.5, 31.0);
}

/// Q4_1: d = (max − min) / 15 and min, codes trunc((x − min)/d + 0.5) in 0..=15.
#[inline]
pub fn q4_1(x: &Block, out: &mut [u8]) {
    scale_and_min(x, out, 15.0);
}

/// Q5_1: d = (max − min) / 31 and min, codes trunc((x − min)/d + 0.5) in 0..=31.
#[inline]
pub fn q5_1(x: &Block, out: &mut [u8]) {
    scale_and_min(x, out, 31.0);
}

/// MXFP4: the E8M0 exponent of the block's absmax, then for each value the nearest E2M1 code.
///
/// The scalar path finds the nearest of the 16 signed values (llama.cpp's scan, first index on
/// ties). Here every value compares its |x| with the 8 magnitudes k·d in ascending order, keeping
/// the first smallest error: the error of −k·d against a negative x is that of k·d against |x|
/// (negation is exact), a positive code is never nearer to a negative x than code 0 (its error is
/// k·d + |x| ≥ |x|), and ties keep the smaller magnitude, which is the first index, as the scan
/// does. A NaN or infinite x has no error smaller than the first and gets code 0, as in the scan.
#[inline]
pub fn mxfp4(x: &Block, out: &mut [u8]) {
    let amax = absmax(x);
    let e = if amax > 0.0 {
        (floor_log2(amax) - 2.0 + 127.0) as u8
    } else {
        0
    };
    let d = e8m0_to_f32_half(e);
    let magnitudes: [f32; 8] = std::array::from_fn(|i| d * KVALUES_MXFP4[i] as f32);
    let mut q = [0u8; QK];
    for (c, v) in q.iter_mut().zip(x) {
        let a = v.abs();
        let (mut best, mut best_err) = (0u32, (magnitudes[0] - a).abs());
        for (i, m) in magnitudes.iter().enumerate().skip(1) {
            let err = (m - a).abs();
            if err < best_err {
                (best, best_err) = (i as u32, err);
            }
        }
        let negative = (*v < 0.0 && best != 0) as u32;
        *c = (best + 8 * negative) as u8;
    }
    out[0] = e;
    pack_nibbles(&q, &mut out[1..17]);
}

/// `a.log2().floor()` for a > 0 (llama.cpp's `floorf(log2f(amax))`), from the exponent bits where
/// that is certain, else by the call (which wasm makes to libm's `log2f`, a quarter of MXFP4's
/// time). For a normal a whose significand is at least 256 ulps below the next power of two,
/// log2(a) lies in [e, e + 1 − 2.2·10⁻⁵] (e its unbiased exponent): e itself is exact, and a log2f
/// within one ulp (at most 1.5·10⁻⁵ for |e| ≤ 128) neither falls below e nor reaches e + 1.
/// Subnormals, infinity and significands just under the next power of two take the call.
#[inline(always)]
fn floor_log2(a: f32) -> f32 {
    let (field, significand) = (a.to_bits() >> 23, a.to_bits() & 0x7F_FFFF);
    if field != 0 && field != 0xFF && significand < 0x7F_FF00 {
        (field as i32 - 127) as f32
    } else {
        a.log2().floor()
    }
}

/// Q4_0's and Q5_0's block: the scale (the first largest-magnitude value over `levels`), then
/// the codes.
#[inline(always)]
fn signed_scale(x: &Block, out: &mut [u8], levels: f32, offset: f32, top: f32) {
    let d = signed_absmax(x) / levels;
    let id = inverse(d);
    out[..2].copy_from_slice(&f16_bits(d).to_le_bytes());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::{f32x4_add, f32x4_mul, f32x4_splat};
        let (id, offset) = (f32x4_splat(id), f32x4_splat(offset));
        let f = |v| f32x4_add(f32x4_mul(v, id), offset);
        simd128::store_codes(x, top, f, &mut out[2..]);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    store_codes(&truncated_codes(x, top, |v| v * id + offset), &mut out[2..]);
}

/// Q4_1's and Q5_1's block: the scale and the minimum, then the codes.
#[inline(always)]
fn scale_and_min(x: &Block, out: &mut [u8], top: f32) {
    let (min, max) = min_max(x);
    let d = (max - min) / top;
    let id = inverse(d);
    out[..2].copy_from_slice(&f16_bits(d).to_le_bytes());
    out[2..4].copy_from_slice(&f16_bits(min).to_le_bytes());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::{f32x4_add, f32x4_mul, f32x4_splat, f32x4_sub};
        let (min, id, half) = (f32x4_splat(min), f32x4_splat(id), f32x4_splat(0.5));
        let f = |v| f32x4_add(f32x4_mul(f32x4_sub(v, min), id), half);
        simd128::store_codes(x, top, f, &mut out[4..]);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    store_codes(
        &truncated_codes(x, top, |v| (v - min) * id + 0.5),
        &mut out[4..],
    );
}

/// The codes after the scales: 16 bytes of nibbles, preceded for 5-bit formats (whose `out` is
/// 20 bytes long) by the 4 bytes of fifth bits.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn store_codes(q: &[u8; QK], out: &mut [u8]) {
    if out.len() > QK / 2 {
        out[..4].copy_from_slice(&fifth_bits(q).to_le_bytes());
        pack_nibbles(q, &mut out[4..]);
    } else {
        pack_nibbles(q, out);
    }
}

/// The value with the largest magnitude, the first on ties (0 when every value is 0 or NaN):
/// the exact absmax from eight lanes, then the first value of that magnitude, from a bit mask of
/// the values that have it (compares and a mask move, no branch per value).
#[inline(always)]
fn signed_absmax(x: &Block) -> f32 {
    let amax = absmax(x);
    if amax > 0.0 {
        x[magnitude_mask(x, amax).trailing_zeros() as usize % QK]
    } else {
        signed_absmax_in_order(x)
    }
}

/// Bit j set when |x[j]| = `m` (see [`simd128::magnitude_mask`]).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn magnitude_mask(x: &Block, m: f32) -> u32 {
    simd128::magnitude_mask(x, m)
}

/// Bit j set when |x[j]| = `m`: SSE2's compares four at a time and their sign mask (LLVM keeps
/// the portable loop scalar: 32 compares, shifts and ors per block).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn magnitude_mask(x: &Block, m: f32) -> u32 {
    use std::arch::x86_64::{
        _mm_andnot_ps, _mm_cmpeq_ps, _mm_loadu_ps, _mm_movemask_ps, _mm_set1_ps,
    };
    // SAFETY: SSE2 is part of x86-64; each load reads 4 of the block's 32 floats (no alignment
    // needed).
    unsafe {
        let (m, sign) = (_mm_set1_ps(m), _mm_set1_ps(-0.0));
        x.chunks_exact(4).enumerate().fold(0u32, |at, (i, four)| {
            let abs = _mm_andnot_ps(sign, _mm_loadu_ps(four.as_ptr()));
            at | (_mm_movemask_ps(_mm_cmpeq_ps(abs, m)) as u32) << (4 * i)
        })
    }
}

/// Bit j set when |x[j]| = `m` (compares and ors, no branch per value).
#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
fn magnitude_mask(x: &Block, m: f32) -> u32 {
    let mut at = 0u32;
    for (j, v) in x.iter().enumerate() {
        at |= ((v.abs() == m) as u32) << j;
    }
    at
}

/// The block's minimum and maximum (NaN never selected, as `f32::min` skips it). Min and max of
/// a set do not depend on the order, except for the sign of a zero result (−0 and +0 compare
/// equal), so a zero minimum or maximum takes the in-order fold.
#[inline(always)]
fn min_max(x: &Block) -> (f32, f32) {
    let (lo, hi) = unordered_min_max(x);
    if lo == 0.0 || hi == 0.0 {
        return min_max_in_order(x);
    }
    (lo, hi)
}

/// Minimum and maximum in simd128 lanes (see [`simd128::min_max`]).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn unordered_min_max(x: &Block) -> (f32, f32) {
    simd128::min_max(x)
}

/// Minimum and maximum from lanes of compare-and-select, folded.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn unordered_min_max(x: &Block) -> (f32, f32) {
    let (lo, hi) = lanes_min_max(x);
    let lo = lo
        .into_iter()
        .fold(f32::INFINITY, |a, b| if b < a { b } else { a });
    let hi = hi
        .into_iter()
        .fold(f32::NEG_INFINITY, |a, b| if b > a { b } else { a });
    (lo, hi)
}

/// Four lanes of minima and maxima with SSE2's `minps`/`maxps`, which return their second
/// operand (the running lane) when the first is NaN.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes_min_max(x: &Block) -> ([f32; 4], [f32; 4]) {
    use std::arch::x86_64::{_mm_loadu_ps, _mm_max_ps, _mm_min_ps, _mm_set1_ps, _mm_storeu_ps};
    let (mut lo, mut hi) = ([0f32; 4], [0f32; 4]);
    // SAFETY: SSE2 is part of x86-64; each load reads 4 of the block's 32 floats (no alignment
    // needed), and the stores write 4 floats into 4-float arrays.
    unsafe {
        let (mut l, mut h) = (_mm_set1_ps(f32::INFINITY), _mm_set1_ps(f32::NEG_INFINITY));
        for four in x.chunks_exact(4) {
            let v = _mm_loadu_ps(four.as_ptr());
            l = _mm_min_ps(v, l);
            h = _mm_max_ps(v, h);
        }
        _mm_storeu_ps(lo.as_mut_ptr(), l);
        _mm_storeu_ps(hi.as_mut_ptr(), h);
    }
    (lo, hi)
}

/// Eight lanes of compare-and-select, which LLVM vectorizes where it can.
#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
fn lanes_min_max(x: &Block) -> ([f32; 8], [f32; 8]) {
    let mut lo = [f32::INFINITY; 8];
    let mut hi = [f32::NEG_INFINITY; 8];
    for c in x.chunks_exact(8) {
        for k in 0..8 {
            lo[k] = if c[k] < lo[k] { c[k] } else { lo[k] };
            hi[k] = if c[k] > hi[k] { c[k] } else { hi[k] };
        }
    }
    (lo, hi)
}

/// trunc(f(x)) clamped to 0..=`top` for every x (NaN: 0), as the scalar path's
/// `trunc().max(0.0) as u32` then `.min(top)`: clamping to [0, top] before truncating gives the
/// same integer, since `top` is an integer, and leaves a value an `i32` holds.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn truncated_codes(x: &Block, top: f32, f: impl Fn(f32) -> f32) -> [u8; QK] {
    let mut q = [0u8; QK];
    for (c, v) in q.iter_mut().zip(x) {
        let y = f(*v);
        // `>` is false for NaN, so NaN becomes 0 here.
        let y = if y > 0.0 { y } else { 0.0 };
        let y = if y < top { y } else { top };
        // SAFETY: y is in [0, top] with top ≤ 31, so it is finite and fits an i32.
        *c = unsafe { y.to_int_unchecked::<i32>() } as u8;
    }
    q
}

/// Bytes j = code j in the low nibble and code j + 16 in the high nibble (llama.cpp's layout).
#[inline(always)]
fn pack_nibbles(q: &[u8; QK], out: &mut [u8]) {
    for (j, o) in out[..QK / 2].iter_mut().enumerate() {
        *o = (q[j] & 0x0F) | ((q[j + QK / 2] & 0x0F) << 4);
    }
}

/// Bit j = bit 4 of code j (the `qh` word of Q5_0 and Q5_1): eight codes at a time, each
/// byte's bit 4 moved to bit 0 and the eight bits gathered into one byte by a multiplication
/// (0x0102040810204080 shifts byte k's bit to bit 56 + k, and no partial products collide).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn fifth_bits(q: &[u8; QK]) -> u32 {
    let mut bits = 0u32;
    for (i, eight) in q.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
        let ones = (w >> 4) & 0x0101_0101_0101_0101;
        let byte = (ones.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
        bits |= byte << (8 * i);
    }
    bits
}
