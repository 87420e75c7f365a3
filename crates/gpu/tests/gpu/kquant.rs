//! The K-quant and IQ4_NL quantize kernels (quantize_kquant.wgsl, quantize_iq4_nl.wgsl) against
//! the CPU reference on the inputs where their searches branch: sub-blocks whose scale quantizes to 0 next to an outlier (their
//! codes come from the fit, not from the stored scale), sub-blocks just above and below
//! `GROUP_MAX_EPS`, constant and zero super-blocks, FP16-subnormal and overflowing super-block
//! scales, and non-finite weights. The generic cases (seeded sizes, chunks, special blocks) run
//! for every kernel in parity.rs. Bytes must be identical; the first differing byte is
//! reported.

use crate::common::{any_bits, chunked_gpu, gpu, normal};
use bitbudget_gpu::block_on;
use bitbudget_math::quant::codec;
use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::scheme::Scheme;

/// The K-quants and IQ4_NL (each has a GPU quantize kernel).
fn kquants() -> Vec<Scheme> {
    ["q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "iq4_nl"]
        .into_iter()
        .map(|s| s.parse::<Scheme>().unwrap())
        .collect()
}

/// Super-blocks of 256 weights that hit the searches' branches, one case per entry.
fn hard_super_blocks() -> Vec<(&'static str, Vec<f32>)> {
    let base = normal(256, 41, 1.0);
    let with = |f: &dyn Fn(usize, f32) -> f32| -> Vec<f32> {
        base.iter().enumerate().map(|(i, &v)| f(i, v)).collect()
    };
    let mut rng = SplitMix64(77);
    vec![
        (
            "one outlier of 1e4",
            with(&|i, v| if i == 77 { 1e4 } else { v }),
        ),
        (
            "an outlier sub-block 1000x the others",
            with(&|i, v| if i / 16 == 3 { v * 1000.0 } else { v }),
        ),
        (
            "sub-blocks from 1e-20 to 1e10",
            with(&|i, v| v * 10f32.powi((i / 16) as i32 * 2 - 20)),
        ),
        (
            "sub-blocks around 1e-15",
            with(&|i, v| {
                let scale = [0.9e-15, 1e-15, 1.1e-15, 2e-15][(i / 16) % 4];
                v.signum() * scale * (1.0 + (i % 16) as f32 / 16.0)
            }),
        ),
        ("constant 3.25", vec![3.25; 256]),
        ("constant -1e-3", vec![-1e-3; 256]),
        (
            "zeros but one",
            with(&|i, _| if i == 200 { -0.5 } else { 0.0 }),
        ),
        ("tiny: FP16-subnormal scales", with(&|_, v| v * 1e-6)),
        ("huge: FP16 scale overflows", with(&|_, v| v * 1e9)),
        (
            "integers (ties everywhere)",
            (0..256).map(|i| ((i * 37) % 65) as f32 - 32.0).collect(),
        ),
        (
            "half steps",
            (0..256)
                .map(|i| ((i * 11) % 129) as f32 * 0.5 - 32.0)
                .collect(),
        ),
        (
            "a NaN in each sub-block",
            with(&|i, v| if i % 16 == 5 { f32::NAN } else { v }),
        ),
        (
            "+inf and -inf",
            with(&|i, v| match i {
                3 => f32::INFINITY,
                130 => f32::NEG_INFINITY,
                _ => v,
            }),
        ),
        (
            "subnormal weights",
            (0..256)
                .map(|_| f32::from_bits((rng.next_u64() as u32) & 0x807f_ffff))
                .collect(),
        ),
    ]
}

/// Panics with the first differing byte unless the GPU's bytes are the CPU's.
fn assert_same(what: &str, gpu: &[u8], cpu: &[u8]) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: byte counts");
    if let Some(i) = gpu.iter().zip(cpu).position(|(a, b)| a != b) {
        let differ = gpu.iter().zip(cpu).filter(|(a, b)| a != b).count();
        panic!(
            "{what}: first difference at byte {i}: GPU {:#04x}, CPU {:#04x} ({differ} of {} \
             bytes differ)",
            gpu[i],
            cpu[i],
            cpu.len()
        );
    }
}

#[test]
fn kquant_kernels_match_the_cpu_on_the_branches_of_their_searches() {
    let Some(gpu) = gpu() else { return };
    let schemes = kquants();
    assert_eq!(
        schemes.len(),
        6,
        "every K-quant and IQ4_NL has a quantize kernel"
    );
    for s in schemes {
        let cases = hard_super_blocks();
        // Each case alone, then all of them in one tensor (blocks that do not start on a word).
        let mut all = Vec::new();
        for (case, x) in &cases {
            let cpu = codec::quantize(s, x, s.default_block()).unwrap();
            let got = block_on(bitbudget_gpu::quantize(gpu, s, x, s.default_block())).unwrap();
            assert_same(&format!("{s}, {case}"), &got, &cpu);
            all.extend_from_slice(x);
        }
        let cpu = codec::quantize(s, &all, s.default_block()).unwrap();
        let got = block_on(bitbudget_gpu::quantize(gpu, s, &all, s.default_block())).unwrap();
        assert_same(&format!("{s}, every case in one tensor"), &got, &cpu);
    }
}

#[test]
fn kquant_kernels_match_the_cpu_when_chunks_end_inside_a_stored_word() {
    // Chunks of three super-blocks (31 IQ4_NL blocks): Q6_K's, Q3_K's and IQ4_NL's chunks then end in the middle of a word,
    // whose two parts come from different chunks' dispatches.
    let (Some(gpu), Some(chunked)) = (gpu(), chunked_gpu()) else {
        return;
    };
    for s in kquants() {
        for (case, x) in [
            ("normal(0, 1)", normal(256 * 11, 5, 1.0)),
            ("arbitrary f32 bit patterns", any_bits(256 * 11, 6)),
        ] {
            let cpu = codec::quantize(s, &x, s.default_block()).unwrap();
            for (g, how) in [(gpu, "whole"), (chunked, "in chunks")] {
                let got = block_on(bitbudget_gpu::quantize(g, s, &x, s.default_block())).unwrap();
                assert_same(&format!("{s}, {case}, {how}"), &got, &cpu);
            }
        }
    }
}
