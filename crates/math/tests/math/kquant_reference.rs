//! K-quants, IQ4_NL and NVFP4 bit-exact against llama.cpp itself: the fixtures are written by
//! `scripts/make_kquant_fixtures.py` from llama.cpp's own C quantizers (ggml-quants.c of
//! llama-cpp-python 0.3.36, compiled by `scripts/build_llama_reference.py`), on inputs with
//! ordinary weights, FP16-subnormal scales, f32 subnormals, heavy tails, zero and constant blocks,
//! outliers, scales beyond FP16 and, separately, NaN and ±infinity.
//!
//! Each scheme is checked three ways: our bytes equal llama.cpp's (`ggml_quantize_chunk`, no
//! importance matrix), our dequantization of llama.cpp's bytes equals `dequantize_row_*` bit for
//! bit, and our dequantization of our own bytes reproduces the same values. On a mismatch the
//! first differing block is named with its input.
//!
//! The same tests run in WebAssembly (Node.js, `cargo test -p bitbudget-math --target
//! wasm32-unknown-unknown`), where the scale searches take their simd128 path.

use bitbudget_math::quant::kquants::{q2_k, q3_k, q4_k, q5_k, q6_k, LengthError, QK_K};
use bitbudget_math::quant::{iq4_nl, nvfp4};

type Quantize = fn(&[f32], &mut [u8]) -> Result<(), LengthError>;
type Dequantize = fn(&[u8], &mut [f32]) -> Result<(), LengthError>;

struct Scheme {
    name: &'static str,
    block_values: usize,
    block_bytes: usize,
    quantize: Quantize,
    dequantize: Dequantize,
    reference: &'static [u8],
    reference_dequant: &'static [u8],
    reference_nonfinite: &'static [u8],
}

