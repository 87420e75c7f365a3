//! NF4's block codes (counted against thresholds, four simd128 lanes in wasm) are exactly
//! `nearest_code(v / absmax)` value by value: on every code, every midpoint and their neighbours
//! (scaled into blocks), NaN, ±∞, zero blocks and random blocks, natively and in the browser.

use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::kernels::absmax;
use bitbudget_math::quant::nf4::{nearest_code, quantize, NF4_CODE};

/// The codes by definition: the nearest code of each value over its block's absmax (7 for a
/// block of zeros).
fn by_definition(x: &[f32], block: usize) -> Vec<u8> {
    x.chunks(block)
        .flat_map(|chunk| {
            let m = absmax(chunk);
            chunk
                .iter()
                .map(move |v| if m == 0.0 { 7 } else { nearest_code(v / m) })
        })
        .collect()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn block_codes_are_the_nearest_code_of_every_value() {
    // Codes and midpoints (as f32 computes them) with three neighbours each side, in a block
    // whose absmax is 1 (the 1.0 at its end) and in one scaled by 3.
    let mut probes = Vec::new();
    for w in NF4_CODE.windows(2) {
        for c in [w[0], w[1], (w[0] + w[1]) / 2.0] {
            for d in -3i32..=3 {
                probes.push(f32::from_bits((c.to_bits() as i32 + d) as u32));
            }
        }
    }
    probes.retain(|v| v.abs() <= 1.0);
    let mut x: Vec<f32> = probes
        .chunks(63)
        .flat_map(|c| c.iter().copied().chain([1.0]))
        .collect();
    x.resize(x.len().next_multiple_of(64), 1.0);
    let scaled: Vec<f32> = x.iter().map(|v| v * 3.0).collect();
    x.extend(scaled);
    // Specials, a zero block, and random blocks of several scales.
    x.extend([f32::NAN, f32::INFINITY, -0.0, 0.5].repeat(16));
    x.extend([0.0; 64]);
    let mut rng = SplitMix64(0x4E46);
    for _ in 0..500 {
        let scale = 10f64.powf(rng.unit() * 10.0 - 5.0);
        x.extend((0..64).map(|_| (rng.normal() * scale) as f32));
    }
    for block in [64, 32, 7] {
        let got = quantize(&x, block, false).codes;
        let want = by_definition(&x, block);
        if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
            panic!(
                "block {block}: value {i} ({:e}) got code {} not {}",
                x[i], got[i], want[i]
            );
        }
    }
}
