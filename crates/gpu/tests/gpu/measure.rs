//! The lab's measuring pass on the GPU (`bitbudget_gpu::measure_part`) against the CPU: each
//! part's summary against `bitbudget_math::quant::lab::summarize` (counts and both histograms
//! bin for bin, the fine error bins included; sums within `SUM_TOLERANCE`), and the whole lab
//! run (table row and chart data) against the CPU's. Inputs include NaN, ±∞, subnormals, every
//! f16 value of a range (so values sit on and beside every value-bin edge), and errors that sit
//! exactly on the error histogram's range or are tiny beside it, before and after it grows.

use crate::common::{any_bits, chunked_gpu, gpu, normal, tiny_chunk_gpu, TINY_CHUNK};
use bitbudget_gpu::{
    block_on, measure_part, metrics_within_tolerance, summary_within_tolerance, Gpu, SUM_TOLERANCE,
};
use bitbudget_math::format::half::f16_bits_to_f32;
use bitbudget_math::quant::fp4_options::{Fp4Options, SCHEMES as FP4_SCHEMES};
use bitbudget_math::quant::lab::{summarize, CpuBackend, Overview, PartBackend, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;

/// The schemes with kernels, NF4 also with double quantization.
fn cases() -> Vec<(Scheme, bool)> {
    let mut out = Vec::new();
    for s in Scheme::ALL {
        out.push((s, false));
        if s == Scheme::Nf4 {
            out.push((s, true));
        }
    }
    out
}

/// Runs the lab over `x` twice, on the CPU and with every part measured on `gpu`, checking each
/// part's summary and then the finished row and charts.
fn check_lab(gpu: &Gpu, s: Scheme, double_quant: bool, x: &[f32], target: usize, case: &str) {
    check_lab_with(gpu, s, double_quant, x, target, case, Fp4Options::NONE);
}

/// [`check_lab`] with NVFP4's and MXFP4's options.
fn check_lab_with(
    gpu: &Gpu,
    s: Scheme,
    double_quant: bool,
    x: &[f32],
    target: usize,
    case: &str,
    opts: Fp4Options,
) {
    let block = s.default_block();
    let what = format!("{s} dq={double_quant} {opts:?} {case}");
    let overview = Overview::new(x);
    let mut cpu = SchemeRun::new(s, x, block, double_quant, &overview, target).with_options(opts);
    let mut on_gpu =
        SchemeRun::new(s, x, block, double_quant, &overview, target).with_options(opts);
    while let Some(range) = on_gpu.next_part() {
        let setup = on_gpu.measure_setup();
        let padded = on_gpu.padded_part();
        let part = &x[range.clone()];
        let (bytes, summary) =
            block_on(measure_part(gpu, on_gpu.quantizer(), &setup, part, &padded))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        let produced = CpuBackend.produce(cpu.quantizer(), &padded).unwrap();
        assert!(
            bytes == produced.bytes,
            "{what}: part {range:?} bytes differ"
        );
        let reference = summarize(&setup, part, &produced.values[..part.len()]);
        let at = format!("{what} part {range:?}");
        summary_within_tolerance(&summary, &reference, &setup)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        on_gpu.measure_summary(&bytes, &summary).unwrap();
        cpu.measure(&produced).unwrap();
    }
    let (cpu_row, cpu_detail) = cpu.finish();
    let (gpu_row, gpu_detail) = on_gpu.finish();
    metrics_within_tolerance(&cpu_row.metrics, &gpu_row.metrics)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        (gpu_row.bytes, gpu_row.bits_per_weight),
        (cpu_row.bytes, cpu_row.bits_per_weight)
    );
    assert_eq!(
        gpu_detail.dequantized, cpu_detail.dequantized,
        "{what}: value histogram"
    );
    assert_eq!(
        gpu_detail.errors, cpu_detail.errors,
        "{what}: error histogram"
    );
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&gpu_detail.levels),
        bits(&cpu_detail.levels),
        "{what}: levels"
    );
    assert_eq!(
        gpu_detail.first.len(),
        cpu_detail.first.len(),
        "{what}: first values"
    );
    for (g, c) in gpu_detail.first.iter().zip(&cpu_detail.first) {
        assert_eq!(g.code, c.code, "{what}: first values");
        assert_eq!(
            g.dequantized.to_bits(),
            c.dequantized.to_bits(),
            "{what}: first values"
        );
    }
    assert_eq!(
        gpu_detail.heat.len(),
        cpu_detail.heat.len(),
        "{what}: error map"
    );
    // A cell is an f32 RMSE: within the tolerance, or one f32 step away (a subnormal RMSE has
    // fewer digits than the tolerance).
    for (k, (g, c)) in gpu_detail.heat.iter().zip(&cpu_detail.heat).enumerate() {
        let step = (g.to_bits() as i64 - c.to_bits() as i64).abs() <= 1;
        assert!(
            step || ((g - c) as f64).abs() <= SUM_TOLERANCE * *c as f64,
            "{what}: map cell {k}: {g} vs {c}"
        );
    }
}

#[test]
fn every_scheme_measures_on_the_gpu_as_on_the_cpu_in_one_chunk_and_in_many() {
    let Some(gpu) = gpu() else { return };
    let mut x = normal(20_000, 21, 0.02);
    x[17] = f32::NAN;
    x[900] = f32::INFINITY;
    x[901] = -3e-41;
    x[5000] = 7e-45;
    for (s, dq) in cases() {
        check_lab(gpu, s, dq, &x, 4096, "normal, one chunk a part");
    }
    let Some(chunked) = chunked_gpu() else { return };
    for (s, dq) in cases() {
        check_lab(chunked, s, dq, &x[..9000], 3000, "normal, chunks of 1000");
    }
}

