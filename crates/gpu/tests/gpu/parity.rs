//! Every GPU kernel against the CPU reference (`bitbudget_math::quant::scheme`) on the same
//! input: seeded tensors of several sizes (1 block, sizes that are not a multiple of the
//! 64-invocation workgroup, and tensors larger than one chunk), and hand-made blocks of ties,
//! zeros, subnormals, NaN and ±∞. Quantized bytes must be identical; dequantized weights must have
//! identical bits (NaN only has to be NaN: Rust does not specify NaN payloads, nor does WGSL).

use crate::common::{
    any_bits, assert_same_bytes, assert_same_weights, chunked_gpu, gpu, normal, special_blocks,
    tiny_chunk_gpu, wild_blocks, SMALL_CHUNK, TINY_CHUNK,
};
use bitbudget_gpu::{block_on, Gpu};
use bitbudget_math::quant::codec;
use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::scheme::Scheme;

/// The block size each scheme is tested with, besides its default.
fn blocks_of(s: Scheme) -> Vec<usize> {
    match s {
        Scheme::Nf4 | Scheme::ZeroPointInt4 => vec![64, 2, 6, 128],
        Scheme::AbsmaxInt8 | Scheme::ZeroPointUint8 => vec![64, 1, 3, 7, 128],
        _ => vec![s.default_block()],
    }
}

/// Quantizes and dequantizes `x` on both sides and compares.
fn check(gpu: &Gpu, s: Scheme, x: &[f32], block: usize, case: &str) {
    let what = format!("{s} block {block}, {case} ({} weights)", x.len());
    let cpu = codec::quantize(s, x, block).unwrap();
    let got = block_on(bitbudget_gpu::quantize(gpu, s, x, block))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_same_bytes(&format!("quantize {what}"), &got, &cpu);
    let cpu_y = codec::dequantize(s, &cpu, block).unwrap();
    let got_y = block_on(bitbudget_gpu::dequantize(gpu, s, &cpu, block))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_same_weights(&format!("dequantize {what}"), &got_y, &cpu_y);
}

#[test]
fn every_scheme_matches_the_cpu_on_seeded_tensors_of_several_sizes() {
    let Some(gpu) = gpu() else { return };
    for s in Scheme::ALL {
        for block in blocks_of(s) {
            // 1 block, 63 and 65 blocks (around one workgroup of code words or blocks), and a
            // size that is not a power of two.
            for (i, blocks) in [1usize, 63, 65, 300].into_iter().enumerate() {
                let n = blocks * block.max(if block == 1 { 37 } else { 1 });
                let x = normal(n, 17 + i as u64, 0.02);
                check(gpu, s, &x, block, "normal(0, 0.02)");
            }
        }
    }
}

#[test]
fn every_scheme_matches_the_cpu_on_arbitrary_bit_patterns() {
    let Some(gpu) = gpu() else { return };
    for s in Scheme::ALL {
        for block in blocks_of(s) {
            let n = block * 96;
            check(gpu, s, &any_bits(n, 5), block, "arbitrary f32 bit patterns");
            check(
                gpu,
                s,
                &wild_blocks(n, block, 6),
                block,
                "magnitudes 1e-42 to 1e38",
            );
        }
    }
}

#[test]
fn every_scheme_matches_the_cpu_across_chunks() {
    let Some(gpu) = chunked_gpu() else { return };
    for s in Scheme::ALL {
        let block = s.block(None).unwrap();
        // Several chunks of SMALL_CHUNK weights and a ragged last one.
        let n = (SMALL_CHUNK * 7 / 2).next_multiple_of(block.max(32) * 2) + 2 * block;
        check(gpu, s, &normal(n, 99, 1.5), block, "seven chunks");
    }
}

#[test]
fn every_scheme_matches_the_cpu_through_dozens_of_double_buffered_chunks() {
    let Some(gpu) = tiny_chunk_gpu() else { return };
    for s in Scheme::ALL {
        let block = s.block(None).unwrap();
        // About forty chunks of a few blocks (chunk k + 1 is written and computed while chunk k
        // is read back), a length that is not a multiple of the workgroup, a ragged last chunk.
        let n = (TINY_CHUNK * 40 + 7).next_multiple_of(block);
        check(gpu, s, &normal(n, 98, 0.7), block, "forty tiny chunks");
    }
    // The double quantization's own pass, chunked in whole groups of 256 block scales.
    let x = normal(64 * 256 * 3 + 64 * 5, 97, 0.05);
    let cpu = codec::nf4_double_quant_bytes(&x, 64).unwrap();
    let got = block_on(bitbudget_gpu::nf4_double_quant_bytes(gpu, &x, 64)).unwrap();
    assert_same_bytes("nf4 double quantization, tiny chunks", &got, &cpu);
}

