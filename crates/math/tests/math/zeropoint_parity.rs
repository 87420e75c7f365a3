//! Zero-point quantization's fast codes (selects, and simd128 lanes in wasm) equal the formula as
//! first written (`f32::round`, `f32::min`/`max`, no pre-clamp) on ties, extremes, NaN and random
//! blocks of several lengths, natively and in the browser.

use bitbudget_math::quant::zeropoint::{quantize, ZeroPointBlock};

/// The formula as first written.
fn reference(x: &[f32], bits: u32) -> ZeroPointBlock {
    let top = ((1u32 << bits) - 1) as f32;
    let (lo, hi) = x
        .iter()
        .filter(|v| !v.is_nan())
        .fold((0f32, 0f32), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let scale = (hi - lo) / top;
    if scale == 0.0 || !scale.is_finite() {
        return ZeroPointBlock {
            scale: 0.0,
            zero_point: 0,
            codes: vec![0; x.len()],
        };
    }
    let zero_point = (-lo / scale).round().clamp(0.0, top);
    let codes = x
        .iter()
        .map(|v| match v.is_nan() {
            true => zero_point as u8,
            false => ((v / scale).round() + zero_point).clamp(0.0, top) as u8,
        })
        .collect();
    ZeroPointBlock {
        scale,
        zero_point: zero_point as u8,
        codes,
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_fast_codes_equal_the_reference_formula_on_ties_extremes_and_random_blocks() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut blocks: Vec<Vec<f32>> = vec![
        vec![-1.0, 0.5, 1.5, 2.5, -0.5, 3.0, f32::NAN, 254.5],
        vec![0.0, -0.0, 1e-45, -1e-45],
        vec![f32::MAX, -f32::MAX, 1.0],
        vec![f32::INFINITY, 1.0],
        vec![1e30, 1e-30, -3.0],
        vec![-7.5, -7.4999995, 7.5000005, 0.49999997, -0.49999997],
    ];
    for i in 0..2000 {
        let scale = f32::from_bits((next() as u32 % 60 + 100) << 23);
        // Mostly 64 values (the default block), some lengths that leave tails after 16s.
        let len = [64, 64, 64, 16, 33, 7][i % 6];
        blocks.push(
            (0..len)
                .map(|_| match next() % 50 {
                    0 => f32::NAN,
                    1 => f32::INFINITY * scale.signum(),
                    // Exact multiples of half a step: ties after the division.
                    2..=12 => (next() % 600) as f32 * 0.5 * scale - 100.0 * scale,
                    _ => f32::from_bits(next() as u32 & 0xBFFF_FFFF) * scale.signum(),
                })
                .collect(),
        );
    }
    for x in &blocks {
        for bits in [4, 8] {
            assert_eq!(quantize(x, bits), reference(x, bits), "{bits} bits: {x:?}");
        }
    }
}
