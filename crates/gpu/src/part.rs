//! One part of the Quantize lab's streaming analysis on the GPU: the same bytes and values as
//! the CPU's `PartQuantizer`, so `SchemeRun::measure` can take them from either.

use crate::context::{Gpu, GpuError};
use crate::quantize::{dequantize_with, nf4_double_quant_bytes_with, quantize_with, Extra};
use bitbudget_math::quant::analysis::PartQuantizer;
use bitbudget_math::quant::lab::ProducedPart;

/// Quantizes `padded` (whole blocks of one part of a tensor) with `quantizer`'s scheme and its
/// whole-tensor parameters (FP8's scale, NF4 double quantization's mean, NVFP4's and MXFP4's
/// options from the part's tensor index), then dequantizes the
/// bytes: exactly [`PartQuantizer::part`] and [`PartQuantizer::dequantize_part`] of the CPU.
/// Errors as [`crate::quantize`] (a scheme without a kernel, a ragged part, a lost device).
pub async fn produce_part(
    gpu: &Gpu,
    quantizer: &PartQuantizer,
    padded: &[f32],
) -> Result<ProducedPart, GpuError> {
    let (scheme, block) = (quantizer.scheme(), quantizer.block());
    let bytes = part_bytes(gpu, quantizer, padded).await?;
    let mut whole = quantizer.header();
    whole.extend_from_slice(&bytes);
    let values = dequantize_with(gpu, scheme, &whole, block, quantizer.options()).await?;
    Ok(ProducedPart { bytes, values })
}

/// The bytes of one part (no per-tensor header), as [`PartQuantizer::part`] gives them.
pub(crate) async fn part_bytes(
    gpu: &Gpu,
    quantizer: &PartQuantizer,
    padded: &[f32],
) -> Result<Vec<u8>, GpuError> {
    let (scheme, block) = (quantizer.scheme(), quantizer.block());
    match quantizer.nf4_mean() {
        Some(mean) => nf4_double_quant_bytes_with(gpu, padded, block, Some(mean)).await,
        None => {
            let extra = Extra {
                scale: quantizer.fp8_scale(),
                fp4: quantizer.options(),
                first: quantizer.first(),
            };
            quantize_with(gpu, scheme, padded, block, extra).await
        }
    }
}
