//! `--device gpu` of `quantize` and `dequantize`: the same bytes as the CPU path, computed by the
//! WebGPU kernels of bitbudget-gpu through wgpu (natively Vulkan; Mesa lavapipe works).

use bitbudget_gpu::{block_on, Gpu};
use bitbudget_math::quant::fp4_options::Fp4Options;
use bitbudget_math::quant::metrics::ErrorMetrics;
use bitbudget_math::quant::scheme::Scheme;
use clap::ValueEnum;

/// Where quantization runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Device {
    /// The CPU reference (bitbudget-math).
    #[default]
    Cpu,
    /// A GPU through wgpu; byte-identical to the CPU.
    Gpu,
}

/// Opens a GPU context for `--device gpu` (None for `--device cpu`; every scheme has kernels both
/// ways); without an adapter the error names the backends that were tried.
pub fn open(device: Device) -> Result<Option<Gpu>, String> {
    match device {
        Device::Cpu => Ok(None),
        Device::Gpu => block_on(Gpu::new())
            .map(Some)
            .map_err(|e| format!("--device gpu: {e}")),
    }
}

/// [`bitbudget_math::quant::codec::quantize`] (or `nf4_double_quant_bytes` with
/// `double_quant`) on the GPU; with NVFP4's and MXFP4's options, the bytes of
/// `fp4_options::quantize(scheme, x, opts, 0)` (the kernels refuse them on other schemes).
pub fn quantize(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    double_quant: bool,
    opts: Fp4Options,
) -> Result<Vec<u8>, String> {
    let bytes = if !opts.is_none() {
        block_on(bitbudget_gpu::quantize_with_options(
            gpu, scheme, x, opts, 0,
        ))
    } else if double_quant {
        block_on(bitbudget_gpu::nf4_double_quant_bytes(gpu, x, block))
    } else {
        block_on(bitbudget_gpu::quantize(gpu, scheme, x, block))
    };
    bytes.map_err(|e| e.to_string())
}

/// [`bitbudget_math::quant::codec::dequantize`] on the GPU; with options, the values of
/// `fp4_options::dequantize(scheme, bytes, opts)` (the inverse transform for `--rht`).
pub fn dequantize(
    gpu: &Gpu,
    scheme: Scheme,
    bytes: &[u8],
    block: usize,
    opts: Fp4Options,
) -> Result<Vec<f32>, String> {
    let values = match opts.is_none() {
        true => block_on(bitbudget_gpu::dequantize(gpu, scheme, bytes, block)),
        false => block_on(bitbudget_gpu::dequantize_with_options(
            gpu, scheme, bytes, opts,
        )),
    };
    values.map_err(|e| e.to_string())
}

/// Values per part of [`report_metrics`] (the lab's streaming analysis).
const REPORT_PART: usize = 1 << 22;

/// The error metrics of `scheme` (with `opts`) on `x` for `quantize --report`, measured on the GPU: the lab's
/// streaming analysis with every part quantized, dequantized and measured on the device
/// (`bitbudget_gpu::analyse`), so the dequantized values never come back. The skipped and lost
/// counts equal the CPU's; the other metrics are within `bitbudget_gpu::SUM_TOLERANCE` (see
/// `bitbudget_gpu::metrics_within_tolerance`).
pub fn report_metrics(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    double_quant: bool,
    opts: Fp4Options,
) -> Result<ErrorMetrics, String> {
    block_on(bitbudget_gpu::analyse(
        gpu,
        scheme,
        x,
        block,
        double_quant,
        REPORT_PART,
        opts,
    ))
    .map(|(row, _)| row.metrics)
    .map_err(|e| e.to_string())
}
