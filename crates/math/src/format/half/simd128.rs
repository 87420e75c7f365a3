//! [`super::f32_to_f16_bits`] and [`super::f16_bits_to_f32`] over slices, eight values at a time
//! in simd128 lanes (LLVM leaves both loops scalar in wasm). Each lane computes every case of the
//! scalar function and selects the same one, so the bits are the same; `tests/half_slices.rs`
//! checks every FP16 and the f32 boundaries of every case, in the browser.

use core::arch::wasm32::*;

/// Encodes the longest prefix of whole eights; returns its length in values.
pub(super) fn encode_f16_le(x: &[f32], out: &mut [u8]) -> usize {
    let n = x.len().min(out.len() / 2) / 8 * 8;
    let encode = |v: v128| {
        let sign = v128_and(u32x4_shr(v, 16), u32x4_splat(0x8000));
        let abs = v128_and(v, u32x4_splat(0x7FFF_FFFF));
        // Below 2^-14: adding 0.5 rounds to the count of 2^-24 units (see the scalar function).
        let subnormal = i32x4_sub(f32x4_add(abs, f32x4_splat(0.5)), u32x4_splat(0x3F00_0000));
        let subnormal = v128_or(sign, v128_and(subnormal, u32x4_splat(0xFFFF)));
        let odd = v128_and(u32x4_shr(abs, 13), u32x4_splat(1));
        let normal = i32x4_add(i32x4_sub(abs, u32x4_splat(112 << 23)), u32x4_splat(0x0FFF));
        let normal = v128_or(sign, u32x4_shr(i32x4_add(normal, odd), 13));
        let half = v128_bitselect(subnormal, normal, u32x4_lt(abs, u32x4_splat(0x3880_0000)));
        let infinity = v128_or(sign, u32x4_splat(0x7C00));
        let half = v128_bitselect(infinity, half, u32x4_ge(abs, u32x4_splat(0x477F_F000)));
        v128_bitselect(
            u32x4_splat(0x7E00),
            half,
            u32x4_gt(abs, u32x4_splat(0x7F80_0000)),
        )
    };
    for (xs, os) in x[..n]
        .chunks_exact(8)
        .zip(out[..2 * n].chunks_exact_mut(16))
    {
        let four = |k: usize| {
            let v: &[f32; 4] = xs[k..k + 4].try_into().expect("four values");
            // SAFETY: 16 readable bytes; `v128_load` has no alignment requirement.
            encode(unsafe { v128_load(v.as_ptr().cast()) })
        };
        // Every lane is at most 0xFFFF, which the unsigned narrowing keeps.
        let halves = u16x8_narrow_i32x4(four(0), four(4));
        let os: &mut [u8; 16] = os.try_into().expect("16 bytes");
        // SAFETY: 16 writable bytes; `v128_store` has no alignment requirement.
        unsafe { v128_store(os.as_mut_ptr().cast(), halves) };
    }
    n
}

/// Decodes the longest prefix of whole eights; returns its length in values.
pub(super) fn decode_f16_le(bytes: &[u8], out: &mut [f32]) -> usize {
    let n = out.len().min(bytes.len() / 2) / 8 * 8;
    let decode = |h: v128| {
        let sign = i32x4_shl(v128_and(h, u32x4_splat(0x8000)), 16);
        let exp = v128_and(u32x4_shr(h, 10), u32x4_splat(0x1F));
        let man = v128_and(h, u32x4_splat(0x03FF));
        let subnormal = f32x4_mul(
            f32x4_convert_u32x4(man),
            f32x4_splat(f32::from_bits(0x3380_0000)),
        );
        let special = v128_or(u32x4_splat(0x7F80_0000), i32x4_shl(man, 13));
        let normal = v128_or(
            i32x4_shl(i32x4_add(exp, u32x4_splat(112)), 23),
            i32x4_shl(man, 13),
        );
        let magnitude = v128_bitselect(special, normal, i32x4_eq(exp, u32x4_splat(0x1F)));
        let magnitude = v128_bitselect(subnormal, magnitude, i32x4_eq(exp, u32x4_splat(0)));
        v128_or(sign, magnitude)
    };
    for (bs, os) in bytes[..2 * n]
        .chunks_exact(16)
        .zip(out[..n].chunks_exact_mut(8))
    {
        let bs: &[u8; 16] = bs.try_into().expect("16 bytes");
        // SAFETY: 16 readable bytes; `v128_load` has no alignment requirement.
        let h = unsafe { v128_load(bs.as_ptr().cast()) };
        let (low, high) = (
            decode(u32x4_extend_low_u16x8(h)),
            decode(u32x4_extend_high_u16x8(h)),
        );
        let os: &mut [f32; 8] = os.try_into().expect("8 values");
        // SAFETY: 32 writable bytes; `v128_store` has no alignment requirement.
        unsafe {
            v128_store(os.as_mut_ptr().cast(), low);
            v128_store(os.as_mut_ptr().add(4).cast(), high);
        }
    }
    n
}
