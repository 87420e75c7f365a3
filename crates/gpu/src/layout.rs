//! Every byte-layout fact the host code needs, in one table: which kernels a scheme runs, how
//! many weights share a header, how many header and code bytes each block has, and how those
//! bytes come out of the kernels' u32 words. The layouts themselves are defined by the CPU
//! reference (`bitbudget_math::quant::scheme`, whose module docs describe them); when the math
//! crate grows its own layout module, [`layout`] is the one function to swap for it.

use crate::shaders::Family;
use bitbudget_math::quant::ggml::{GgmlType, QK};
use bitbudget_math::quant::scheme::Scheme;

/// How one scheme's bytes are laid out, and which kernels produce and read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Kernels that quantize (entry points `measure`, when `measures`, then `quantize`).
    pub quantize: Family,
    /// Kernels that dequantize (entry point `dequantize`).
    pub dequantize: Family,
    /// `params.variant` of both families.
    pub variant: u32,
    /// Whether `measure` runs once per block before `quantize` (false for plain casts; FP8's
    /// per-tensor `measure` is handled by `per_tensor_scale`).
    pub measures: bool,
    /// FP8: one f32 scale for the whole tensor, stored before everything else.
    pub per_tensor_scale: bool,
    /// Weights per block (1 for per-weight formats without a block header).
    pub weights: usize,
    /// Header bytes per block: the first bytes, little-endian, of the block's first two
    /// `blocks` words (quantize) or `headers` words (dequantize).
    pub header_bytes: usize,
    /// Code bytes per block: the block's slice of the packed `codes` words.
    pub code_bytes: usize,
}

impl Layout {
    /// Bytes of one block as stored.
    pub fn stride(&self) -> usize {
        self.header_bytes + self.code_bytes
    }

    /// Bytes before the first block (FP8's per-tensor scale).
    pub fn prefix_bytes(&self) -> usize {
        if self.per_tensor_scale {
            4
        } else {
            0
        }
    }
}

/// The layout of `scheme` with blocks of `block` weights (GGML and MXFP4 always use 32; FP8 and
/// the casts ignore it). `block` must be at least 1, and even for the 4-bit schemes (checked by
/// the caller).
pub(crate) fn layout(scheme: Scheme, block: usize) -> Layout {
    let ggml = |variant, header_bytes, code_bytes| Layout {
        quantize: Family::QuantizeGgml,
        dequantize: Family::DequantizeGgml,
        variant,
        measures: true,
        per_tensor_scale: false,
        weights: QK,
        header_bytes,
        code_bytes,
    };
    let blockwise = |quantize, dequantize, variant, header_bytes, code_bytes| Layout {
        quantize,
        dequantize,
        variant,
        measures: true,
        per_tensor_scale: false,
        weights: block,
        header_bytes,
        code_bytes,
    };
    let per_weight = |quantize, dequantize, variant, per_tensor_scale, code_bytes| Layout {
        quantize,
        dequantize,
        variant,
        measures: false,
        per_tensor_scale,
        weights: 1,
        header_bytes: 0,
        code_bytes,
    };
    match scheme {
        // block_q8_0 { half d; int8 qs[32] }
        Scheme::Ggml(GgmlType::Q8_0) => ggml(0, 2, 32),
        // block_q4_0 { half d; u8 qs[16] }
        Scheme::Ggml(GgmlType::Q4_0) => ggml(1, 2, 16),
        // block_q4_1 { half d; half m; u8 qs[16] }
        Scheme::Ggml(GgmlType::Q4_1) => ggml(2, 4, 16),
        // block_q5_0 { half d; u8 qh[4]; u8 qs[16] }
        Scheme::Ggml(GgmlType::Q5_0) => ggml(3, 2, 20),
        // block_q5_1 { half d; half m; u8 qh[4]; u8 qs[16] }
        Scheme::Ggml(GgmlType::Q5_1) => ggml(4, 4, 20),
        // block_mxfp4 { u8 e; u8 qs[16] }
        Scheme::Ggml(GgmlType::Mxfp4) => Layout {
            quantize: Family::QuantizeMxfp4,
            dequantize: Family::DequantizeMxfp4,
            ..ggml(0, 1, 16)
        },
        // f32 absmax, then block / 2 bytes of nibbles
        Scheme::Nf4 => blockwise(Family::QuantizeNf4, Family::DequantizeNf4, 0, 4, block / 2),
        // f32 scale, then block int8 codes
        Scheme::AbsmaxInt8 => blockwise(
            Family::QuantizeAbsmaxInt8,
            Family::DequantizeAbsmaxInt8,
            0,
            4,
            block,
        ),
        // f32 scale, u8 zero point, then block u8 codes
        Scheme::ZeroPointUint8 => blockwise(
            Family::QuantizeZeroPoint,
            Family::DequantizeZeroPoint,
            8,
            5,
            block,
        ),
        // f32 scale, u8 zero point, then block / 2 bytes of nibbles
        Scheme::ZeroPointInt4 => blockwise(
            Family::QuantizeZeroPoint,
            Family::DequantizeZeroPoint,
            4,
            5,
            block / 2,
        ),
        // f32 per-tensor scale, then one byte per weight
        Scheme::F8E4M3 | Scheme::F8E5M2 => {
            per_weight(Family::QuantizeFp8, Family::DequantizeFp8, 0, true, 1)
        }
        // two little-endian bytes per weight
        Scheme::Bf16 => per_weight(Family::QuantizeHalf, Family::DequantizeHalf, 0, false, 2),
        Scheme::F16 => per_weight(Family::QuantizeHalf, Family::DequantizeHalf, 1, false, 2),
    }
}

/// Whether the scheme packs two codes per byte (so its block must be even).
pub(crate) fn packs_nibbles(scheme: Scheme) -> bool {
    matches!(scheme, Scheme::Nf4 | Scheme::ZeroPointInt4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::quant::scheme::quantize;

    /// The table against the CPU reference: the byte count of every scheme at several block
    /// sizes and lengths is what `quantize` writes.
    #[test]
    fn every_layout_predicts_the_cpu_byte_count() {
        for scheme in Scheme::ALL {
            for block in [2usize, 8, 32, 64, 256] {
                let Ok(block) = scheme.block(Some(block)).or_else(|_| scheme.block(None)) else {
                    continue;
                };
                for blocks in [1usize, 3, 7] {
                    let x = vec![0.25f32; blocks * block];
                    let l = layout(scheme, block);
                    let units = x.len() / l.weights;
                    let predicted = l.prefix_bytes() + units * l.stride();
                    let bytes = quantize(scheme, &x, block).unwrap();
                    assert_eq!(bytes.len(), predicted, "{scheme} block {block} × {blocks}");
                }
            }
        }
    }
}
