//! NVFP4's and MXFP4's options on the GPU against the CPU reference
//! (`bitbudget_math::quant::fp4_options`): the random Hadamard transform, stochastic rounding and
//! both, on seeded tensors, hand-made blocks of ties, zeros, subnormals, NaN and ±∞, arbitrary bit
//! patterns, and tensors streamed in many chunks whose tensor offsets (`first`) decide SR's draws.
//! Quantized bytes must be identical; dequantized weights must have identical bits (any NaN
//! matches any NaN, as in parity.rs).

use crate::common::{
    any_bits, assert_same_bytes, assert_same_weights, chunked_gpu, gpu, normal, special_blocks,
    tiny_chunk_gpu, wild_blocks, SMALL_CHUNK, TINY_CHUNK,
};
use bitbudget_gpu::{block_on, dequantize_with_options, quantize_with_options, Gpu};
use bitbudget_math::quant::fp4_options::{self, Fp4Options, SCHEMES};
use bitbudget_math::quant::scheme::Scheme;

/// RHT alone, SR alone, both (seeds that exercise every sign pattern bit: seed 7's signs are
/// mixed).
const OPTIONS: [Fp4Options; 3] = [
    Fp4Options {
        rht: Some(7),
        sr: None,
    },
    Fp4Options {
        rht: None,
        sr: Some(3),
    },
    Fp4Options {
        rht: Some(u64::MAX),
        sr: Some(1 << 40),
    },
];

/// Quantizes `x` (tensor index `first` onwards) and dequantizes the CPU's bytes on both sides
/// with `opts`, and compares.
fn check(gpu: &Gpu, s: Scheme, x: &[f32], opts: Fp4Options, first: u64, case: &str) {
    let what = format!("{s} {opts:?} first {first}, {case} ({} weights)", x.len());
    let cpu = fp4_options::quantize(s, x, opts, first).unwrap();
    let got = block_on(quantize_with_options(gpu, s, x, opts, first))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_same_bytes(&format!("quantize {what}"), &got, &cpu);
    let cpu_y = fp4_options::dequantize(s, &cpu, opts).unwrap();
    let got_y = block_on(dequantize_with_options(gpu, s, &cpu, opts))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_same_weights(&format!("dequantize {what}"), &got_y, &cpu_y);
}

#[test]
fn the_options_match_the_cpu_on_seeded_tensors_of_several_sizes() {
    let Some(gpu) = gpu() else { return };
    for s in SCHEMES {
        let block = s.default_block();
        for opts in OPTIONS {
            // 1 block, 63 and 65 blocks (around one workgroup of code words), 300 blocks.
            for (i, blocks) in [1usize, 63, 65, 300].into_iter().enumerate() {
                let x = normal(blocks * block, 40 + i as u64, 0.02);
                check(gpu, s, &x, opts, 0, "normal(0, 0.02)");
            }
        }
    }
}

#[test]
fn the_options_match_the_cpu_on_ties_zeros_subnormals_nan_and_infinities() {
    let Some(gpu) = gpu() else { return };
    for s in SCHEMES {
        let block = s.default_block();
        for opts in OPTIONS {
            for (case, x) in special_blocks(64usize.next_multiple_of(block)) {
                check(gpu, s, &x, opts, 5, case);
            }
            check(gpu, s, &any_bits(block * 96, 9), opts, 0, "arbitrary bits");
            check(
                gpu,
                s,
                &wild_blocks(block * 96, block, 10),
                opts,
                0,
                "1e-42 to 1e38",
            );
        }
    }
}

/// Values a quarter, a half and three quarters of the way between grid points, on them, and
/// past the top (scale fixed by each block's 6.0), so stochastic rounding meets exact ties of
/// `rounds_up` and the codes at both ends; the first index crosses 2^32 inside the tensor, so
/// the high half of SR's counter carries.
#[test]
fn stochastic_rounding_matches_the_cpu_between_grid_points_and_across_2_to_the_32() {
    let Some(gpu) = gpu() else { return };
    let steps = [
        0.0f32, 0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 5.0,
    ];
    let x: Vec<f32> = (0..64 * 40)
        .map(|i| match i % 16 {
            0 => 6.0,
            k => steps[(i / 16 + k) % steps.len()] * if i % 3 == 0 { -1.0 } else { 1.0 },
        })
        .collect();
    for s in SCHEMES {
        for first in [0, (1u64 << 32) - 1000, u64::MAX - 1 - x.len() as u64] {
            check(gpu, s, &x, OPTIONS[1], first, "between grid points");
        }
    }
}

