//! The Quantize lab's measuring pass alone (metrics, value and error histograms, error map,
//! first values, peak levels: `SchemeRun::measure`) on parts already quantized and dequantized,
//! in bytes of f32 input per second of the thread's CPU time on one core (criterion), per scheme, on a 4M-value
//! N(0, 0.02²) tensor (`lab_measure`, which includes `SchemeRun::new`: for FP8 a pass that finds
//! the per-tensor scale); and the whole pipeline, `lab::analyse` (quantize, dequantize, measure:
//! `lab_pipeline`). The same file builds against older trees of the crate, so
//! `scripts/bench_lab_before_after.py` times main's code and this tree's in one run.
//! Run: `cargo bench -p bitbudget-math --bench lab_measure`. Targets: Q8_0's measuring pass
//! ≥ 1 GB/s natively; every scheme's pipeline ≥ 3× main's.

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::{analyse, Overview, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;
use cpu_time::ThreadCpuTime;
use criterion::{Criterion, Throughput};
use lab_parts::produced_parts;

#[macro_use]
#[path = "common/cpu_time.rs"]
mod cpu_time;
#[path = "common/lab_parts.rs"]
mod lab_parts;

/// Values per part, as `lab::analyse` uses.
const PART: usize = 1 << 18;

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    let x = generate(Distribution::Normal, 4096, 1024, 0.02, 1);
    let overview = Overview::new(&x);
    let mut group = c.benchmark_group("lab_measure");
    group.throughput(Throughput::Bytes((x.len() * 4) as u64));
    group.sample_size(10);
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        let parts = produced_parts(SchemeRun::new(s, &x, block, false, &overview, PART));
        group.bench_function(s.name(), |b| {
            b.iter(|| {
                let mut run = SchemeRun::new(s, &x, block, false, &overview, PART);
                for part in &parts {
                    run.measure(part).expect("part lengths");
                }
                run.finish()
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("lab_pipeline");
    group.throughput(Throughput::Bytes((x.len() * 4) as u64));
    group.sample_size(10);
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        group.bench_function(s.name(), |b| {
            b.iter(|| analyse(s, &x, block, false).expect("whole blocks"))
        });
    }
    group.finish();
}

cpu_time_main!(bench);
