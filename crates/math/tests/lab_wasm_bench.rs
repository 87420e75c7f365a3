//! A benchmark, not a test of speed: the Quantize lab's measuring pass alone
//! (`SchemeRun::measure` on parts already quantized and dequantized: metrics, value and error
//! histograms, error map, first values, peak levels) and its whole pipeline (`lab::analyse`:
//! quantize, dequantize, measure) in WebAssembly (simd128 on), printed to the console in GB/s of
//! f32 input (10^9 bytes per second), best of a few runs, and the per-tensor `Overview` apart, on the same 4M-value
//! N(0, 0.02²) tensor as the native `cargo bench -p bitbudget-math --bench lab_measure`. It runs
//! in Node.js (V8, the engine of Chromium) and times the process's CPU time, as
//! `kquant_wasm_bench` does. The only assertion is that every part is measured.
//! Run, in release mode so the numbers mean something:
//! `cargo test --release -p bitbudget-math --target wasm32-unknown-unknown --test lab_wasm_bench -- --nocapture`
//! (not part of `cargo test`: `test = false` in Cargo.toml)
#![cfg(target_arch = "wasm32")]

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::{analyse, Overview, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;
use lab_parts::produced_parts;
use wasm_bindgen_test::*;
use wasm_timing::best_rate;

#[path = "../benches/common/lab_parts.rs"]
mod lab_parts;
#[path = "common/wasm_timing.rs"]
mod wasm_timing;

/// Values per part, as `lab::analyse` uses.
const PART: usize = 1 << 18;

#[wasm_bindgen_test]
fn the_lab_measuring_pass_and_pipeline_are_timed_in_webassembly() {
    // Debug builds are 10-50× slower: a smaller tensor keeps the test suite quick there.
    let rows = if cfg!(debug_assertions) { 16 } else { 4096 };
    let x = generate(Distribution::Normal, rows, 1024, 0.02, 1);
    let overview = Overview::new(&x);
    let bytes = x.len() * 4;
    let mut lines = Vec::new();
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        let parts = produced_parts(SchemeRun::new(s, &x, block, false, &overview, PART));
        assert_eq!(parts.len(), x.len().div_ceil(PART), "{}", s.name());
        let measure = best_rate(bytes, 3, || {
            let mut run = SchemeRun::new(s, &x, block, false, &overview, PART);
            for part in &parts {
                run.measure(part).expect("part lengths");
            }
            std::hint::black_box(run.finish());
        });
        let quantizer = SchemeRun::new(s, &x, block, false, &overview, PART)
            .quantizer()
            .clone();
        let quantize = best_rate(bytes, 3, || {
            for chunk in x.chunks(PART) {
                std::hint::black_box(quantizer.part(chunk).expect("whole blocks"));
            }
        });
        let dequantize = best_rate(bytes, 3, || {
            for part in &parts {
                std::hint::black_box(quantizer.dequantize_part(&part.bytes).expect("bytes"));
            }
        });
        drop(parts);
        let pipeline = best_rate(bytes, 3, || {
            std::hint::black_box(
                analyse(s, std::hint::black_box(&x), block, false).expect("blocks"),
            );
        });
        lines.push(format!(
            "{:<15} quantize {quantize:6.3}  dequantize {dequantize:6.3}  measure {measure:6.3}  pipeline {pipeline:6.3} GB/s",
            s.name()
        ));
    }
    // The pipeline above computes the overview once per scheme, as `analyse` does.
    let overview_rate = best_rate(bytes, 3, || {
        std::hint::black_box(Overview::new(std::hint::black_box(&x)));
    });
    console_log!(
        "wasm lab throughput, {} values:\n{}\noverview (per tensor) {overview_rate:6.3} GB/s",
        x.len(),
        lines.join("\n")
    );
}
