//! Which kernels each scheme runs, with the byte layout read from the math crate's
//! `quant::layout` (the one description of every scheme's bytes): how many weights share a
//! header, how many header and code bytes each block has, and whether a per-tensor scale comes
//! first. Nothing about the bytes is restated here.

use crate::shaders::Family;
use bitbudget_math::quant::ggml::GgmlType;
use bitbudget_math::quant::kquants::KType;
use bitbudget_math::quant::layout::{Layout as Bytes, ScaleKind};
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
/// the casts ignore it). Every scheme has WGSL kernels both ways (the match below is exhaustive).
/// `block` must be at least 1, and even for the 4-bit schemes (checked by the caller).
pub(crate) fn layout(scheme: Scheme, block: usize) -> Layout {
    use Family::*;
    // The K-quants and IQ4_NL quantize one whole block per `measure` invocation and store their
    // blocks whole in `codes` (no header split); the dequantize kernel reads every field from the
    // block's bytes.
    let whole_blocks = |quantize, dequantize, variant| {
        let bytes = Bytes::of(scheme, block);
        Layout {
            quantize,
            dequantize,
            variant,
            measures: true,
            per_tensor_scale: false,
            weights: bytes.values,
            header_bytes: 0,
            code_bytes: bytes.block_bytes,
        }
    };
    let (quantize, dequantize, variant, measures) = match scheme {
        Scheme::KQuant(kind) => {
            let variant = KType::ALL
                .iter()
                .position(|k| *k == kind)
                .expect("every K-quant is in KType::ALL") as u32;
            return whole_blocks(QuantizeKQuant, DequantizeKQuant, variant);
        }
        // Whole stored blocks in `codes`; `measure` quantizes each (quantize_iq4_nl.wgsl).
        Scheme::Iq4Nl => return whole_blocks(QuantizeIq4Nl, DequantizeIq4Nl, 0),
        Scheme::Nvfp4 => (QuantizeNvfp4, DequantizeNvfp4, 0, true),
        // The variant is the element width in bits.
        Scheme::Mx(format) => (QuantizeMx, DequantizeMx, format.element_bits() as u32, true),
        Scheme::Ggml(GgmlType::Mxfp4) => (QuantizeMxfp4, DequantizeMxfp4, 0, true),
        Scheme::Ggml(t) => {
            let variant = match t {
                GgmlType::Q8_0 | GgmlType::Mxfp4 => 0,
                GgmlType::Q4_0 => 1,
                GgmlType::Q4_1 => 2,
                GgmlType::Q5_0 => 3,
                GgmlType::Q5_1 => 4,
            };
            (QuantizeGgml, DequantizeGgml, variant, true)
        }
        Scheme::Nf4 => (QuantizeNf4, DequantizeNf4, 0, true),
        Scheme::AbsmaxInt8 => (QuantizeAbsmaxInt8, DequantizeAbsmaxInt8, 0, true),
        Scheme::Fp8Tile => (QuantizeFp8Tile, DequantizeFp8Tile, 0, true),
        // Bands of 128 rows with their scales first: fp8_blocks.rs runs these kernels itself.
        Scheme::Fp8Block => (QuantizeFp8Block, DequantizeFp8Block, 0, true),
        // The variant is the code width in bits.
        Scheme::ZeroPointUint8 => (QuantizeZeroPoint, DequantizeZeroPoint, 8, true),
        Scheme::ZeroPointInt4 => (QuantizeZeroPoint, DequantizeZeroPoint, 4, true),
        Scheme::F8E4M3 | Scheme::F8E5M2 => (QuantizeFp8, DequantizeFp8, 0, false),
        Scheme::Bf16 => (QuantizeHalf, DequantizeHalf, 0, false),
        Scheme::F16 => (QuantizeHalf, DequantizeHalf, 1, false),
    };
    let bytes = Bytes::of(scheme, block);
    Layout {
        quantize,
        dequantize,
        variant,
        measures,
        per_tensor_scale: bytes.scale == ScaleKind::TensorF32,
        weights: bytes.values,
        header_bytes: bytes.code_offset,
        code_bytes: bytes.block_bytes - bytes.code_offset,
    }
}

/// Whether the scheme packs two codes per byte (so its block must be even).
pub(crate) fn packs_nibbles(scheme: Scheme) -> bool {
    matches!(scheme, Scheme::Nf4 | Scheme::ZeroPointInt4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::quant::codec::quantize;

    /// The table against the CPU reference: the byte count of every scheme at several block
    /// sizes and lengths is what `quantize` writes.
    #[test]
    fn every_layout_predicts_the_cpu_byte_count() {
        // fp8-128x128's bands of 128 rows are laid out by fp8_blocks.rs, tested against the CPU in
        // tests/gpu/parity.rs.
        for scheme in Scheme::ALL.into_iter().filter(|s| *s != Scheme::Fp8Block) {
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
