//! Throughput of the K-quants, IQ4_NL, NVFP4 and MX quantizers, in bytes of f32 input per second
//! (criterion), quantizing and dequantizing the same 1M-value N(0, 0.02²) tensor as the `quant`
//! bench, or the little-endian f32 file named by `KQUANT_BENCH_INPUT` (a multiple of 256 values).
//! `python3 scripts/build_llama_reference.py --bench --with-bitbudget` times llama.cpp's own C
//! reference and this bench on the same input file, one core each, and prints both.
//! Run: `cargo bench -p bitbudget-math --bench kquants`. Target: K-quants ≥ 0.3 GB/s in wasm.

use bitbudget_math::quant::codec::{dequantize, quantize};
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::scheme::Scheme;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

/// The schemes of this bench: the K-quants, IQ4_NL, NVFP4 and the MX formats, from the one list
/// of schemes (the `quant` bench covers the others).
fn schemes() -> impl Iterator<Item = Scheme> {
    Scheme::ALL.into_iter().filter(|s| {
        matches!(
            s,
            Scheme::KQuant(_) | Scheme::Iq4Nl | Scheme::Nvfp4 | Scheme::Mx(_)
        )
    })
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
    for (direction, samples) in [("quantize", 10), ("dequantize", 20)] {
        let mut group = c.benchmark_group(format!("kquants_{direction}"));
        group.throughput(Throughput::Bytes((x.len() * 4) as u64));
        group.sample_size(samples);
        for s in schemes() {
            let block = s.default_block();
            let bytes = quantize(s, &x, block).expect("whole blocks");
            group.bench_function(s.name(), |b| match direction {
                "quantize" => b.iter(|| quantize(s, black_box(&x), block).expect("whole blocks")),
                _ => b.iter(|| dequantize(s, black_box(&bytes), block).expect("whole blocks")),
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
