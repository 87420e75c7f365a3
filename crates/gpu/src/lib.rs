//! bitbudget's WebGPU compute path: the quantization schemes of `bitbudget-math` as WGSL
//! kernels, giving byte for byte what the CPU reference gives.
//!
//! - [`Gpu`]: an adapter, its device and queue, and the pipelines, tables and buffers built once
//!   and reused. Host functions take a `&Gpu`, so the app, the CLI and the tests bring their own.
//! - [`quantize`], [`dequantize`], [`nf4_double_quant_bytes`]: the operations, streamed in chunks
//!   within the adapter's limits (storage binding size, workgroups per dimension);
//!   [`quantize_with_options`] and [`dequantize_with_options`] with NVFP4's and MXFP4's random
//!   Hadamard transform and stochastic rounding (`bitbudget_math::quant::fp4_options`).
//! - [`measure_part`]: one part of the lab quantized, dequantized and measured on the device
//!   (metric sums, counts, histograms, error map); only the bytes and a summary come back.
//!   Counts and histograms are exact, sums within [`SUM_TOLERANCE`] (see its module).
//! - [`quantize_timed`]: [`quantize`] with upload, compute and readback timed apart (compute by
//!   timestamp queries when the adapter offers them).
//! - [`produce_part`]: one part of the Quantize lab's streaming analysis (whole-tensor
//!   parameters given), for `bitbudget_math::quant::lab::SchemeRun::measure`.
//! - Exactness: the kernels never use the GPU's float unit on a value that reaches the output;
//!   they compute on f32 bit patterns with correctly rounded integer arithmetic
//!   (`src/shaders/common.wgsl`), because WGSL allows inexact division and flushing subnormals.
//!
//! - Coverage: every scheme of the lab has a quantize and a dequantize kernel (`layout.rs` maps
//!   each to its kernel families, exhaustively). The K-quant and IQ4_NL kernels (`quantize_kquant.wgsl`, `quantize_iq4_nl.wgsl`) run
//!   llama.cpp's whole reference quantizer in one invocation per block: the sub-block fits
//!   (Q2_K, Q4_K, Q5_K `make_qkx2_quants` with 16–21 candidate scales, each a weighted
//!   least-squares solve; Q3_K `make_q3_quants`' coordinate sweeps; Q6_K `make_qx_quants`' 18
//!   trial scales; IQ4_NL's 15 trial scales over its non-linear levels), the quantized sub-block
//!   scales, the FP16 scales and the codes re-derived from the stored scales. Every operation
//!   uses the correctly rounded `f_add`/`f_mul`/`f_div`/`f_sqrt` of common.wgsl in the CPU's
//!   order (tested on the GPU against the CPU's `+ - * /` and `sqrt` in `arithmetic_check.rs`),
//!   so the bytes are the CPU's, never an approximation of its search.
//!
//! Natively the crate uses Vulkan (Mesa lavapipe in CI: `WGPU_BACKEND=vulkan`); in the browser
//! the WebGPU backend. The functions are `async`: natively wrap them in [`block_on`].

#![warn(missing_docs)]

#[cfg(all(test, not(target_arch = "wasm32")))]
mod arithmetic_check;
mod context;
mod dispatch;
mod fp8_blocks;
mod layout;
mod measure;
mod part;
mod quantize;
mod shaders;
mod stamps;
mod tables;
mod timing;
mod tolerance;

pub use context::{Gpu, GpuError};
pub use measure::{analyse, measure_part};
pub use part::produce_part;
pub use quantize::{
    dequantize, dequantize_with_options, nf4_double_quant_bytes, quantize, quantize_timed,
    quantize_with_options,
};
pub use timing::{ComputeClock, Timings};
pub use tolerance::{
    metrics_within_tolerance, summary_within_tolerance, MAX_ERROR_ABSOLUTE, MAX_ERROR_TOLERANCE,
    SUM_TOLERANCE,
};
/// The adapter kinds of [`Gpu::info`] (e.g. `Cpu` for a software or fallback adapter).
pub use wgpu::DeviceType;

/// Runs a future to completion on this thread (native only; in the browser, `spawn_local` it).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}