#[test]
fn every_scheme_measures_the_same_through_dozens_of_double_buffered_chunks() {
    let Some(gpu) = tiny_chunk_gpu() else { return };
    // Parts of about 4096 values in chunks of a few blocks: each chunk's bytes and measurements
    // are read back while the next is computed; 4999 is not a multiple of the workgroup.
    let mut x = normal(4999, 23, 0.3);
    x[40] = f32::NAN;
    x[1000] = f32::NEG_INFINITY;
    x[3001] = 5e-42;
    for (s, dq) in cases() {
        check_lab(gpu, s, dq, &x, 4096, &format!("chunks of {TINY_CHUNK}"));
    }
}

#[test]
fn arbitrary_bit_patterns_measure_the_same() {
    let Some(gpu) = gpu() else { return };
    let x = any_bits(6000, 5);
    for (s, dq) in cases() {
        check_lab(gpu, s, dq, &x, 2048, "arbitrary bits");
    }
}

#[test]
fn every_f16_value_of_a_range_lands_in_the_cpus_value_bin() {
    let Some(gpu) = gpu() else { return };
    // f16 dequantizes these to themselves, so values sit on and beside every bin edge; two
    // ranges, one whose bin width is a power of two and one whose is not.
    for hi in [1.5f32, 1.3] {
        let mut x: Vec<f32> = (0..=0xffffu16)
            .map(f16_bits_to_f32)
            .filter(|v| (-1.0..=hi).contains(v))
            .collect();
        x.extend([f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0]);
        check_lab(
            gpu,
            Scheme::F16,
            false,
            &x,
            8192,
            &format!("f16 values in [-1, {hi}]"),
        );
    }
}

#[test]
fn errors_on_the_histograms_range_and_tiny_ones_beside_it_bin_as_when_they_arrived() {
    let Some(gpu) = gpu() else { return };
    // bf16: 259 rounds (ties to even) to 260, an error of exactly +1, the first and so the range
    // (top bin) until 2^40-sized values grow it; 1e-9-sized values have errors near 2^-39, tiny
    // (rounding onto 0's bin) only once the range is 2^15 or more.
    let small: Vec<f32> = (1..200)
        .map(|i| (i as f32) * 1.37e-9 * if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let big: Vec<f32> = (1..50)
        .map(|i| 2f32.powi(40) + (i as f32) * 3.3e9)
        .collect();
    let mut x = vec![259.0, -259.0, 0.0];
    x.extend(&small);
    x.push(259.0);
    x.extend(&big);
    x.extend(&small);
    x.extend([259.0, f32::NAN, f32::INFINITY]);
    x.extend(&small);
    for target in [64, 1000] {
        check_lab(
            gpu,
            Scheme::Bf16,
            false,
            &x,
            target,
            &format!("parts of {target}"),
        );
        if let Some(chunked) = chunked_gpu() {
            check_lab(
                chunked,
                Scheme::Bf16,
                false,
                &x,
                target,
                &format!("parts of {target}, chunked"),
            );
        }
        // Chunks of a few values: the range grows between chunks of one part, which the
        // kernels learn on the device (the chunk before is not read back yet).
        if let Some(tiny) = tiny_chunk_gpu() {
            check_lab(
                tiny,
                Scheme::Bf16,
                false,
                &x,
                target,
                &format!("parts of {target}, chunks of {TINY_CHUNK}"),
            );
        }
    }
}

#[test]
fn a_tensor_of_subnormals_measures_the_same() {
    let Some(gpu) = gpu() else { return };
    // Every value, error and square is subnormal or smaller: the per-tile scaling on the bits
    // must keep the sums, and the largest error is one subnormal step from the CPU's at most.
    let x: Vec<f32> = normal(3000, 8, 1.0)
        .into_iter()
        .map(|v| f32::from_bits((v.to_bits() & 0x8000_0000) | (v.to_bits() & 0x007f_ffff)))
        .collect();
    for (s, dq) in cases() {
        check_lab(gpu, s, dq, &x, 1024, "subnormals");
    }
}

/// NVFP4 and MXFP4 with the random Hadamard transform and stochastic rounding: every part's bytes
/// are the CPU's (SR drawing by tensor index across parts and chunks), and the measured row and
/// charts are the CPU's within the tolerance.
#[test]
fn the_fp4_options_measure_on_the_gpu_as_on_the_cpu_across_parts_and_chunks() {
    let (Some(gpu), Some(chunked)) = (gpu(), chunked_gpu()) else {
        return;
    };
    let mut x = normal(12_000, 21, 0.7);
    x[5] = f32::NAN;
    x[700] = f32::INFINITY;
    x[1401] = -3e-41;
    let options = [
        Fp4Options {
            rht: Some(7),
            sr: None,
        },
        Fp4Options {
            rht: None,
            sr: Some(3),
        },
        Fp4Options {
            rht: Some(7),
            sr: Some(3),
        },
    ];
    // Round to nearest's bias: every 16 values a 6.0 and the rest a quarter of the way from
    // one E2M1 step to the next, all rounded down (the mean error is far from 0, and its sign
    // is checked).
    let biased: Vec<f32> = (0..8192)
        .map(|i| if i % 16 == 0 { 6.0 } else { 1.25 })
        .collect();
    for s in FP4_SCHEMES {
        check_lab(gpu, s, false, &biased, 4096, "biased");
        for opts in options {
            check_lab_with(gpu, s, false, &x, 4096, "parts of 4096", opts);
            check_lab_with(chunked, s, false, &x[..9000], 3000, "chunks of 1000", opts);
        }
    }
}
