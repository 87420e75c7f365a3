//! CPU vs GPU throughput (f32 input bytes per second), criterion: quantize alone, and the lab's
//! whole pipeline (quantize, dequantize, measure: `analyse` on the CPU, `measure_part` per part
//! on the GPU).
//! Tensors of 256K, 1M, 4M, 16M and 64M weights (from 1M unless narrowed with
//! `BITBUDGET_BENCH_MIN_WEIGHTS` and `BITBUDGET_BENCH_MAX_WEIGHTS`, e.g. 4194304, on slow
//! adapters); schemes with `BITBUDGET_BENCH_SCHEMES` (default "q8_0 nf4 f8e4m3 bf16").
//! `BITBUDGET_BENCH_CHUNK_WEIGHTS` caps the GPU's chunks (`Gpu::with_chunk_limit`), to measure
//! streaming in many chunks; `BITBUDGET_BENCH_CPU=0` leaves out the CPU rows and
//! `BITBUDGET_BENCH_PHASES=0` the phase lines (to compare two builds of the GPU side quickly).
//! The GPU time includes upload, both dispatches and readback: what a caller waits for. After
//! each GPU measurement, the median of 5 `quantize_timed` calls splits it into upload, compute
//! and readback (compute from timestamp queries when the adapter offers them, else host timing
//! around separate submissions; the line says which), printed to stderr.
//! Run: `WGPU_BACKEND=vulkan cargo bench -p bitbudget-gpu --bench quantize`. On Mesa lavapipe
//! the "GPU" is an emulation on the CPU's own cores, so its numbers say nothing about real GPUs.

// Native only: in the browser the GPU is timed by the app's benchmark panel.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use bitbudget_gpu::{block_on, Gpu};
    use bitbudget_math::quant::codec::quantize;
    use bitbudget_math::quant::generate::{generate, Distribution};
    use bitbudget_math::quant::lab::analyse;
    use bitbudget_math::quant::scheme::Scheme;
    use criterion::{criterion_group, Criterion, Throughput};

    fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }

    fn bench(c: &mut Criterion) {
        let chunk: usize = env_or("BITBUDGET_BENCH_CHUNK_WEIGHTS", 0);
        let gpu = match block_on(Gpu::new()) {
            Ok(gpu) if chunk > 0 => Some(gpu.with_chunk_limit(chunk)),
            Ok(gpu) => Some(gpu),
            Err(e) => {
                eprintln!("\n*** SKIPPED: GPU side of the benchmark: {e} ***\n");
                None
            }
        };
        if let Some(gpu) = &gpu {
            eprintln!("GPU: {} ({:?})", gpu.name(), gpu.info().backend);
        }
        let cpu = env_or("BITBUDGET_BENCH_CPU", 1) == 1;
        let phases_too = env_or("BITBUDGET_BENCH_PHASES", 1) == 1;
        let min: usize = env_or("BITBUDGET_BENCH_MIN_WEIGHTS", 1 << 20);
        let max: usize = env_or("BITBUDGET_BENCH_MAX_WEIGHTS", 64 << 20);
        let schemes: Vec<Scheme> = env_or(
            "BITBUDGET_BENCH_SCHEMES",
            "q8_0 nf4 f8e4m3 bf16".to_string(),
        )
        .split_whitespace()
        .map(|s| s.parse().expect("a scheme name"))
        .collect();
        for weights in [1usize << 18, 1 << 20, 4 << 20, 16 << 20, 64 << 20] {
            if weights < min || weights > max {
                continue;
            }
            let x = generate(Distribution::Normal, weights / 1024, 1024, 0.02, 1);
            let size = match weights >> 20 {
                0 => format!("{}K", weights >> 10),
                m => format!("{m}M"),
            };
            let mut group = c.benchmark_group(format!("quantize {size} weights"));
            group.throughput(Throughput::Bytes((weights * 4) as u64));
            group.sample_size(10);
            for &s in &schemes {
                let block = s.block(None).expect("default block");
                if cpu {
                    group.bench_function(format!("{s} cpu"), |b| {
                        b.iter(|| {
                            quantize(s, std::hint::black_box(&x), block).expect("whole blocks")
                        })
                    });
                }
                if let Some(gpu) = &gpu {
                    group.bench_function(format!("{s} gpu"), |b| {
                        b.iter(|| {
                            block_on(bitbudget_gpu::quantize(
                                gpu,
                                s,
                                std::hint::black_box(&x),
                                block,
                            ))
                            .expect("whole blocks")
                        })
                    });
                    if phases_too {
                        phases(gpu, s, &x, block);
                    }
                }
                if cpu {
                    group.bench_function(format!("{s} whole lab cpu"), |b| {
                        b.iter(|| analyse(s, std::hint::black_box(&x), block, false).expect("runs"))
                    });
                }
                if let Some(gpu) = &gpu {
                    group.bench_function(format!("{s} whole lab gpu"), |b| {
                        b.iter(|| {
                            let x = std::hint::black_box(&x);
                            block_on(bitbudget_gpu::analyse(
                                gpu,
                                s,
                                x,
                                block,
                                false,
                                1 << 22,
                                Default::default(),
                            ))
                            .expect("a GPU analysis")
                        })
                    });
                }
            }
            group.finish();
        }
    }

    /// Prints the median upload, compute and readback times of 5 timed GPU quantizations.
    fn phases(gpu: &Gpu, s: Scheme, x: &[f32], block: usize) {
        let start = std::time::Instant::now();
        let now = move || start.elapsed().as_secs_f64() * 1e3;
        let mut runs: Vec<bitbudget_gpu::Timings> = (0..5)
            .map(|_| {
                block_on(bitbudget_gpu::quantize_timed(gpu, s, x, block, &now))
                    .expect("whole blocks")
                    .1
            })
            .collect();
        let median = |runs: &mut Vec<bitbudget_gpu::Timings>,
                      f: fn(&bitbudget_gpu::Timings) -> f64| {
            runs.sort_by(|a, b| f(a).total_cmp(&f(b)));
            f(&runs[runs.len() / 2])
        };
        let up = median(&mut runs, |t| t.upload_ms);
        let compute = median(&mut runs, |t| t.compute_ms);
        let back = median(&mut runs, |t| t.readback_ms);
        let gbps = |ms: f64| (x.len() * 4) as f64 / (ms / 1e3) / 1e9;
        eprintln!(
            "{s} gpu {}M phases (median of 5): upload {up:.2} ms, compute {compute:.2} ms \
             ({:.2} GB/s of input, by {}), readback {back:.2} ms",
            x.len() >> 20,
            gbps(compute),
            runs[0].clock.label()
        );
    }

    criterion_group!(benches, bench);
}
