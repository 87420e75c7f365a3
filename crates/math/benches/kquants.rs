//! Throughput of the K-quants, IQ4_NL, NVFP4 and MX quantizers, in bytes of f32 input per second
//! (criterion), quantizing and dequantizing the same 1M-value N(0, 0.02²) tensor as the `quant`
//! bench, or the little-endian f32 file named by `KQUANT_BENCH_INPUT` (a multiple of 256 values).
//! `python3 scripts/build_llama_reference.py --bench --with-bitbudget` times llama.cpp's own C
//! reference and this bench on the same input file, one core each, and prints both.
//! Run: `cargo bench -p bitbudget-math --bench kquants`. Target: K-quants ≥ 0.3 GB/s in wasm.

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::kquants::{q2_k, q3_k, q4_k, q5_k, q6_k, LengthError};
use bitbudget_math::quant::mx::{self, MxFormat};
use bitbudget_math::quant::{iq4_nl, nvfp4};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

type Quantize = Box<dyn Fn(&[f32], &mut [u8]) -> Result<(), LengthError>>;
type Dequantize = Box<dyn Fn(&[u8], &mut [f32]) -> Result<(), LengthError>>;

/// (name, bytes per 256 values, quantize, dequantize) for every scheme of this bench.
fn schemes() -> Vec<(&'static str, usize, Quantize, Dequantize)> {
    let mut v: Vec<(&'static str, usize, Quantize, Dequantize)> = vec![
        (
            "q2_K",
            q2_k::BLOCK_BYTES,
            Box::new(q2_k::quantize),
            Box::new(q2_k::dequantize),
        ),
        (
            "q3_K",
            q3_k::BLOCK_BYTES,
            Box::new(q3_k::quantize),
            Box::new(q3_k::dequantize),
        ),
        (
            "q4_K",
            q4_k::BLOCK_BYTES,
            Box::new(q4_k::quantize),
            Box::new(q4_k::dequantize),
        ),
        (
            "q5_K",
            q5_k::BLOCK_BYTES,
            Box::new(q5_k::quantize),
            Box::new(q5_k::dequantize),
        ),
        (
            "q6_K",
            q6_k::BLOCK_BYTES,
            Box::new(q6_k::quantize),
            Box::new(q6_k::dequantize),
        ),
        (
            "iq4_nl",
            iq4_nl::BLOCK_BYTES * 8,
            Box::new(iq4_nl::quantize),
            Box::new(iq4_nl::dequantize),
        ),
        (
            "nvfp4",
            nvfp4::BLOCK_BYTES * 4,
            Box::new(nvfp4::quantize),
            Box::new(nvfp4::dequantize),
        ),
    ];
    for f in MxFormat::ALL {
        v.push((
            f.name(),
            f.block_bytes() * 8,
            Box::new(move |x, o| mx::quantize(f, x, o)),
            Box::new(move |b, y| mx::dequantize(f, b, y)),
        ));
    }
    v
}

/// The benchmark input: the file named by `KQUANT_BENCH_INPUT`, else a generated tensor.
fn input() -> Vec<f32> {
    match std::env::var_os("KQUANT_BENCH_INPUT") {
        Some(path) => {
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("KQUANT_BENCH_INPUT {}: {e}", path.to_string_lossy()));
            let x: Vec<f32> = bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            assert!(
                !x.is_empty() && x.len() % 256 == 0,
                "KQUANT_BENCH_INPUT must hold a multiple of 256 f32 values, not {}",
                x.len()
            );
            x
        }
        None => generate(Distribution::Normal, 1024, 1024, 0.02, 1),
    }
}

fn bench(c: &mut Criterion) {
    let x = input();
    let mut y = vec![0f32; x.len()];
    for (direction, samples) in [("quantize", 10), ("dequantize", 20)] {
        let mut group = c.benchmark_group(format!("kquants_{direction}"));
        group.throughput(Throughput::Bytes((x.len() * 4) as u64));
        group.sample_size(samples);
        for (name, bytes_per_256, quantize, dequantize) in schemes() {
            let mut blocks = vec![0u8; x.len() / 256 * bytes_per_256];
            quantize(&x, &mut blocks).expect("whole blocks");
            group.bench_function(name, |b| match direction {
                "quantize" => {
                    b.iter(|| quantize(black_box(&x), &mut blocks).expect("whole blocks"))
                }
                _ => b.iter(|| dequantize(black_box(&blocks), &mut y).expect("whole blocks")),
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
