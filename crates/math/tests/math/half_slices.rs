//! The FP16 slice codecs (simd128 lanes in wasm) give the scalar functions' bits: every one of
//! the 65,536 FP16 patterns decoded, and f32 values at and around the edge of every case of the
//! encoder (NaN, overflow to ∞, the subnormal range, rounding ties of each exponent) encoded,
//! in runs whose lengths leave every tail; natively and in the browser.

use bitbudget_math::format::half::{
    decode_f16_le, encode_f16_le, f16_bits_to_f32, f32_to_f16_bits,
};
use bitbudget_math::quant::generate::SplitMix64;

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_fp16_decodes_to_the_scalar_value() {
    let bytes: Vec<u8> = (0..=u16::MAX).flat_map(|h| h.to_le_bytes()).collect();
    for len in [65_536, 65_533, 9] {
        let mut out = vec![7.0f32; len];
        decode_f16_le(&bytes[..2 * len], &mut out);
        for (h, got) in (0..=u16::MAX).zip(&out) {
            let want = f16_bits_to_f32(h);
            assert_eq!(got.to_bits(), want.to_bits(), "FP16 {h:#06x}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn f32_values_at_every_case_edge_encode_to_the_scalar_bits() {
    let mut x = Vec::new();
    // Each FP16's value, the midpoints to its neighbours, and the f32s around both: every
    // rounding edge of the normal and subnormal ranges, and the overflow edge at 65520.
    for h in 0..0x7C00u16 {
        let v = f16_bits_to_f32(h);
        let mid = ((v as f64 + f16_bits_to_f32(h + 1) as f64) / 2.0) as f32;
        for c in [v, mid] {
            for d in -2i32..=2 {
                let b = (c.to_bits() as i32 + d).max(0) as u32;
                x.extend([f32::from_bits(b), -f32::from_bits(b)]);
            }
        }
    }
    x.extend([
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
    ]);
    x.extend([
        f32::from_bits(0x7F80_0001),
        f32::from_bits(0xFFC0_1234),
        1e-45,
        -1e-45,
    ]);
    let mut rng = SplitMix64(16);
    x.extend((0..4096).map(|_| f32::from_bits(rng.next_u64() as u32)));
    for len in [x.len(), x.len() - 3] {
        let mut out = vec![0xA5u8; 2 * len];
        encode_f16_le(&x[..len], &mut out);
        for (v, got) in x.iter().zip(out.chunks_exact(2)) {
            let want = f32_to_f16_bits(*v);
            assert_eq!(
                u16::from_le_bytes([got[0], got[1]]),
                want,
                "{v:e} ({:#x})",
                v.to_bits()
            );
        }
    }
}
