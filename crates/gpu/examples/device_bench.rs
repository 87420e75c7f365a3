//! One fixed measurement of the native GPU path for `scripts/device_check.sh`: for each tensor
//! size and scheme, quantize alone and the lab's whole pipeline (quantize, dequantize, measure),
//! on the CPU and on the GPU, each the median of `--reps` runs in milliseconds of wall time, and
//! the GPU's upload, compute and readback apart (median of `--reps` timed calls). Prints one JSON
//! document on stdout; progress on stderr.
//!
//! The adapter's type comes with the figures (`device_type`): `Cpu` is an emulation on the CPU's
//! own cores (Mesa lavapipe), whose numbers say nothing about a GPU; the script labels them so.
//! Usage: `cargo run --release -p bitbudget-gpu --example device_bench -- [--weights 67108864]
//! [--schemes "q8_0 nf4"] [--reps 5] [--no-cpu]`. Bad arguments end with a message and status 2.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    match native::Args::parse(std::env::args().skip(1)) {
        Ok(args) => std::process::exit(native::run(&args)),
        Err(e) => {
            eprintln!("device_bench: {e}");
            std::process::exit(2);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use bitbudget_gpu::{block_on, Gpu};
    use bitbudget_math::quant::codec::quantize;
    use bitbudget_math::quant::generate::{generate, Distribution};
    use bitbudget_math::quant::lab::analyse;
    use bitbudget_math::quant::scheme::Scheme;
    use serde_json::{json, Value};
    use std::time::Instant;

    /// What to measure.
    pub struct Args {
        weights: Vec<usize>,
        schemes: Vec<Scheme>,
        reps: usize,
        cpu: bool,
    }

    impl Args {
        /// Reads `--weights N[,N…]`, `--schemes "A B"`, `--reps N` (1 to 100), `--no-cpu`.
        pub fn parse(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
            let mut args = Args {
                weights: vec![64 << 20],
                schemes: ["q8_0", "nf4"]
                    .map(|s| s.parse().expect("a scheme"))
                    .to_vec(),
                reps: 5,
                cpu: true,
            };
            while let Some(flag) = it.next() {
                let mut value = || it.next().ok_or(format!("{flag} needs a value"));
                match flag.as_str() {
                    "--weights" => {
                        args.weights = value()?
                            .split(',')
                            .map(|w| match w.trim().parse::<usize>() {
                                Ok(n) if n >= 1024 && n % 1024 == 0 && n <= 1 << 28 => Ok(n),
                                _ => Err(format!(
                                    "--weights {w}: a multiple of 1024 from 1024 to 268435456"
                                )),
                            })
                            .collect::<Result<_, _>>()?
                    }
                    "--schemes" => {
                        args.schemes = value()?
                            .split_whitespace()
                            .map(|s| s.parse::<Scheme>().map_err(|e| format!("--schemes: {e}")))
                            .collect::<Result<_, _>>()?
                    }
                    "--reps" => {
                        args.reps = match value()?.parse::<usize>() {
                            Ok(n) if (1..=100).contains(&n) => n,
                            _ => return Err("--reps: a whole number from 1 to 100".into()),
                        }
                    }
                    "--no-cpu" => args.cpu = false,
                    other => return Err(format!("unknown argument {other}")),
                }
            }
            if args.schemes.is_empty() {
                return Err("--schemes: name at least one scheme".into());
            }
            Ok(args)
        }
    }

    /// Median wall time of `reps` calls of `f`, in milliseconds; `None` if a call failed.
    fn median_ms<T, E: std::fmt::Display>(
        reps: usize,
        mut f: impl FnMut() -> Result<T, E>,
    ) -> Result<f64, String> {
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let start = Instant::now();
            f().map_err(|e| e.to_string())?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        Ok(times[times.len() / 2])
    }

    /// The median phases of `reps` timed GPU quantizations, as JSON.
    fn phases(gpu: &Gpu, s: Scheme, x: &[f32], block: usize, reps: usize) -> Value {
        let start = Instant::now();
        let now = move || start.elapsed().as_secs_f64() * 1e3;
        let runs: Result<Vec<bitbudget_gpu::Timings>, _> = (0..reps)
            .map(|_| block_on(bitbudget_gpu::quantize_timed(gpu, s, x, block, &now)).map(|r| r.1))
            .collect();
        let runs = match runs {
            Ok(runs) => runs,
            Err(e) => return json!({ "error": e.to_string() }),
        };
        let median = |f: fn(&bitbudget_gpu::Timings) -> f64| {
            let mut v: Vec<f64> = runs.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        json!({
            "upload_ms": median(|t| t.upload_ms),
            "compute_ms": median(|t| t.compute_ms),
            "readback_ms": median(|t| t.readback_ms),
            "compute_clock": runs[0].clock.label(),
        })
    }

    fn as_json(r: Result<f64, String>) -> Value {
        match r {
            Ok(ms) => json!(ms),
            Err(e) => json!({ "error": e }),
        }
    }

    /// Measures and prints; the process status (0, or 1 when no adapter was found).
    pub fn run(args: &Args) -> i32 {
        let gpu = match block_on(Gpu::new()) {
            Ok(gpu) => gpu,
            Err(e) => {
                println!("{}", json!({ "error": format!("no GPU adapter: {e}") }));
                return 1;
            }
        };
        let info = gpu.info();
        eprintln!(
            "adapter: {} ({:?}, {:?})",
            info.name, info.backend, info.device_type
        );
        let mut rows = Vec::new();
        for &weights in &args.weights {
            let x = generate(Distribution::Normal, weights / 1024, 1024, 0.02, 1);
            for &s in &args.schemes {
                let block = match s.block(None) {
                    Ok(block) => block,
                    Err(e) => {
                        rows.push(json!({ "scheme": s.to_string(), "error": e.to_string() }));
                        continue;
                    }
                };
                eprintln!("{s}, {weights} weights ...");
                let reps = args.reps;
                let cpu = |f: &dyn Fn() -> Result<(), String>| {
                    args.cpu.then(|| as_json(median_ms(reps, f)))
                };
                rows.push(json!({
                    "scheme": s.to_string(),
                    "weights": weights,
                    "input_bytes": weights * 4,
                    "quantize_cpu_ms": cpu(&|| quantize(s, &x, block).map(drop).map_err(|e| e.to_string())),
                    "quantize_gpu_ms": as_json(median_ms(reps, || {
                        block_on(bitbudget_gpu::quantize(&gpu, s, &x, block))
                    })),
                    "quantize_gpu_phases": phases(&gpu, s, &x, block, reps),
                    "lab_cpu_ms": cpu(&|| analyse(s, &x, block, false).map(drop).map_err(|e| e.to_string())),
                    "lab_gpu_ms": as_json(median_ms(reps, || {
                        block_on(bitbudget_gpu::analyse(&gpu, s, &x, block, false, 1 << 22, Default::default()))
                    })),
                }));
            }
        }
        let doc = json!({
            "adapter": {
                "name": info.name,
                "backend": format!("{:?}", info.backend),
                "device_type": format!("{:?}", info.device_type),
                "driver": info.driver,
                "driver_info": info.driver_info,
                "timestamps": gpu.has_timestamps(),
            },
            "reps": args.reps,
            "rows": rows,
        });
        println!("{doc:#}");
        0
    }
}
