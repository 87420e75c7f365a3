//! The inner loops that the INT8 quantizers spend their time in: a block's absmax and its codes.
//!
//! Each loop has a scalar reference (what the native tests check byte for byte against llama.cpp)
//! and, in WebAssembly builds with `simd128`, an explicit SIMD path that `tests/math/simd_parity.rs`
//! checks against that reference in the browser. Natively the scalar loops are written so that
//! LLVM vectorizes them.

/// 0.5 − 2^-25, the largest f32 below ½ (the SIMD rounding's nudge).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
const NUDGE: f32 = 0.499_999_97;

/// `y` clamped to ±127 and rounded half away from zero (C `roundf`), as a two's complement byte;
/// NaN gives 0. Branch-free so loops over it vectorize (SSE2 has no float rounding instruction,
/// and Rust's saturating `as i32` costs extra compares): adding and subtracting 1.5·2^23 rounds to
/// nearest-even, exact halves are then pushed away from zero, and the low byte of
/// (r + 1.5·2^23)'s bits is r mod 256.
#[inline]
pub fn code_i8(y: f32) -> u8 {
    const MAGIC: f32 = 12_582_912.0;
    let y = y.clamp(-127.0, 127.0);
    let even = (y + MAGIC) - MAGIC;
    let r = if (y - even).abs() == 0.5 {
        y + 0.5f32.copysign(y)
    } else {
        even
    };
    if y.is_nan() {
        0
    } else {
        (r + MAGIC).to_bits() as u8
    }
}

/// `code_i8(x[i] / divisor)` for every i (the absmax INT8 inner loop;
/// `out` at least as long as `x`).
#[inline]
pub fn divided_codes(x: &[f32], divisor: f32, out: &mut [u8]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = {
        use core::arch::wasm32::{f32x4_div, f32x4_splat};
        let d = f32x4_splat(divisor);
        simd::codes(x, out, |v| f32x4_div(v, d))
    };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    divided_codes_scalar(&x[done..], divisor, &mut out[done..]);
}

/// The scalar reference of [`divided_codes`].
pub fn divided_codes_scalar(x: &[f32], divisor: f32, out: &mut [u8]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o = code_i8(v / divisor);
    }
}

/// `code_i8(x[i] × scale)` for every i (the Q8_0 inner loop; `out` at
/// least as long as `x`). llama.cpp does not clamp, but with scale = 1 / (absmax / 127) no product
/// exceeds 127 by more than rounding, so the clamp never changes a Q8_0 byte; it makes the code
/// well defined for any scale.
#[inline]
pub fn scaled_codes(x: &[f32], scale: f32, out: &mut [u8]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = {
        use core::arch::wasm32::{f32x4_mul, f32x4_splat};
        let s = f32x4_splat(scale);
        simd::codes(x, out, |v| f32x4_mul(v, s))
    };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    scaled_codes_scalar(&x[done..], scale, &mut out[done..]);
}

/// The scalar reference of [`scaled_codes`].
pub fn scaled_codes_scalar(x: &[f32], scale: f32, out: &mut [u8]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o = code_i8(v * scale);
    }
}

/// Largest |x| of a slice; NaN is skipped, an empty slice gives 0.
#[inline]
pub fn absmax(x: &[f32]) -> f32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::absmax(x);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    absmax_scalar(x)
}

