//! A benchmark, not a test of speed: the quantize and dequantize throughput of the K-quants,
//! IQ4_NL, NVFP4 and the MX formats in WebAssembly (simd128 on), printed to the console in GB/s of
//! f32 input (10^9 bytes per second), best of a few runs after a warm-up. It runs in Node.js
//! (V8, the engine of Chromium) and times the process's CPU time (`process.cpuUsage`), which
//! other work on a busy machine disturbs far less than the wall clock; the release app's
//! `bench_quantize` (tests/e2e/dist_check.mjs `quant-bench`) gives Chromium's wall-clock figure.
//! The only assertion is that every scheme quantizes and round-trips its block bytes.
//! Run, in release mode so the numbers mean something:
//! `cargo test --release -p bitbudget-math --target wasm32-unknown-unknown --test kquant_wasm_bench -- --nocapture`
//! (compare with `cargo bench -p bitbudget-math --bench kquants` natively).
#![cfg(target_arch = "wasm32")]

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::scheme::{dequantize, quantize, Scheme};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen(inline_js = "export function cpu_ms() { \
    return typeof process !== 'undefined' && process.cpuUsage \
        ? process.cpuUsage().user / 1000 : performance.now(); }")]
extern "C" {
    /// The process's user CPU time in milliseconds (Node.js), else `performance.now()`.
    fn cpu_ms() -> f64;
}

/// Best of `reps` measurements of `run`, in GB/s of `bytes` input bytes. Each measurement
/// repeats `run` until at least 20 ms of CPU time have passed, since Node's CPU clock ticks
/// coarsely and a fast dequantizer takes well under a millisecond.
fn best_rate(bytes: usize, reps: usize, mut run: impl FnMut()) -> f64 {
    let mut best = 0f64;
    for _ in 0..reps {
        let t0 = cpu_ms();
        let mut runs = 0u32;
        let elapsed = loop {
            run();
            runs += 1;
            let t = cpu_ms() - t0;
            if t >= 20.0 {
                break t;
            }
        };
        best = best.max(bytes as f64 * runs as f64 / (elapsed / 1e3) / 1e9);
    }
    best
}

#[wasm_bindgen_test]
fn every_new_quantizer_is_timed_in_webassembly() {
    // Debug builds are 10-50× slower: a smaller tensor keeps the test suite quick there.
    let rows = if cfg!(debug_assertions) { 8 } else { 1024 };
    let x = generate(Distribution::Normal, rows, 1024, 0.02, 1);
    let mut lines = Vec::new();
    for s in Scheme::ALL.into_iter().filter(|s| {
        matches!(
            s,
            Scheme::KQuant(_) | Scheme::Iq4Nl | Scheme::Nvfp4 | Scheme::Mx(_)
        )
    }) {
        let block = s.default_block();
        let bytes = quantize(s, &x, block).expect("whole blocks");
        let back = dequantize(s, &bytes, block).expect("whole blocks");
        assert_eq!(back.len(), x.len(), "{}", s.name());
        let q = best_rate(x.len() * 4, 5, || {
            std::hint::black_box(quantize(s, std::hint::black_box(&x), block).expect("blocks"));
        });
        let d = best_rate(x.len() * 4, 5, || {
            std::hint::black_box(
                dequantize(s, std::hint::black_box(&bytes), block).expect("blocks"),
            );
        });
        lines.push(format!(
            "{:<12} quantize {q:6.3} GB/s  dequantize {d:6.3} GB/s",
            s.name()
        ));
    }
    console_log!("wasm throughput, {} values:\n{}", x.len(), lines.join("\n"));
}
