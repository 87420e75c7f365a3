//! Asymmetric (min-max, zero-point) quantization to `bits`-bit unsigned codes (UINT8, 4-bit).
//!
//! The range is widened to include 0 (as PyTorch's MinMaxObserver does) so that 0 is exact and a
//! constant block is representable: scale = (max − min) / (2^bits − 1), zero point
//! z = round(−min / scale) clamped to the code range, q = clamp(round(x / scale) + z), dequantized
//! (q − z) × scale. Rounding is half away from zero. A zero block has scale 0 and codes 0.

/// One block's parameters and codes.
#[derive(Clone, Debug, PartialEq)]
pub struct ZeroPointBlock {
    /// Step between codes.
    pub scale: f32,
    /// The code that represents 0.
    pub zero_point: u8,
    /// Codes in [0, 2^bits − 1].
    pub codes: Vec<u8>,
}

/// Quantizes one block to `bits` (1..=8) bits.
pub fn quantize(x: &[f32], bits: u32) -> ZeroPointBlock {
    let mut codes = vec![0; x.len()];
    let (scale, zero_point) = quantize_into(x, bits, &mut codes);
    ZeroPointBlock {
        scale,
        zero_point,
        codes,
    }
}

/// [`quantize`] into `codes` (as long as `x`): returns the scale and zero point. The same codes
/// as rounding `x / scale` half away from zero, adding the zero point and clamping, computed
/// without a call to `roundf` or `fminf` (which WebAssembly makes for `f32::round` and `f32::min`).
pub fn quantize_into(x: &[f32], bits: u32, codes: &mut [u8]) -> (f32, u8) {
    let top = ((1u32 << bits) - 1) as f32;
    let (lo, hi) = range_with_zero(x);
    let scale = (hi - lo) / top;
    if scale == 0.0 || !scale.is_finite() {
        codes.fill(0);
        return (0.0, 0);
    }
    let zero_point = round_half_away(-lo / scale).clamp(0.0, top);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = simd128::codes(x, scale, zero_point, top, codes);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (c, v) in codes.iter_mut().zip(x).skip(done) {
        *c = code(*v, scale, zero_point, top);
    }
    (scale, zero_point as u8)
}

/// The code of `v`: round(v / scale) + zero point, clamped to [0, top]; NaN's is the zero point
/// (its quotient is taken as 0). Selects only, no branch.
#[inline(always)]
fn code(v: f32, scale: f32, zero_point: f32, top: f32) -> u8 {
    // Beyond ±512 every code clamps to an end whatever the zero point (at most 255), so
    // clamping first keeps the rounding within the exact range of the magic constant.
    let q = if v.is_nan() {
        0.0
    } else {
        (v / scale).clamp(-512.0, 512.0)
    };
    let code = (round_half_away(q) + zero_point).clamp(0.0, top);
    // SAFETY: `code` is an integer in [0, top] (top ≤ 255): finite, and it fits an i32.
    unsafe { code.to_int_unchecked::<i32>() as u8 }
}

/// (min(0, min x), max(0, max x)) over the non-NaN values, from eight lanes of selects (not
/// `f32::min`/`max`, which wasm makes calls). NaN never passes a comparison, so it is skipped.
/// The order does not change the result: the running values start at +0, which a −0 never
/// replaces (−0 < +0 is false), so no zero's sign depends on the order.
#[inline]
fn range_with_zero(x: &[f32]) -> (f32, f32) {
    let (mut lo, mut hi) = ([0f32; 8], [0f32; 8]);
    let eights = x.chunks_exact(8);
    let tail = eights.remainder();
    for eight in eights {
        for k in 0..8 {
            let v = eight[k];
            lo[k] = if v < lo[k] { v } else { lo[k] };
            hi[k] = if v > hi[k] { v } else { hi[k] };
        }
    }
    lo.iter()
        .zip(&hi)
        .map(|(l, h)| (*l, *h))
        .chain(tail.iter().map(|v| (*v, *v)))
        .fold((0f32, 0f32), |(lo, hi), (l, h)| {
            (if l < lo { l } else { lo }, if h > hi { h } else { hi })
        })
}

/// 1.5 · 2^23: adding and subtracting it rounds an f32 below 2^22 to an integer, ties to even.
const MAGIC: f32 = 12_582_912.0;