#[test]
fn every_scheme_matches_the_cpu_on_ties_zeros_subnormals_nan_and_infinities() {
    let Some(gpu) = gpu() else { return };
    for s in Scheme::ALL {
        for block in blocks_of(s) {
            let len = 64usize.next_multiple_of(block);
            for (case, x) in special_blocks(len) {
                check(gpu, s, &x, block, case);
            }
        }
    }
}

#[test]
fn casts_and_fp8_match_the_cpu_on_every_midpoint_and_a_stride_through_all_f32() {
    let Some(gpu) = gpu() else { return };
    // Every bf16 midpoint (low half 0x8000) and its neighbours: the ties of both 16-bit casts
    // and, after FP8's scaling, many of its own.
    let mut x: Vec<f32> = (0..=u16::MAX)
        .flat_map(|h| {
            let mid = ((h as u32) << 16) | 0x8000;
            [mid - 1, mid, mid + 1].map(f32::from_bits)
        })
        .collect();
    x.extend((0..=u32::MAX).step_by(4099).map(f32::from_bits));
    for s in [Scheme::Bf16, Scheme::F16] {
        check(gpu, s, &x, 1, "midpoints and a stride through all f32");
    }
    // FP8 with a scale of exactly 1 (amax = the format's max): every FP8 value, midpoint and
    // neighbour, of both signs.
    for (s, max) in [(Scheme::F8E4M3, 448f32), (Scheme::F8E5M2, 57344f32)] {
        let codec = |b: u8| codec::dequantize(s, &[0, 0, 0x80, 0x3f, b], 1).unwrap()[0];
        let mut values: Vec<f32> = (0..0x7f).map(codec).filter(|v| v.is_finite()).collect();
        values.sort_by(f32::total_cmp);
        let mut x = vec![max];
        for w in values.windows(2) {
            let mid = ((w[0] as f64 + w[1] as f64) / 2.0) as f32;
            for v in [w[0], mid] {
                for d in -2i32..=2 {
                    let n = f32::from_bits((v.to_bits() as i32 + d).max(0) as u32);
                    x.extend([n, -n]);
                }
            }
        }
        check(
            gpu,
            s,
            &x,
            1,
            "every value, midpoint and neighbour at scale 1",
        );
    }
}

/// The newer schemes (the K-quants and IQ4_NL), whose dequantizers also get the CPU's bytes of
/// inputs the round trip above does not make.
fn newer_schemes() -> impl Iterator<Item = Scheme> {
    Scheme::ALL
        .into_iter()
        .filter(|s| matches!(s, Scheme::KQuant(_) | Scheme::Iq4Nl))
}

/// Dequantizes the CPU's bytes of `x` on both sides and compares.
fn check_dequantize(gpu: &Gpu, s: Scheme, x: &[f32], case: &str) {
    let block = s.default_block();
    let what = format!("dequantize {s}, {case} ({} weights)", x.len());
    let bytes = codec::quantize(s, x, block).unwrap();
    let want = codec::dequantize(s, &bytes, block).unwrap();
    let got = block_on(bitbudget_gpu::dequantize(gpu, s, &bytes, block))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_same_weights(&what, &got, &want);
}

#[test]
fn the_newer_schemes_dequantize_like_the_cpu_on_every_kind_of_input() {
    let (Some(gpu), Some(chunked)) = (gpu(), chunked_gpu()) else {
        return;
    };
    let mut schemes = 0;
    for s in newer_schemes() {
        schemes += 1;
        let block = s.default_block();
        // 1 block, 63 and 65 blocks (weights not a multiple of the 64-invocation workgroup for
        // the 32-weight blocks), 300 blocks.
        for (i, blocks) in [1usize, 63, 65, 300].into_iter().enumerate() {
            check_dequantize(
                gpu,
                s,
                &normal(blocks * block, 31 + i as u64, 0.02),
                "normal",
            );
        }
        for (case, x) in special_blocks(64usize.next_multiple_of(block)) {
            check_dequantize(gpu, s, &x, case);
        }
        check_dequantize(
            gpu,
            s,
            &any_bits(block * 96, 7),
            "arbitrary f32 bit patterns",
        );
        check_dequantize(
            gpu,
            s,
            &wild_blocks(block * 96, block, 8),
            "magnitudes 1e-42 to 1e38",
        );
        // Several chunks of SMALL_CHUNK weights and a ragged last one.
        let n = (SMALL_CHUNK * 7 / 2).next_multiple_of(block) + block;
        check_dequantize(chunked, s, &normal(n, 98, 1.5), "seven chunks");
    }
    assert_eq!(schemes, 6, "q2_k…q6_k and iq4_nl");
}

