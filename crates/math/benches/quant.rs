//! Quantization throughput per scheme, in bytes of f32 input per second (criterion): `quantize`
//! alone, and `lab`, the Quantize lab's whole pipeline (quantize, dequantize, metrics, histograms,
//! error map) as the page runs it.
//! Run: `cargo bench -p bitbudget-math --bench quant`. Targets: Q8_0 and absmax-int8 ≥ 2 GB/s.

use bitbudget_math::quant::codec::quantize;
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::analyse;
use bitbudget_math::quant::scheme::Scheme;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// One criterion group timing `run(scheme, x, default block)` for every scheme.
fn per_scheme(
    c: &mut Criterion,
    group: &str,
    samples: usize,
    x: &[f32],
    run: impl Fn(Scheme, &[f32], usize) -> Result<(), QuantError>,
) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes((x.len() * 4) as u64));
    group.sample_size(samples);
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        group.bench_function(s.name(), |b| {
            b.iter(|| run(s, std::hint::black_box(x), block).expect("whole blocks"))
        });
    }
    group.finish();
}

fn bench(c: &mut Criterion) {
    let x = generate(Distribution::Normal, 1024, 1024, 0.02, 1);
    per_scheme(c, "quantize", 20, &x, |s, x, b| {
        quantize(s, x, b).map(|_| ())
    });
    per_scheme(c, "lab", 10, &x, |s, x, b| {
        analyse(s, x, b, false).map(|_| ())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