macro_rules! scheme {
    ($name:literal, $module:ident, $values:expr) => {
        Scheme {
            name: $name,
            block_values: $values,
            block_bytes: $module::BLOCK_BYTES,
            quantize: $module::quantize,
            dequantize: $module::dequantize,
            reference: include_bytes!(concat!("../fixtures/ggml/", $name, ".bin")),
            reference_dequant: include_bytes!(concat!("../fixtures/ggml/", $name, ".dequant.f32")),
            reference_nonfinite: include_bytes!(concat!(
                "../fixtures/ggml/",
                $name,
                ".nonfinite.bin"
            )),
        }
    };
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn finite_input() -> Vec<f32> {
    floats(include_bytes!("../fixtures/ggml/kquant_input.f32"))
}

fn nonfinite_input() -> Vec<f32> {
    floats(include_bytes!("../fixtures/ggml/kquant_nonfinite.f32"))
}

/// Same bits, or both NaN (a NaN's payload is not part of the contract).
fn same_value(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn assert_same_bytes(s: &Scheme, input: &[f32], ours: &[u8], reference: &[u8]) {
    assert_eq!(ours.len(), reference.len(), "{}: size", s.name);
    for (i, (a, b)) in ours
        .chunks_exact(s.block_bytes)
        .zip(reference.chunks_exact(s.block_bytes))
        .enumerate()
    {
        let x = &input[i * s.block_values..(i + 1) * s.block_values];
        assert_eq!(
            a, b,
            "{}: first difference in block {i}, input {x:?}",
            s.name
        );
    }
}

fn check(s: Scheme) {
    let x = finite_input();
    assert_eq!(x.len() % QK_K, 0);
    let mut ours = vec![0u8; x.len() / s.block_values * s.block_bytes];
    (s.quantize)(&x, &mut ours).unwrap();
    assert_same_bytes(&s, &x, &ours, s.reference);

    let expected = floats(s.reference_dequant);
    let mut from_reference = vec![0f32; x.len()];
    (s.dequantize)(s.reference, &mut from_reference).unwrap();
    let mut from_ours = vec![0f32; x.len()];
    (s.dequantize)(&ours, &mut from_ours).unwrap();
    for (i, ((e, r), o)) in expected
        .iter()
        .zip(&from_reference)
        .zip(&from_ours)
        .enumerate()
    {
        assert!(
            same_value(*e, *r),
            "{}: value {i}: llama.cpp {e:e}, ours {r:e}",
            s.name
        );
        assert!(
            same_value(*e, *o),
            "{}: value {i} of our bytes: {o:e} vs {e:e}",
            s.name
        );
    }
}

/// NaN and ±infinity inputs: llama.cpp does not reject them, and what it writes depends on how
/// the hardware propagates NaN signs and payloads, so this runs where the fixtures were made
/// (x86-64); elsewhere the byte check is skipped and only lengths are checked.
fn check_nonfinite(s: Scheme) {
    let x = nonfinite_input();
    let mut ours = vec![0u8; x.len() / s.block_values * s.block_bytes];
    (s.quantize)(&x, &mut ours).unwrap();
    if cfg!(target_arch = "x86_64") {
        assert_same_bytes(&s, &x, &ours, s.reference_nonfinite);
    } else {
        eprintln!(
            "SKIPPED: non-finite bytes of {} are compared on x86-64 only",
            s.name
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn q2_k_matches_llama_cpp() {
    check(scheme!("q2_k", q2_k, QK_K));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn q3_k_matches_llama_cpp() {
    check(scheme!("q3_k", q3_k, QK_K));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn q4_k_matches_llama_cpp() {
    check(scheme!("q4_k", q4_k, QK_K));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn q5_k_matches_llama_cpp() {
    check(scheme!("q5_k", q5_k, QK_K));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn q6_k_matches_llama_cpp() {
    check(scheme!("q6_k", q6_k, QK_K));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn iq4_nl_matches_llama_cpp() {
    check(scheme!("iq4_nl", iq4_nl, iq4_nl::QK4_NL));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn nvfp4_matches_llama_cpp() {
    check(scheme!("nvfp4", nvfp4, nvfp4::QK_NVFP4));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn non_finite_inputs_give_llama_cpp_bytes_on_x86_64() {
    check_nonfinite(scheme!("q2_k", q2_k, QK_K));
    check_nonfinite(scheme!("q3_k", q3_k, QK_K));
    check_nonfinite(scheme!("q4_k", q4_k, QK_K));
    check_nonfinite(scheme!("q5_k", q5_k, QK_K));
    check_nonfinite(scheme!("q6_k", q6_k, QK_K));
    check_nonfinite(scheme!("iq4_nl", iq4_nl, iq4_nl::QK4_NL));
    check_nonfinite(scheme!("nvfp4", nvfp4, nvfp4::QK_NVFP4));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn iq4_nl_ref_path_matches_quantize_row_iq4_nl_ref_except_zero_block_indices() {
    // quantize_row_iq4_nl_ref leaves a zero block's indices as its buffer held them (the
    // previous block's); only the scale and the (zero) values are defined there.
    let x = finite_input();
    let reference: &[u8] = include_bytes!("../fixtures/ggml/iq4_nl_ref.bin");
    let mut ours = vec![0u8; reference.len()];
    iq4_nl::quantize_ref(&x, &mut ours).unwrap();
    let mut compared = 0;
    for (i, (a, b)) in ours
        .chunks_exact(iq4_nl::BLOCK_BYTES)
        .zip(reference.chunks_exact(iq4_nl::BLOCK_BYTES))
        .enumerate()
    {
        if b[..2] == [0, 0] {
            assert_eq!(a[..2], [0, 0], "block {i}");
        } else {
            assert_eq!(a, b, "block {i}: input {:?}", &x[i * 32..i * 32 + 32]);
            compared += 1;
        }
    }
    assert!(compared > ours.len() / iq4_nl::BLOCK_BYTES * 3 / 4);
    // The two llama.cpp paths really differ on ordinary weights (the search changes bytes).
    assert_ne!(&ours[..], include_bytes!("../fixtures/ggml/iq4_nl.bin"));
}

fn k_round_trip<const B: usize>(
    quantize: fn(&[f32; QK_K], &mut [u8; B]),
    dequantize: fn(&[u8; B], &mut [f32; QK_K]),
) -> impl Fn(&[f32; QK_K]) -> (Vec<u8>, Vec<f32>) {
    move |x| {
        let mut b = [0u8; B];
        quantize(x, &mut b);
        let mut y = [0f32; QK_K];
        dequantize(&b, &mut y);
        (b.to_vec(), y.to_vec())
    }
}

/// A K-quant's block quantizer followed by its dequantizer: (bytes, values).
type RoundTrip = Box<dyn Fn(&[f32; QK_K]) -> (Vec<u8>, Vec<f32>)>;

fn k_schemes() -> Vec<(&'static str, RoundTrip)> {
    vec![
        (
            "q2_K",
            Box::new(k_round_trip(q2_k::quantize_block, q2_k::dequantize_block)),
        ),
        (
            "q3_K",
            Box::new(k_round_trip(q3_k::quantize_block, q3_k::dequantize_block)),
        ),
        (
            "q4_K",
            Box::new(k_round_trip(q4_k::quantize_block, q4_k::dequantize_block)),
        ),
        (
            "q5_K",
            Box::new(k_round_trip(q5_k::quantize_block, q5_k::dequantize_block)),
        ),
        (
            "q6_K",
            Box::new(k_round_trip(q6_k::quantize_block, q6_k::dequantize_block)),
        ),
    ]
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn all_zero_super_blocks_dequantize_to_zero_with_zero_scales() {
    for (name, round_trip) in k_schemes() {
        let (bytes, y) = round_trip(&[0.0; QK_K]);
        assert!(y.iter().all(|v| *v == 0.0), "{name}");
        // Every super-block scale is FP16 zero (the codes may be anything where d = 0).
        let d_offsets: &[usize] = match name {
            "q2_K" => &[80, 82],
            "q3_K" => &[108],
            "q4_K" | "q5_K" => &[0, 2],
            _ => &[208],
        };
        for &o in d_offsets {
            assert_eq!(bytes[o..o + 2], [0, 0], "{name} scale at {o}");
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn constant_super_blocks_come_back_within_half_a_step() {
    // Codes span the range from min(x, 0) to max(x): half a step of it bounds the error, plus
    // FP16 rounding of the scales (relative 2^-11 per factor).
    let levels = [
        ("q2_K", 3.0),
        ("q3_K", 4.0),
        ("q4_K", 15.0),
        ("q5_K", 31.0),
        ("q6_K", 32.0),
    ];
    for ((name, round_trip), (_, n)) in k_schemes().into_iter().zip(levels) {
        // (Not tiny constants: with |x| ≲ 0.01 the FP16 super-block scale is subnormal and coarse.)
        for c in [0.75f32, -2.5, 300.0] {
            let (_, y) = round_trip(&[c; QK_K]);
            let bound = c.abs() / n / 2.0 + c.abs() * 4e-3;
            for v in &y {
                assert!((v - c).abs() <= bound, "{name}: {c} came back as {v}");
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn ordinary_weights_come_back_within_a_step_of_their_sub_block() {
    let x = finite_input();
    // (scheme, codes − 1, sub-block size)
    let levels = [
        ("q2_K", 3.0, 16),
        ("q3_K", 7.0, 16),
        ("q4_K", 15.0, 32),
        ("q5_K", 31.0, 32),
        ("q6_K", 63.0, 16),
    ];
    for ((name, round_trip), (_, n, size)) in k_schemes().into_iter().zip(levels) {
        for block in x.chunks_exact(QK_K).take(8) {
            let block: &[f32; QK_K] = block.try_into().unwrap();
            let (_, y) = round_trip(block);
            for (sub, ys) in block.chunks(size).zip(y.chunks(size)) {
                let (lo, hi) = sub
                    .iter()
                    .fold((0f32, 0f32), |(l, h), v| (l.min(*v), h.max(*v)));
                let step = (hi - lo) / n;
                for (a, b) in sub.iter().zip(ys) {
                    assert!(
                        (a - b).abs() <= step * 1.01,
                        "{name}: {a} vs {b}, step {step}"
                    );
                }
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn values_beyond_fp16_give_an_infinite_scale_as_llama_cpp_does() {
    // max/63 above 65504 overflows the FP16 super-block scale; llama.cpp stores +inf and its
    // dequantizer gives inf or NaN (inf·0). Documented, not hidden.
    let x = [1e10f32; QK_K];
    let mut b = [0u8; q4_k::BLOCK_BYTES];
    q4_k::quantize_block(&x, &mut b);
    assert_eq!(u16::from_le_bytes([b[0], b[1]]), 0x7C00);
    let mut y = [0f32; QK_K];
    q4_k::dequantize_block(&b, &mut y);
    assert!(y.iter().all(|v| !v.is_finite()));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn nan_inputs_never_panic_and_leave_finite_sub_blocks_usable() {
    let mut x = [0.5f32; QK_K];
    x[3] = f32::NAN;
    for (name, round_trip) in k_schemes() {
        let (_, y) = round_trip(&x);
        // Sub-blocks of 32 without the NaN keep their values (the NaN's own may be NaN).
        assert!(
            y[32..].iter().all(|v| (v - 0.5).abs() < 0.1 || v.is_nan()),
            "{name}"
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn wrong_lengths_are_errors_that_say_what_is_missing() {
    let mut out = vec![0u8; q4_k::BLOCK_BYTES];
    let err = q4_k::quantize(&[1.0; 300], &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "q4_K quantizes whole blocks of 256 values, but got 300 values (212 short of the next whole block)"
    );
    let err = q6_k::quantize(&[1.0; 256], &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "q6_K: these values take 210 bytes of blocks, but the buffer has 144"
    );
    let mut y = vec![0f32; 100];
    assert!(nvfp4::dequantize(&[0u8; 36], &mut y).is_err());
    assert!(iq4_nl::quantize(&[0.0; 33], &mut [0u8; 18]).is_err());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn nvfp4_scale_conversion_follows_llama_cpps_rounding() {
    use nvfp4::{ue4m3_from_f32, ue4m3_to_f32};
    // Exact values round-trip; ties on the first dropped bit round up (not to even).
    assert_eq!(ue4m3_from_f32(1.0), 0x38);
    assert_eq!(ue4m3_to_f32(0x38), 1.0);
    assert_eq!(ue4m3_from_f32(1.0625), 0x39); // halfway between 1.0 and 1.125
    assert_eq!(ue4m3_from_f32(1.1875), 0x3A); // halfway between 1.125 and 1.25 (even would be 1.25 too)
                                              // Everything from 256 up, +inf included, is 0x7E = 448.
    for v in [256.0f32, 300.0, 448.0, 1e30, f32::INFINITY] {
        assert_eq!(ue4m3_from_f32(v), 0x7E, "{v}");
    }
    assert_eq!(ue4m3_to_f32(0x7E), 448.0);
    // Zero, negative and NaN scales are 0; 0x7F (E4M3's NaN) reads as 0.
    for v in [0.0f32, -1.0, f32::NAN] {
        assert_eq!(ue4m3_from_f32(v), 0);
    }
    assert_eq!(ue4m3_to_f32(0x7F), 0.0);
    // Subnormals: units of 2^-9, capped at 7 below 2^-6.
    assert_eq!(ue4m3_from_f32(3.0 * 2f32.powi(-9)), 3);
    assert_eq!(ue4m3_from_f32(7.9 * 2f32.powi(-9)), 7);
    assert_eq!(ue4m3_to_f32(3), 3.0 * 2f32.powi(-9));
    // Every byte llama.cpp can write reads back and re-encodes to itself.
    for b in (1u8..0x78).chain([0x7E]) {
        assert_eq!(ue4m3_from_f32(ue4m3_to_f32(b)), b, "byte {b:#x}");
    }
}