#[test]
fn the_options_match_the_cpu_across_many_chunks_and_parts() {
    let (Some(chunked), Some(tiny)) = (chunked_gpu(), tiny_chunk_gpu()) else {
        return;
    };
    for s in SCHEMES {
        let block = s.default_block();
        // Several chunks of SMALL_CHUNK weights (and a ragged last one), or forty of TINY_CHUNK.
        let n = (SMALL_CHUNK * 7 / 2).next_multiple_of(64) + 2 * block;
        let m = (TINY_CHUNK * 40 + 7).next_multiple_of(block);
        let x = normal(n.max(m), 77, 1.5);
        for opts in OPTIONS {
            check(chunked, s, &x, opts, 0, "seven chunks");
            check(
                chunked,
                s,
                &x,
                opts,
                123_456_789_000,
                "seven chunks, offset",
            );
            check(tiny, s, &x[..m], opts, 64, "forty tiny chunks");
            // Two parts with their offsets give the whole tensor's bytes.
            let cut = 10 * 64;
            let mut parts =
                block_on(quantize_with_options(chunked, s, &x[..cut], opts, 0)).unwrap();
            parts.extend(
                block_on(quantize_with_options(
                    chunked,
                    s,
                    &x[cut..],
                    opts,
                    cut as u64,
                ))
                .unwrap(),
            );
            let whole = fp4_options::quantize(s, &x, opts, 0).unwrap();
            assert_same_bytes(&format!("{s} {opts:?} in two parts"), &parts, &whole);
        }
    }
}

/// The comparison above would notice a kernel that drew by chunk index instead of tensor
/// index, ignored a seed, or skipped the inverse rotation: each gives other bytes or values.
#[test]
fn a_wrong_offset_seed_or_missing_inverse_is_caught() {
    let Some(gpu) = gpu() else { return };
    let x = normal(64 * 20, 5, 1.0);
    for s in SCHEMES {
        let both = OPTIONS[2];
        let cpu = fp4_options::quantize(s, &x, both, 0).unwrap();
        let shifted = block_on(quantize_with_options(gpu, s, &x, both, 1)).unwrap();
        assert_ne!(shifted, cpu, "{s}: SR's draws depend on the offset");
        let reseeded = Fp4Options {
            sr: Some(4),
            ..both
        };
        let other = block_on(quantize_with_options(gpu, s, &x, reseeded, 0)).unwrap();
        assert_ne!(other, cpu, "{s}: SR's draws depend on the seed");
        let rotated = Fp4Options {
            rht: Some(8),
            ..both
        };
        let other = block_on(quantize_with_options(gpu, s, &x, rotated, 0)).unwrap();
        assert_ne!(other, cpu, "{s}: the rotation depends on its seed");
        let plain = block_on(dequantize_with_options(gpu, s, &cpu, Fp4Options::NONE)).unwrap();
        let undone = fp4_options::dequantize(s, &cpu, both).unwrap();
        assert_ne!(
            plain.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            undone.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{s}: the inverse rotation changes the values"
        );
    }
}

#[test]
fn options_on_another_scheme_are_refused_with_the_cpus_words() {
    let Some(gpu) = gpu() else { return };
    let x = vec![1.0f32; 64];
    for (s, opts) in [(Scheme::Nf4, OPTIONS[0]), (Scheme::Bf16, OPTIONS[1])] {
        let want = fp4_options::quantize(s, &x, opts, 0)
            .unwrap_err()
            .to_string();
        let e = block_on(quantize_with_options(gpu, s, &x, opts, 0)).unwrap_err();
        assert!(e.to_string().contains(&want), "{e}");
        let e = block_on(dequantize_with_options(gpu, s, &[0; 36], opts)).unwrap_err();
        assert!(e.to_string().contains(&want), "{e}");
    }
    // Without options every scheme still quantizes.
    let plain = block_on(quantize_with_options(
        gpu,
        Scheme::Nf4,
        &x,
        Fp4Options::NONE,
        0,
    ));
    assert!(plain.is_ok());
}

/// The lab's streaming analysis with every part produced on the GPU (`produce_part`) gives the
/// CPU's row and charts exactly: each part quantized from its tensor index, the rotation undone.
#[test]
fn the_lab_gives_the_same_results_with_options_and_parts_made_on_the_gpu() {
    use bitbudget_math::quant::lab::{Overview, SchemeRun};
    let Some(gpu) = chunked_gpu() else { return };
    let mut x = normal(20_000, 12, 1.0);
    x[17] = f32::NAN;
    x[900] = f32::INFINITY;
    let overview = Overview::new(&x);
    for s in SCHEMES {
        for opts in OPTIONS {
            let what = format!("{s} {opts:?}");
            let new = || {
                SchemeRun::new(s, &x, s.default_block(), false, &overview, 4096).with_options(opts)
            };
            let (mut cpu, mut on_gpu) = (new(), new());
            assert!(cpu.parts() > 1, "{what}: several parts");
            crate::common::run_parts(gpu, &mut cpu, &mut on_gpu, &what);
            assert_eq!(
                format!("{:?}", on_gpu.finish()),
                format!("{:?}", cpu.finish()),
                "{what}"
            );
        }
    }
}
