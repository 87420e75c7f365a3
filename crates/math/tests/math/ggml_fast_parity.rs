//! The fast GGML and MXFP4 block quantizers write exactly the bytes of the scalar reference
//! (llama.cpp's order, itself checked against llama.cpp in `ggml_reference.rs`), on random blocks
//! of several scales and on blocks built from the values where rounding and sign decide: ±0,
//! NaN, ±inf, subnormals, the largest floats, exact code midpoints and ties for the largest |x|.
//! Natively and in the browser (wasm32 with simd128), where LLVM vectorizes the loops differently.

use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::ggml::scalar::quantize_block_scalar;
use bitbudget_math::quant::ggml::{quantize_block, GgmlType, QK};

fn same_bytes(block: &[f32; QK]) {
    for t in GgmlType::ALL {
        let (mut fast, mut reference) = (vec![0u8; t.block_bytes()], vec![0u8; t.block_bytes()]);
        quantize_block(t, block, &mut fast);
        quantize_block_scalar(t, block, &mut reference);
        assert_eq!(fast, reference, "{t:?} on {block:?}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn random_blocks_of_every_scale_give_the_reference_bytes() {
    let mut rng = SplitMix64(0x9E37_79B9_7F4A_7C15);
    for i in 0..20_000 {
        let scale = f32::from_bits(((rng.next_u64() % 200) as u32 + 20) << 23);
        let block: [f32; QK] = std::array::from_fn(|_| {
            let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
            unit * scale
        });
        let mut block = block;
        if i % 3 == 0 {
            // Every value a multiple of 1/8 of the largest: codes land on exact midpoints.
            let top = block[0].abs().max(1e-30);
            for v in &mut block {
                *v = (*v / top * 8.0).round() / 8.0 * top;
            }
        }
        same_bytes(&block);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn blocks_of_special_values_give_the_reference_bytes() {
    let specials = [
        0.0f32,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        8.5,
        -8.0,
        16.0,
        -16.5,
        3.0,
        6.0,
        -12.0,
        65504.0,
        -65520.0,
    ];
    let mut rng = SplitMix64(42);
    for _ in 0..20_000 {
        let block: [f32; QK] =
            std::array::from_fn(|_| specials[(rng.next_u64() % specials.len() as u64) as usize]);
        same_bytes(&block);
    }
    // Only zeros of both signs, and zeros beside one value of each sign.
    for first in [0.0f32, -0.0, 2.0, -2.0] {
        for k in 0..QK {
            let block: [f32; QK] = std::array::from_fn(|j| match j {
                0 => first,
                j if j == k => -0.0,
                _ => 0.0,
            });
            same_bytes(&block);
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn absmax_just_below_and_above_every_power_of_two_gives_the_reference_bytes() {
    // MXFP4's scale is floor(log2(absmax)); within a few hundred ulps under 2^k a log2 rounded
    // to f32 reaches k, which the fast exponent must not miss.
    let mut rng = SplitMix64(7);
    for k in -149i32..=127 {
        let power = 2f64.powi(k) as f32;
        for ulps in [0u32, 1, 2, 3, 40, 100, 200, 255, 256, 257, 300, 1000] {
            for amax in [
                f32::from_bits(power.to_bits().saturating_sub(ulps)),
                f32::from_bits(power.to_bits() + ulps),
            ] {
                let block: [f32; QK] = std::array::from_fn(|j| match j {
                    5 => -amax,
                    _ => amax * ((rng.next_u64() % 1000) as f32 / 1000.0),
                });
                same_bytes(&block);
            }
        }
    }
}
