//! The app's browser tests, in headless Chromium through `wasm-bindgen-test-runner`: one binary,
//! one page, one module per page or part. Each test mounts into a fresh element
//! ([`common::mount_fresh`]), so tests of different modules do not see each other's views.
#![cfg(target_arch = "wasm32")]

mod common;

mod bits_page;
mod lab_workers;
mod learn_page;
mod light_embeds;
mod memory_framework;
mod memory_page;
mod quant_gpu;
mod quant_page;
mod serve_gguf;
mod serve_page;
mod shell;
mod step_time;
mod svg_downloads;
mod tables;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
