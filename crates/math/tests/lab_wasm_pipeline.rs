//! A benchmark, not a test of speed: the Quantize lab's whole pipeline per scheme in
//! WebAssembly, in GB/s of f32 input (10^9 bytes per CPU second in Node.js, best of three), on a
//! 4M-value N(0, 0.02²) tensor, two ways: `pipeline` is `lab::analyse` (the tensor's overview,
//! then quantize, dequantize, measure), and `shared` is the scheme's own work with the overview
//! computed once beforehand, as the lab does for all the schemes it compares.
//! It uses only what the crate has offered since its first quantizers (`generate`, `Scheme::ALL`,
//! `Scheme::block`, `lab::analyse`, `Overview::new`, `SchemeRun`), so
//! `scripts/bench_lab_before_after.py --wasm` runs this very file in an older tree and in this
//! one, side by side. The only assertion is that each scheme analyses the tensor. Run:
//! `cargo test --release -p bitbudget-math --target wasm32-unknown-unknown --test lab_wasm_pipeline -- --nocapture`
//! (not part of `cargo test`: `test = false` in Cargo.toml)
#![cfg(target_arch = "wasm32")]

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::{analyse, Overview, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;
use wasm_bindgen_test::*;
use wasm_timing::best_rate;

#[path = "common/wasm_timing.rs"]
mod wasm_timing;

#[wasm_bindgen_test]
fn every_schemes_lab_pipeline_is_timed_in_webassembly() {
    // Debug builds are 10-50× slower: a smaller tensor keeps the test suite quick there.
    let rows = if cfg!(debug_assertions) { 16 } else { 4096 };
    let x = generate(Distribution::Normal, rows, 1024, 0.02, 1);
    let mut lines = Vec::new();
    for s in Scheme::ALL {
        let block = s.block(None).expect("default block");
        let rate = best_rate(x.len() * 4, 3, || {
            let (result, _) = analyse(s, std::hint::black_box(&x), block, false).expect("blocks");
            assert!(result.bytes > 0, "{} stored nothing", s.name());
        });
        lines.push(format!("pipeline {} {rate:.4}", s.name()));
        let overview = Overview::new(&x);
        let rate = best_rate(x.len() * 4, 3, || {
            let mut run = SchemeRun::new(
                s,
                std::hint::black_box(&x),
                block,
                false,
                &overview,
                1 << 18,
            );
            while !run.done() {
                run.step().expect("blocks");
            }
            std::hint::black_box(run.finish());
        });
        lines.push(format!("shared {} {rate:.4}", s.name()));
    }
    console_log!("{}", lines.join("\n"));
}
