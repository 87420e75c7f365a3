//! The WebAssembly SIMD paths (Q8_0 and absmax INT8 codes) of the quantizers give the same bytes as the scalar code that the
//! native tests check against llama.cpp's reference (run in the browser, where simd128 is on).
#![cfg(target_arch = "wasm32")]

use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::ggml::{
    absmax_scalar, divided_codes, divided_codes_scalar, scaled_codes, scaled_codes_scalar,
};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn simd_and_scalar_codes_agree() {
    let mut rng = SplitMix64(99);
    for round in 0..2000 {
        let mut x: Vec<f32> = (0..32)
            .map(|_| (rng.normal() * 10f64.powf(rng.unit() * 6.0 - 3.0)) as f32)
            .collect();
        if round % 7 == 0 {
            x[3] = 2.5;
            x[9] = -0.5;
            x[17] = f32::NAN;
        }
        let m = absmax_scalar(&x);
        let id = if m == 0.0 { 0.0 } else { 127.0 / m };
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        scaled_codes(&x, id, &mut a);
        scaled_codes_scalar(&x, id, &mut b);
        assert_eq!(a, b, "codes, round {round}: {x:?}");
        let scale = m / 127.0;
        if scale > 0.0 {
            divided_codes(&x, scale, &mut a);
            divided_codes_scalar(&x, scale, &mut b);
            assert_eq!(a, b, "divided codes, round {round}: {x:?}");
            divided_codes(&x, scale / 3.0, &mut a);
            divided_codes_scalar(&x, scale / 3.0, &mut b);
            assert_eq!(a, b, "clamped codes, round {round}");
        }
        let mut ties: Vec<f32> = (0..32).map(|i| i as f32 - 15.5).collect();
        ties[0] = 0.499_999_97;
        scaled_codes(&ties, 1.0, &mut a);
        scaled_codes_scalar(&ties, 1.0, &mut b);
        assert_eq!(a, b, "ties");
    }
}