/// `y` rounded to the nearest integer, halves away from zero (C `roundf`), for |y| < 2^22:
/// adding and subtracting [`MAGIC`] rounds to nearest even, and exact halves then move away from
/// zero.
#[inline]
fn round_half_away(y: f32) -> f32 {
    let even = (y + MAGIC) - MAGIC;
    if (y - even).abs() == 0.5 {
        y + 0.5f32.copysign(y)
    } else {
        even
    }
}

/// [`code`] sixteen values at a time in simd128 lanes (LLVM leaves that loop scalar in wasm).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::MAGIC;
    use crate::lanes::load_f32x4;
    use core::arch::wasm32::*;

    /// The codes of the longest prefix of `x` that is a multiple of 16; returns its length.
    ///
    /// Lane by lane as [`super::code`]: a NaN lane's quotient becomes 0 (`eq(v, v)` is false for
    /// NaN only); `pmax(lo, y)` is `lo < y ? y : lo` and `pmin(hi, y)` is `y < hi ? y : hi`,
    /// `clamp`'s comparisons for non-NaN y; the rounding is `round_half_away`'s, with the tie
    /// test as a mask; the clamped code is an integer in [0, 255], which truncation and the
    /// narrowings keep.
    pub(super) fn codes(
        x: &[f32],
        scale: f32,
        zero_point: f32,
        top: f32,
        codes: &mut [u8],
    ) -> usize {
        let n = x.len().min(codes.len()) / 16 * 16;
        let (scale, zero_point, top) = (
            f32x4_splat(scale),
            f32x4_splat(zero_point),
            f32x4_splat(top),
        );
        let (lo, hi, zero) = (f32x4_splat(-512.0), f32x4_splat(512.0), f32x4_splat(0.0));
        let (magic, half, sign) = (
            f32x4_splat(MAGIC),
            f32x4_splat(0.5),
            u32x4_splat(0x8000_0000),
        );
        let code = |v: v128| {
            let y = f32x4_pmin(hi, f32x4_pmax(lo, f32x4_div(v, scale)));
            let q = v128_and(y, f32x4_eq(v, v));
            let even = f32x4_sub(f32x4_add(q, magic), magic);
            let tie = f32x4_eq(f32x4_abs(f32x4_sub(q, even)), half);
            let away = f32x4_add(q, v128_or(half, v128_and(q, sign)));
            let rounded = v128_bitselect(away, even, tie);
            let c = f32x4_pmin(top, f32x4_pmax(zero, f32x4_add(rounded, zero_point)));
            crate::lanes::small_integers(f32x4_trunc(c))
        };
        for (xs, cs) in x[..n].chunks_exact(16).zip(codes[..n].chunks_exact_mut(16)) {
            let four = |k: usize| code(load_f32x4(&xs[k..k + 4]));
            let bytes = u8x16_narrow_i16x8(
                i16x8_narrow_i32x4(four(0), four(4)),
                i16x8_narrow_i32x4(four(8), four(12)),
            );
            // SAFETY: `cs` is 16 writable bytes; `v128_store` has no alignment requirement.
            unsafe { v128_store(cs.as_mut_ptr().cast(), bytes) };
        }
        n
    }
}

/// Dequantizes one block's codes into `out`: (code − `zero_point`) × `scale` in f32 (the
/// difference is exact; the multiply rounds to nearest even).
pub fn dequantize_codes(scale: f32, zero_point: u8, codes: &[u8], out: &mut [f32]) {
    for (o, q) in out.iter_mut().zip(codes) {
        *o = (*q as f32 - zero_point as f32) * scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_exact_and_errors_stay_within_a_step() {
        let x = [-0.3f32, 0.0, 0.9, 0.45, -0.1];
        for bits in [4, 8] {
            let b = quantize(&x, bits);
            let mut y = [0f32; 5];
            dequantize_codes(b.scale, b.zero_point, &b.codes, &mut y);
            assert_eq!(y[1], 0.0);
            for (a, z) in x.iter().zip(&y) {
                assert!((a - z).abs() <= b.scale * 0.5 + 1e-6, "{bits}: {a} {z}");
            }
        }
    }

    #[test]
    fn constant_and_zero_blocks() {
        let b = quantize(&[0.75; 3], 8);
        let mut y = [0f32; 3];
        dequantize_codes(b.scale, b.zero_point, &b.codes, &mut y);
        assert_eq!(y, [0.75; 3]);
        assert_eq!(
            quantize(&[0.0; 2], 4),
            ZeroPointBlock {
                scale: 0.0,
                zero_point: 0,
                codes: vec![0, 0]
            }
        );
    }
}
