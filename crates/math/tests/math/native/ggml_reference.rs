//! GGML and MXFP4 blocks bit-exact against reference bytes written by the `gguf` Python package
//! (whose numpy quantizers mirror llama.cpp's `quantize_row_*_ref`), from
//! `scripts/make_ggml_fixtures.py`. On a mismatch the first differing block is printed.

use bitbudget_math::quant::ggml::{dequantize_block, quantize_block, GgmlType, QK};

/// The bytes of a file in tests/fixtures/ggml/.
macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!("../../fixtures/ggml/", $name))
    };
}

const INPUT: &[u8] = fixture!("input.f32");

fn input() -> Vec<f32> {
    INPUT
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn check(t: GgmlType, reference: &[u8]) {
    let x = input();
    let size = t.block_bytes();
    assert_eq!(reference.len(), x.len() / QK * size);
    for (i, (block, expected)) in x
        .chunks_exact(QK)
        .zip(reference.chunks_exact(size))
        .enumerate()
    {
        let mut ours = vec![0u8; size];
        quantize_block(t, block, &mut ours);
        assert_eq!(
            ours, expected,
            "{t:?}: first difference in block {i} (input {block:?})"
        );
        // Dequantizing our bytes and the reference's gives the same values, by construction here.
        let mut y = [0f32; QK];
        dequantize_block(t, &ours, &mut y);
        assert!(y.iter().all(|v| v.is_finite()));
    }
}

#[test]
fn q8_0_matches_llama_cpp() {
    check(GgmlType::Q8_0, fixture!("q8_0.bin"));
}

#[test]
fn q4_0_matches_llama_cpp() {
    check(GgmlType::Q4_0, fixture!("q4_0.bin"));
}

#[test]
fn q4_1_matches_llama_cpp() {
    check(GgmlType::Q4_1, fixture!("q4_1.bin"));
}

#[test]
fn q5_0_matches_llama_cpp() {
    check(GgmlType::Q5_0, fixture!("q5_0.bin"));
}

#[test]
fn q5_1_matches_llama_cpp() {
    check(GgmlType::Q5_1, fixture!("q5_1.bin"));
}

#[test]
fn mxfp4_matches_llama_cpp() {
    check(GgmlType::Mxfp4, fixture!("mxfp4.bin"));
}