#[test]
fn dequantize_matches_the_cpu_on_arbitrary_bytes() {
    let Some(gpu) = gpu() else { return };
    // Random headers include f16 NaN, ±∞ and subnormal scales, and extreme f32 scales (and for
    // the newer schemes every sub-block scale, UE4M3 and E8M0 byte, NaN scales included).
    let mut rng = SplitMix64(23);
    for s in Scheme::ALL {
        let block = s.block(None).unwrap();
        let n = block.max(32) * 70;
        let cpu = codec::quantize(s, &vec![0.0; n], block).unwrap();
        let bytes: Vec<u8> = (0..cpu.len()).map(|_| rng.next_u64() as u8).collect();
        let want = codec::dequantize(s, &bytes, block).unwrap();
        let got = block_on(bitbudget_gpu::dequantize(gpu, s, &bytes, block)).unwrap();
        assert_same_weights(&format!("dequantize {s} of random bytes"), &got, &want);
    }
}

#[test]
fn nf4_double_quantization_matches_the_cpu_within_and_across_chunks() {
    for (gpu, n) in [(gpu(), 64 * 700), (chunked_gpu(), 64 * 600)] {
        let Some(gpu) = gpu else { return };
        for (case, x) in [
            ("normal", normal(n, 3, 0.05)),
            ("magnitudes 1e-42 to 1e38", wild_blocks(n, 64, 4)),
            ("zeros", vec![0.0; n]),
            (
                "an infinite block (the mean and some reconstructions are NaN)",
                (0..n)
                    .map(|i| {
                        if i == 100 {
                            f32::INFINITY
                        } else {
                            i as f32 * 1e-3
                        }
                    })
                    .collect(),
            ),
        ] {
            let cpu = codec::nf4_double_quant_bytes(&x, 64).unwrap();
            let got = block_on(bitbudget_gpu::nf4_double_quant_bytes(gpu, &x, 64)).unwrap();
            assert_same_bytes(&format!("nf4 double quantization, {case}"), &got, &cpu);
        }
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let Some(gpu) = gpu() else { return };
    let q = |s, x: &[f32], b| block_on(bitbudget_gpu::quantize(gpu, s, x, b));
    let e = q(Scheme::AbsmaxInt8, &[1.0; 65], 64)
        .unwrap_err()
        .to_string();
    assert!(e.contains("1 left over"), "{e}");
    assert!(q(Scheme::AbsmaxInt8, &[1.0; 4], 0).is_err());
    assert!(q(Scheme::Nf4, &[1.0; 6], 3)
        .unwrap_err()
        .to_string()
        .contains("even"));
    let d = |s, b: &[u8]| block_on(bitbudget_gpu::dequantize(gpu, s, b, 32));
    assert!(d(
        Scheme::Ggml(bitbudget_math::quant::ggml::GgmlType::Q8_0),
        &[0; 35]
    )
    .is_err());
    assert!(d(Scheme::F8E4M3, &[0; 3])
        .unwrap_err()
        .to_string()
        .contains("too short"));
    assert!(d(Scheme::Bf16, &[0; 3]).is_err());
    // Empty tensors give what the CPU gives.
    for s in Scheme::ALL {
        let block = s.block(None).unwrap();
        assert_eq!(
            q(s, &[], block).unwrap(),
            codec::quantize(s, &[], block).unwrap(),
            "{s}"
        );
    }
}

#[test]
fn the_context_names_its_adapter_and_limits() {
    let Some(gpu) = gpu() else { return };
    assert!(!gpu.name().is_empty());
    assert!(gpu.limits().max_storage_buffer_binding_size >= 1 << 20);
    eprintln!(
        "GPU parity tests ran on {} ({:?}); largest storage binding {} bytes, {} workgroups per \
         dimension",
        gpu.name(),
        gpu.info().backend,
        gpu.limits().max_storage_buffer_binding_size,
        gpu.limits().max_compute_workgroups_per_dimension
    );
}

/// The lab's streaming analysis with the GPU producing every part gives the same table row and
/// charts as with the CPU: per-tensor FP8 scales and NF4 double quantization's mean come from the
/// whole tensor, parts are several blocks (and the last one padded), values include NaN and ±∞.
#[test]
fn the_lab_gives_the_same_results_with_parts_made_on_the_gpu() {
    use bitbudget_math::quant::lab::{Overview, SchemeRun};
    let Some(gpu) = gpu() else { return };
    let mut x = normal(40_000, 11, 1.0);
    x[17] = f32::NAN;
    x[900] = f32::INFINITY;
    x[901] = -3e-41;
    let overview = Overview::new(&x);
    for s in Scheme::ALL {
        for double_quant in [false, true] {
            if double_quant && s != Scheme::Nf4 {
                continue;
            }
            let block = s.default_block();
            let what = format!("{s} block {block} double quant {double_quant}");
            let mut cpu = SchemeRun::new(s, &x, block, double_quant, &overview, 4096);
            let mut on_gpu = SchemeRun::new(s, &x, block, double_quant, &overview, 4096);
            assert!(cpu.parts() > 1, "{what}: several parts");
            crate::common::run_parts(gpu, &mut cpu, &mut on_gpu, &what);
            assert!(on_gpu.done(), "{what}");
            let (cpu_row, cpu_detail) = cpu.finish();
            let (gpu_row, gpu_detail) = on_gpu.finish();
            assert_eq!(
                format!("{gpu_row:?}"),
                format!("{cpu_row:?}"),
                "{what}: table row"
            );
            assert_eq!(
                format!("{gpu_detail:?}"),
                format!("{cpu_detail:?}"),
                "{what}: chart data"
            );
        }
    }
}

/// `quantize_timed` gives `quantize`'s bytes, with every phase timed, across chunks and through
/// FP8's two passes; compute comes from timestamp queries exactly when the device has them.
#[test]
fn timed_quantization_gives_the_same_bytes_and_times_each_phase() {
    for gpu in [gpu(), chunked_gpu()].into_iter().flatten() {
        let start = std::time::Instant::now();
        let now = move || start.elapsed().as_secs_f64() * 1e3;
        let x = normal(5024, 3, 1.0);
        for s in ["q8_0", "f8e4m3", "bf16"] {
            let s: Scheme = s.parse().unwrap();
            let block = s.default_block();
            let plain = block_on(bitbudget_gpu::quantize(gpu, s, &x, block)).unwrap();
            let (bytes, t) =
                block_on(bitbudget_gpu::quantize_timed(gpu, s, &x, block, &now)).unwrap();
            assert_eq!(bytes, plain, "{s}");
            assert!(
                t.upload_ms > 0.0 && t.compute_ms > 0.0 && t.readback_ms > 0.0,
                "{s}: {t:?}"
            );
            let stamped = t.clock == bitbudget_gpu::ComputeClock::Timestamps;
            assert_eq!(stamped, gpu.has_timestamps(), "{s}: {t:?}");
        }
    }
}

/// fp8-128x128 with column counts that are and are not multiples of 128 (partial blocks at the
/// right edge), row counts around a band (partial blocks at the bottom), seeded, arbitrary and
/// wild inputs, one chunk and many.
#[test]
fn fp8_128x128_matches_the_cpu_on_every_edge_of_its_blocks() {
    let (Some(gpu), Some(chunked)) = (gpu(), chunked_gpu()) else {
        return;
    };
    let s = Scheme::Fp8Block;
    for cols in [1usize, 64, 130, 256, 300] {
        for (i, rows) in [1usize, 127, 128, 129, 300].into_iter().enumerate() {
            let n = rows * cols;
            let seed = (cols * 10 + i) as u64;
            check(gpu, s, &normal(n, seed, 0.02), cols, "normal(0, 0.02)");
            check(
                gpu,
                s,
                &any_bits(n, seed),
                cols,
                "arbitrary f32 bit patterns",
            );
            check(
                gpu,
                s,
                &wild_blocks(n, 97, seed),
                cols,
                "magnitudes 1e-42 to 1e38",
            );
        }
        let n = (SMALL_CHUNK * 3).next_multiple_of(128 * cols) + 5 * cols;
        check(
            chunked,
            s,
            &normal(n, 5, 1.5),
            cols,
            "several chunks of bands",
        );
    }
    // Bad shapes are errors with the CPU's words.
    let e = block_on(bitbudget_gpu::quantize(gpu, s, &[1.0; 600], 7))
        .unwrap_err()
        .to_string();
    assert!(e.contains("rows of 7 columns"), "{e}");
    assert!(block_on(bitbudget_gpu::quantize(gpu, s, &[1.0; 4], 0)).is_err());
    let bytes = codec::quantize(s, &[1.0; 600], 200).unwrap();
    assert!(block_on(bitbudget_gpu::dequantize(
        gpu,
        s,
        &bytes[..bytes.len() - 3],
        200
    ))
    .is_err());
}
