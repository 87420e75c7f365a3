//! In-browser benchmark hooks: `window.wasmBindings.bench_quantize("q8_0", 1 << 22, 5)` returns the
//! best of `reps` runs in GB/s of f32 input (10^9 bytes per second), on a seeded normal tensor;
//! `bench_lab` does the same for the Quantize lab's whole per-scheme pipeline (quantize,
//! dequantize, metrics, histograms, error map).
//! `tests/e2e/dist_check.mjs` prints it for every scheme; compare with
//! `cargo bench -p bitbudget-math --bench quant` natively.

use bitbudget_math::quant::codec::quantize;
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::analyse;
use bitbudget_math::quant::scheme::Scheme;
use wasm_bindgen::prelude::*;

/// Best-of-`reps` quantization throughput of `scheme` over `values` f32 values, in GB/s; a
/// negative result means an unknown scheme or a failure.
#[wasm_bindgen]
pub fn bench_quantize(scheme: &str, values: u32, reps: u32) -> f64 {
    best_rate(scheme, values, reps, |s, x, block| {
        quantize(s, x, block).map(|_| ())
    })
}

/// Best-of-`reps` throughput of the Quantize lab's analysis of `scheme` (what the page runs per
/// scheme) over `values` f32 values, in GB/s; negative on failure.
#[wasm_bindgen]
pub fn bench_lab(scheme: &str, values: u32, reps: u32) -> f64 {
    best_rate(scheme, values, reps, |s, x, block| {
        analyse(s, x, block, false).map(|_| ())
    })
}

/// Times `run` on a seeded normal tensor of about `values` values (whole default blocks).
fn best_rate(
    scheme: &str,
    values: u32,
    reps: u32,
    run: impl Fn(Scheme, &[f32], usize) -> Result<(), QuantError>,
) -> f64 {
    let Ok(s) = scheme.parse::<Scheme>() else {
        return -1.0;
    };
    let Some(perf) = web_sys::window().and_then(|w| w.performance()) else {
        return -1.0;
    };
    let block = s.default_block();
    let n = (values as usize).max(block) / block * block;
    let x = generate(Distribution::Normal, 1, n, 0.02, 1);
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let t0 = perf.now();
        if run(s, std::hint::black_box(&x), block).is_err() {
            return -1.0;
        }
        best = best.min(perf.now() - t0);
    }
    (n * 4) as f64 / (best.max(1e-3) / 1e3) / 1e9
}
