//! Quantization throughput per scheme, in bytes of f32 input per second (criterion): `quantize`
//! alone, and `lab`, the Quantize lab's whole pipeline (quantize, dequantize, metrics, histograms,
//! error map) as the page runs it.
//! Run: `cargo bench -p bitbudget-math --bench quant`. Targets: Q8_0 and absmax-int8 ≥ 2 GB/s.

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::analyse;
use bitbudget_math::quant::scheme::{quantize, Scheme};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let x = generate(Distribution::Normal, 1024, 1024, 0.02, 1);
    let mut group = c.benchmark_group("quantize");
    group.throughput(Throughput::Bytes((x.len() * 4) as u64));
    group.sample_size(20);
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        group.bench_function(s.name(), |b| {
            b.iter(|| quantize(s, std::hint::black_box(&x), block).expect("whole blocks"))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("lab");
    group.throughput(Throughput::Bytes((x.len() * 4) as u64));
    group.sample_size(10);
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        group.bench_function(s.name(), |b| {
            b.iter(|| analyse(s, std::hint::black_box(&x), block, false).expect("analysed"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
