//! The FP8 and FP6 slice encoder (`Fp8Codec::encode_divided`, simd128 lanes in wasm) gives the
//! scalar encoder's bytes on the quotient: every pattern's value, the midpoints to its
//! neighbours and the f32s around both (each rounding edge of the normal and subnormal ranges
//! and the saturation edge), zeros, infinities, NaN and random values, divided by one, by an
//! FP8 scheme's per-tensor scale and by divisors that make quotients overflow or vanish, in
//! runs whose lengths leave every tail; natively and in the browser.

use bitbudget_math::format::fp8::{e2m3, e3m2, e4m3, e5m2, Fp8Codec};
use bitbudget_math::quant::generate::SplitMix64;

/// Every pattern's finite value, midpoints and their neighbours (both signs), and specials.
fn edges(codec: &Fp8Codec) -> Vec<f32> {
    let mut values: Vec<f32> = (0..=255u8)
        .map(|b| codec.decode(b))
        .filter(|v| v.is_finite() && v.is_sign_positive())
        .collect();
    values.sort_by(f32::total_cmp);
    values.dedup();
    let mut x = Vec::new();
    for w in values.windows(2) {
        let mid = ((w[0] as f64 + w[1] as f64) / 2.0) as f32;
        for c in [w[0], w[1], mid, w[1] * 1.5] {
            for d in -2i32..=2 {
                let b = f32::from_bits((c.to_bits() as i32 + d).max(0) as u32);
                x.extend([b, -b]);
            }
        }
    }
    x.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
    ]);
    x
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn slices_encode_to_the_scalar_patterns_of_each_quotient() {
    let mut rng = SplitMix64(0xF8);
    for codec in [e4m3(), e5m2(), e3m2(), e2m3()] {
        let mut x = edges(codec);
        x.extend((0..4096).map(|_| (rng.normal() * 300.0) as f32));
        x.extend((0..1024).map(|_| f32::from_bits(rng.next_u64() as u32)));
        for divisor in [1.0, 3.0 / 448.0, 0.02 / 57344.0, 1e-30, 1e30, -2.5, 0.0] {
            for skip in [0, 1, 7, 15] {
                let x = &x[skip..];
                let mut out = vec![0xAA];
                codec.encode_divided(x, divisor, &mut out);
                assert_eq!(out.len(), x.len() + 1, "appended after what was there");
                assert_eq!(out[0], 0xAA);
                for (v, got) in x.iter().zip(&out[1..]) {
                    let want = codec.encode_saturating(*v / divisor);
                    assert_eq!(*got, want, "{v:e} / {divisor:e} ({:#010x})", v.to_bits());
                }
            }
        }
    }
}
