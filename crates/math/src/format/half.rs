//! Fast IEEE binary16 (FP16) conversions on bit patterns, for the hot loops of the quantizers
//! (GGML block scales). They give exactly what the general codec gives for FP16
//! (`FormatId::F16.encode(x as f64, Overflow::Native)` and `decode`), which the tests check on
//! every half value, every rounding midpoint and its neighbours, and a stride through all f32.

/// The FP16 bit pattern nearest to `v`, ties to even; values of magnitude 65520 or more become
/// ±infinity, values below the smallest subnormal (2^-24) round to ±0 or ±2^-24, and every NaN
/// becomes the quiet NaN 0x7E00 (no sign, no payload), as the general codec does.
#[inline]
pub fn f32_to_f16_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let abs = bits & 0x7FFF_FFFF;
    // Every case is computed and one selected, without a branch, so a loop of it vectorizes (in
    // wasm FP16 encoding ran at 5.2 GB/s with a return per case). Wrapping arithmetic: the cases
    // not selected may wrap.
    //
    // Below 2^-14 the half is subnormal, in units of 2^-24. Adding 0.5 (whose ulp is 2^-24)
    // rounds to nearest even in those units; the result's low bits are the count (1024 carries
    // into the smallest normal, which is the right pattern).
    let subnormal = (f32::from_bits(abs) + 0.5)
        .to_bits()
        .wrapping_sub(0x3F00_0000);
    // Normal: drop 13 mantissa bits with ties to even and rebias the exponent (127 − 15 = 112);
    // a mantissa carry moves into the exponent, as it should.
    let odd = (abs >> 13) & 1;
    let normal = abs.wrapping_sub(112 << 23).wrapping_add(0x0FFF + odd) >> 13;
    let half = if abs > 0x7F80_0000 {
        0x7E00
    } else if abs >= 0x477F_F000 {
        // 65520 is the midpoint between 65504 (the largest half) and 2^16: ties to even give ∞.
        sign | 0x7C00
    } else if abs < 0x3880_0000 {
        sign | (subnormal & 0xFFFF)
    } else {
        sign | normal
    };
    half as u16
}

/// The value of the FP16 bit pattern `h` (exact: every half is an f32). NaN patterns give an f32
/// NaN with the same sign and payload.
#[inline]
pub fn f16_bits_to_f32(h: u16) -> f32 {
    let h = h as u32;
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1F;
    let man = h & 0x03FF;
    // All three forms, then a select: no branch, so a loop of it vectorizes (in wasm FP16
    // dequantized at 5.8 GB/s with a `match`).
    let subnormal = (man as f32 * f32::from_bits(0x3380_0000)).to_bits(); // man · 2^-24
    let special = 0x7F80_0000 | (man << 13);
    let normal = ((exp + 112) << 23) | (man << 13);
    let magnitude = if exp == 0 {
        subnormal
    } else if exp == 0x1F {
        special
    } else {
        normal
    };
    f32::from_bits(sign | magnitude)
}

/// The bfloat16 bit pattern nearest to `v` (its upper half, ties to even); overflow rounds to
/// ±infinity as IEEE does, and every NaN becomes the quiet NaN 0x7FC0, as the general codec does.
#[inline]
pub fn f32_to_bf16_bits(v: f32) -> u16 {
    let bits = v.to_bits();
    if bits & 0x7FFF_FFFF > 0x7F80_0000 {
        return 0x7FC0;
    }
    ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) as u16
}

/// Writes [`f32_to_f16_bits`] of each value of `x` to `out` as little-endian bytes (two per
/// value; zipped, the shorter wins). In wasm, eight values at a time in simd128 lanes.
pub fn encode_f16_le(x: &[f32], out: &mut [u8]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = simd128::encode_f16_le(x, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (o, v) in out.chunks_exact_mut(2).zip(x).skip(done) {
        o.copy_from_slice(&f32_to_f16_bits(*v).to_le_bytes());
    }
}

/// Writes [`f16_bits_to_f32`] of each little-endian FP16 in `bytes` (two per value) to `out`
/// (zipped, the shorter wins). In wasm, eight values at a time in simd128 lanes.
pub fn decode_f16_le(bytes: &[u8], out: &mut [f32]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = simd128::decode_f16_le(bytes, out);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)).skip(done) {
        *o = f16_bits_to_f32(u16::from_le_bytes([c[0], c[1]]));
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{FormatId, Overflow};

    fn codec_bits(v: f32) -> u16 {
        FormatId::F16.encode(v as f64, Overflow::Native) as u16
    }

    #[test]
    fn decode_matches_the_codec_for_every_half() {
        for h in 0..=u16::MAX {
            let (fast, slow) = (f16_bits_to_f32(h), FormatId::F16.decode(h as u32) as f32);
            if slow.is_nan() {
                assert!(fast.is_nan(), "{h:#06x}");
            } else {
                assert_eq!(fast.to_bits(), slow.to_bits(), "{h:#06x}");
            }
        }
    }

    #[test]
    fn encode_matches_the_codec_at_every_half_and_every_midpoint() {
        for h in 0..0x7C00u16 {
            let at = f16_bits_to_f32(h);
            // The midpoint to the next half up (2^16 after the largest) is exact in f32.
            let next = if h == 0x7BFF {
                65536.0
            } else {
                f16_bits_to_f32(h + 1)
            };
            let mid = (at + next) / 2.0;
            for base in [at, mid] {
                for v in [
                    base,
                    f32::from_bits(base.to_bits().saturating_sub(1)),
                    f32::from_bits(base.to_bits() + 1),
                ] {
                    for s in [v, -v] {
                        assert_eq!(
                            f32_to_f16_bits(s),
                            codec_bits(s),
                            "{s:e} ({:#x})",
                            s.to_bits()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn encode_matches_the_codec_on_a_stride_through_all_f32() {
        for bits in (0..=u32::MAX).step_by(4099) {
            let v = f32::from_bits(bits);
            assert_eq!(f32_to_f16_bits(v), codec_bits(v), "{v:e} ({bits:#x})");
        }
        for v in [
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MAX,
            1e-30,
        ] {
            assert_eq!(f32_to_f16_bits(v), codec_bits(v), "{v}");
        }
    }

    #[test]
    fn bf16_encode_matches_the_codec_at_midpoints_and_on_a_stride() {
        let codec = |v: f32| FormatId::Bf16.encode(v as f64, Overflow::Native) as u16;
        let midpoints = (0..=u16::MAX).flat_map(|h| {
            let mid = ((h as u32) << 16) | 0x8000;
            [mid - 1, mid, mid + 1]
        });
        for bits in midpoints.chain((0..=u32::MAX).step_by(4099)) {
            let v = f32::from_bits(bits);
            assert_eq!(f32_to_bf16_bits(v), codec(v), "{v:e} ({bits:#x})");
        }
    }
}
