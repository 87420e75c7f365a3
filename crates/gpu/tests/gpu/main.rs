//! The WebGPU kernels against the CPU, natively on whatever adapter wgpu finds (CI: Mesa
//! lavapipe, `WGPU_BACKEND=vulkan`); without one the tests print SKIPPED, unless
//! `BITBUDGET_REQUIRE_GPU=1`. One binary: its modules share one context, so each pipeline is
//! compiled once for all of them.

#![cfg(not(target_arch = "wasm32"))]

mod common;
mod fp4_options;
mod kquant;
mod measure;
mod parity;
