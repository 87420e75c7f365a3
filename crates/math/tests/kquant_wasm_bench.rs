//! A benchmark, not a test of speed: the quantize and dequantize throughput of the K-quants,
//! IQ4_NL, NVFP4 and the MX formats in WebAssembly (simd128 on), printed to the console in GB/s of
//! f32 input (10^9 bytes per second), best of a few runs after a warm-up. It runs in Node.js
//! (V8, the engine of Chromium) and times the process's CPU time (`process.cpuUsage`), which
//! other work on a busy machine disturbs far less than the wall clock; the release app's
//! `bench_quantize` (tests/e2e/dist_check.mjs `quant-bench`) gives Chromium's wall-clock figure.
//! The only assertion is that every scheme quantizes and round-trips its block bytes.
//! Run, in release mode so the numbers mean something:
//! `cargo test --release -p bitbudget-math --target wasm32-unknown-unknown --test kquant_wasm_bench -- --nocapture`
//! (not part of `cargo test`: `test = false` in Cargo.toml)
//! (compare with `cargo bench -p bitbudget-math --bench kquants` natively).
#![cfg(target_arch = "wasm32")]

use bitbudget_math::quant::codec::{dequantize, quantize};
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::scheme::Scheme;
use wasm_bindgen_test::*;
use wasm_timing::best_rate;

#[path = "common/wasm_timing.rs"]
mod wasm_timing;

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
