//! The WebAssembly SIMD paths of the INT8 kernels (absmax, Q8_0 and absmax INT8 codes) give the
//! same results as the scalar code that the native tests check against llama.cpp's reference
//! (run in the browser, where simd128 is on).

use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::kernels::{
    absmax, absmax_scalar, divided_codes, divided_codes_scalar, scaled_codes, scaled_codes_scalar,
};
use wasm_bindgen_test::*;

/// Both code loops on `x` with `factor`, SIMD against scalar.
fn assert_codes_agree(x: &[f32], factor: f32, what: &str) {
    let (mut a, mut b) = (vec![0u8; x.len()], vec![1u8; x.len()]);
    scaled_codes(x, factor, &mut a);
    scaled_codes_scalar(x, factor, &mut b);
    assert_eq!(a, b, "scaled codes, {what}: {x:?} × {factor}");
    if factor != 0.0 {
        divided_codes(x, 1.0 / factor, &mut a);
        divided_codes_scalar(x, 1.0 / factor, &mut b);
        assert_eq!(a, b, "divided codes, {what}: {x:?} / {}", 1.0 / factor);
    }
}

#[wasm_bindgen_test]
fn simd_and_scalar_agree_on_random_blocks_of_every_length() {
    let mut rng = SplitMix64(99);
    for round in 0..3000 {
        let len = 1 + round % 70;
        let mut x: Vec<f32> = (0..len)
            .map(|_| (rng.normal() * 10f64.powf(rng.unit() * 6.0 - 3.0)) as f32)
            .collect();
        if round % 7 == 0 {
            x[round % len] = f32::NAN;
        }
        if round % 11 == 0 {
            x[(round / 11) % len] = f32::NEG_INFINITY;
        }
        let m = absmax_scalar(&x);
        assert_eq!(
            absmax(&x).to_bits(),
            m.to_bits(),
            "absmax, round {round}: {x:?}"
        );
        let id = if m == 0.0 || m.is_infinite() {
            0.0
        } else {
            127.0 / m
        };
        assert_codes_agree(&x, id, &format!("round {round}"));
        // Products beyond ±127 are clamped the same way by both.
        assert_codes_agree(&x, id * 3.0, &format!("clamped, round {round}"));
    }
}

#[wasm_bindgen_test]
fn simd_and_scalar_agree_on_ties_and_their_neighbours() {
    let mut x = Vec::new();
    for k in -130..130 {
        for base in [k as f32, k as f32 + 0.5] {
            x.push(base);
            x.push(f32::from_bits(base.to_bits() + 1));
            x.push(f32::from_bits(base.to_bits().saturating_sub(1)));
        }
    }
    x.extend([
        0.499_999_97,
        -0.499_999_97,
        0.0,
        -0.0,
        f32::MAX,
        f32::MIN_POSITIVE,
    ]);
    assert_codes_agree(&x, 1.0, "ties");
    assert_codes_agree(&x, 0.5, "halved ties");
}
