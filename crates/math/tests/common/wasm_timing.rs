//! Timing for the WebAssembly benchmarks (`kquant_wasm_bench`, `lab_wasm_bench`): the process's
//! CPU time in Node.js, which other work on a busy machine disturbs far less than the wall
//! clock, and a best-of-a-few throughput.

use wasm_bindgen::prelude::*;

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
pub fn best_rate(bytes: usize, reps: usize, mut run: impl FnMut()) -> f64 {
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