/// The scalar reference of [`absmax`]. Eight independent running maxima (one per lane) break the
/// dependency chain, so LLVM turns the loop into packed max instructions; max is exact, so the
/// order does not change the result.
pub fn absmax_scalar(x: &[f32]) -> f32 {
    let keep_larger = |m: f32, v: f32| {
        let a = v.abs();
        if a > m {
            a
        } else {
            m
        }
    };
    let mut lanes = [0f32; 8];
    let blocks = x.chunks_exact(8);
    let tail = blocks
        .remainder()
        .iter()
        .fold(0f32, |m, v| keep_larger(m, *v));
    for block in blocks {
        for (m, v) in lanes.iter_mut().zip(block) {
            *m = keep_larger(*m, *v);
        }
    }
    lanes.into_iter().fold(tail, keep_larger)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use crate::lanes::load_f32x4 as load;
    use core::arch::wasm32::*;

    /// Codes for the longest prefix of `x` that is a multiple of 16, sixteen at a time; returns
    /// its length (the caller finishes the rest with the scalar loop).
    ///
    /// Rounding: clamp to ±127 (`pmin`/`pmax` keep NaN, as `f32::clamp` does), add
    /// copysign(0.5 − 2^-25, y) and truncate (`trunc_sat` maps NaN to 0; here it measured faster
    /// than a truncation, a NaN mask and [`crate::lanes::small_integers`]). For |y| ≤ 127 that is
    /// exactly `code_i8`'s round half away from zero: a value just under k + ½ stays under k + 1
    /// after the addition, an exact k + ½ becomes k + 1 − 2^-25, which rounds (ties to even) up
    /// to k + 1. Fewer steps than the magic-number rounding, now that there is a truncation
    /// instruction.
    #[inline(always)]
    pub fn codes(x: &[f32], out: &mut [u8], transform: impl Fn(v128) -> v128) -> usize {
        let (lo, hi) = (f32x4_splat(-127.0), f32x4_splat(127.0));
        let nudge = f32x4_splat(super::NUDGE);
        let sign = u32x4_splat(0x8000_0000);
        let code = |v: v128| {
            let y = f32x4_pmax(f32x4_pmin(transform(v), hi), lo);
            i32x4_trunc_sat_f32x4(f32x4_add(y, v128_or(v128_and(y, sign), nudge)))
        };
        let n = x.len().min(out.len()) / 16 * 16;
        for (xs, os) in x[..n].chunks_exact(16).zip(out[..n].chunks_exact_mut(16)) {
            let a = i16x8_narrow_i32x4(code(load(&xs[0..4])), code(load(&xs[4..8])));
            let b = i16x8_narrow_i32x4(code(load(&xs[8..12])), code(load(&xs[12..16])));
            let bytes = i8x16_narrow_i16x8(a, b);
            // SAFETY: `os` is 16 bytes long; `v128_store` has no alignment requirement.
            unsafe { v128_store(os.as_mut_ptr().cast(), bytes) };
        }
        n
    }

    /// Largest |x| with four lanes of `pmax` (a NaN lane loses the comparison and is skipped, as
    /// in the scalar loop), then the scalar loop for the tail.
    #[inline(always)]
    pub fn absmax(x: &[f32]) -> f32 {
        let n = x.len() / 8 * 8;
        let (mut m0, mut m1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for xs in x[..n].chunks_exact(8) {
            m0 = f32x4_pmax(m0, f32x4_abs(load(&xs[0..4])));
            m1 = f32x4_pmax(m1, f32x4_abs(load(&xs[4..8])));
        }
        // The lanes' largest by two shuffles (max is exact, so any order gives it; no lane is
        // NaN, since `pmax` keeps the running value against NaN).
        let m = f32x4_pmax(m0, m1);
        let m = f32x4_pmax(m, i32x4_shuffle::<2, 3, 0, 1>(m, m));
        let m = f32x4_extract_lane::<0>(f32x4_pmax(m, i32x4_shuffle::<1, 0, 3, 2>(m, m)));
        if n == x.len() {
            return m;
        }
        super::absmax_scalar(&[m, super::absmax_scalar(&x[n..])])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C `roundf` then a cast to `int8_t`, for |y| ≤ 127.
    fn roundf_byte(y: f32) -> u8 {
        y.round() as i8 as u8
    }

    #[test]
    fn code_i8_is_roundf_on_every_tie_and_its_neighbours() {
        for k in -127..127 {
            for base in [k as f32, k as f32 + 0.5] {
                for v in [
                    base,
                    f32::from_bits(base.to_bits() + 1),
                    f32::from_bits(base.to_bits().saturating_sub(1)),
                ] {
                    assert_eq!(code_i8(v), roundf_byte(v), "{v}");
                }
            }
        }
        for v in [0.499_999_97f32, -0.499_999_97, 0.0, -0.0, 1e-45, -1e-45] {
            assert_eq!(code_i8(v), 0, "{v}");
        }
    }

    #[test]
    fn code_i8_is_roundf_on_random_values_and_clamps_the_rest() {
        let mut s = 7u32;
        for _ in 0..200_000 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let v = (s as f32 / u32::MAX as f32 - 0.5) * 254.0;
            assert_eq!(code_i8(v), roundf_byte(v), "{v}");
        }
        assert_eq!(code_i8(127.4) as i8, 127);
        assert_eq!(code_i8(300.0) as i8, 127);
        assert_eq!(code_i8(f32::NEG_INFINITY) as i8, -127);
        assert_eq!(code_i8(f32::NAN), 0);
    }

    #[test]
    fn codes_clamp_and_skip_nan() {
        let x = [1.0, -1.0, 0.3, f32::NAN, 1e30, -1e30, 0.0, -0.0];
        let mut out = [9u8; 8];
        scaled_codes(&x, 127.0, &mut out);
        assert_eq!(out.map(|b| b as i8), [127, -127, 38, 0, 127, -127, 0, 0]);
        divided_codes(&x, 1.0 / 127.0, &mut out);
        assert_eq!(out.map(|b| b as i8), [127, -127, 38, 0, 127, -127, 0, 0]);
    }

    #[test]
    fn absmax_skips_nan_and_is_zero_for_nothing() {
        assert_eq!(absmax(&[]), 0.0);
        assert_eq!(absmax(&[f32::NAN, -3.0, 2.0]), 3.0);
        assert_eq!(absmax(&[-0.0]), 0.0);
    }
}
