//! The math's integration tests, one binary natively and one in the browser: each test file
//! linked on its own cost a link and a compile of the math's generic code at opt-level 3 (and in
//! the browser a page load), over two dozen times per run.
//!
//! The modules in the first group run natively and in the browser (`scripts/test.sh` runs the
//! wasm32 build in headless Chromium, where simd128 is on); the others run where they can.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

// Natively and in the browser: the quantizers' and measures' bytes must not depend on the target.
mod fp8_slices;
mod ggml_fast_parity;
mod half_slices;
mod histogram_bins;
mod kquant_reference;
mod lab_one_pass;
mod nf4_codes;
mod overview_scan;
mod zeropoint_parity;

// In the browser only: the wasm SIMD paths against the scalar ones.
#[cfg(target_arch = "wasm32")]
mod simd_parity;

// Natively only (native/): they read fixture files from disk, count allocations or check
// arithmetic that does not depend on the target.
#[cfg(not(target_arch = "wasm32"))]
mod native;
