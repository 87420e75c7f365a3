//! What the block shape of an FP8 or FP4 training format does to a real tensor's error: one
//! scale per tensor, DeepSeek-V3's 1×128 tiles and 128×128 blocks (FP8 E4M3 with FP32 scales),
//! OCP MX's blocks of 32 with a power-of-two scale, and NVFP4's blocks of 16 with an E4M3 scale.
//! Each is measured by quantizing and decoding the tensor; an outlier input channel (one column
//! scaled up) shows which shapes confine its damage.

use crate::quant::fp8_tiles::{round_trip, Tile, BLOCK_128X128, TILE_1X128};
use crate::quant::ggml_blocks::GgmlType;
use crate::quant::metrics::error_metrics;
use crate::quant::mx::{self, MxFormat};
use crate::quant::rotation::{rotate, signs, unrotate, HADAMARD};
use crate::quant::scheme::Scheme;
use crate::quant::{ggml, nvfp4};

/// NVFP4's storage unit as llama.cpp lays it out: 64 values (four scales of 16).
const NVFP4_BLOCK: usize = nvfp4::QK_NVFP4;

/// One block shape's error on the tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeError {
    /// The format and its block shape, in words.
    pub label: &'static str,
    /// Stored bits per value, scales included.
    pub bits_per_value: f64,
    /// Signal-to-quantization-noise ratio, dB (higher is better).
    pub sqnr_db: f64,
    /// Root mean squared error, in the tensor's units.
    pub rmse: f64,
}

/// The shapes compared, in the order shown.
pub const SHAPES: [&str; 7] = [
    "FP8 E4M3, one FP32 scale per tensor",
    "FP8 E4M3, FP32 scale per 1×128 tile",
    "FP8 E4M3, FP32 scale per 128×128 block",
    "MXFP8 E4M3, E8M0 scale per 32",
    "NVFP4 E2M1, E4M3 scale per 16",
    "MXFP4 E2M1, E8M0 scale per 32",
    "NVFP4 after a random Hadamard transform of each 16",
];

/// The seed of the Hadamard transform's signs.
const HADAMARD_SEED: u64 = 16;

/// The errors of every shape in [`SHAPES`] on `x`, a row-major tensor of `cols` columns. Errs
/// with a sentence when `x` is not whole rows, or not whole blocks of 64 (NVFP4's storage unit).
/// NVFP4 here is llama.cpp's layout: no FP32 tensor scale (the tensor's values are small enough
/// that its E4M3 block scales need none).
pub fn block_shape_errors(x: &[f32], cols: usize) -> Result<Vec<ShapeError>, String> {
    let rows = x.len().checked_div(cols).unwrap_or(0);
    let whole = Tile { rows, cols };
    let tiled = |tile: Tile| round_trip(x, cols, tile).map_err(|e| e.to_string());
    let per_tensor = tiled(whole)?;
    if x.len() % NVFP4_BLOCK != 0 {
        return Err(format!(
            "{} values are not whole blocks of {NVFP4_BLOCK} (NVFP4's storage unit)",
            x.len()
        ));
    }
    // Each format's own quantizer (not the codec's dispatch over every scheme, which would bring
    // all of them into the Learn page's bundle).
    let mxfp8 = Scheme::Mx(MxFormat::Fp8E4M3);
    let (nvfp4, mxfp4) = (Scheme::Nvfp4, Scheme::Ggml(GgmlType::Mxfp4));
    let coded = |s: Scheme, block: usize| -> Result<(Vec<f32>, f64), String> {
        let mut bytes = vec![0u8; s.layout(block).bytes_for(x.len())];
        let mut back = vec![0f32; x.len()];
        let failed = |e: &dyn std::fmt::Display| e.to_string();
        match s {
            Scheme::Mx(f) => {
                mx::quantize(f, x, &mut bytes).map_err(|e| failed(&e))?;
                mx::dequantize(f, &bytes, &mut back).map_err(|e| failed(&e))?;
            }
            Scheme::Nvfp4 => {
                nvfp4::quantize(x, &mut bytes).map_err(|e| failed(&e))?;
                nvfp4::dequantize(&bytes, &mut back).map_err(|e| failed(&e))?;
            }
            Scheme::Ggml(t) => {
                ggml::quantize_row(t, x, &mut bytes).map_err(|e| failed(&e))?;
                ggml::dequantize_row(t, &bytes, &mut back).map_err(|e| failed(&e))?;
            }
            other => return Err(format!("{other} is not one of the block shapes compared")),
        }
        Ok((back, s.bits_per_weight(block, x.len())))
    };
    let results = [
        (per_tensor.0, 8.0 + 32.0 / x.len().max(1) as f64),
        tiled(TILE_1X128).map(|(b, _)| (b, TILE_1X128.bits_per_value()))?,
        tiled(BLOCK_128X128).map(|(b, _)| (b, BLOCK_128X128.bits_per_value()))?,
        coded(mxfp8, 32)?,
        coded(nvfp4, NVFP4_BLOCK)?,
        coded(mxfp4, 32)?,
        rotated_nvfp4(x)?,
    ];
    Ok(SHAPES
        .iter()
        .zip(results)
        .map(|(label, (back, bits))| {
            let m = error_metrics(x, &back);
            ShapeError {
                label,
                bits_per_value: bits,
                sqnr_db: m.sqnr_db,
                rmse: m.rmse,
            }
        })
        .collect())
}

/// NVFP4 of `x` rotated by a 16-point random Hadamard transform, rotated back: what NVFP4
/// training does to the inputs of its weight-gradient matmuls (the error is measured after the
/// inverse, against `x`).
fn rotated_nvfp4(x: &[f32]) -> Result<(Vec<f32>, f64), String> {
    let s = signs(HADAMARD_SEED);
    let not_whole = || format!("{} values are not whole blocks of {HADAMARD}", x.len());
    let y = rotate(x, &s).ok_or_else(not_whole)?;
    let n = Scheme::Nvfp4;
    let mut bytes = vec![0u8; n.layout(NVFP4_BLOCK).bytes_for(y.len())];
    let mut back = vec![0f32; y.len()];
    nvfp4::quantize(&y, &mut bytes).map_err(|e| e.to_string())?;
    nvfp4::dequantize(&bytes, &mut back).map_err(|e| e.to_string())?;
    let x_back = unrotate(&back, &s).ok_or_else(not_whole)?;
    Ok((x_back, n.bits_per_weight(NVFP4_BLOCK, x.len())))
}

/// `x` with input channel (column) `channel` of every row multiplied by `factor`: the outlier
/// feature dimensions LLM.int8() found in large models' activations.
pub fn with_outlier_channel(x: &[f32], cols: usize, channel: usize, factor: f32) -> Vec<f32> {
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            if cols > 0 && i % cols == channel {
                v * factor
            } else {
                v
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::generate::{generate, Distribution};

    fn tensor() -> Vec<f32> {
        generate(Distribution::Normal, 256, 384, 0.02, 7)
    }

    #[test]
    fn finer_scales_never_lose_to_one_scale_per_tensor_on_an_outlier_channel() {
        let x = with_outlier_channel(&tensor(), 384, 5, 100.0);
        let e = block_shape_errors(&x, 384).unwrap();
        assert_eq!(e.len(), SHAPES.len());
        let (tensor, tile, block) = (e[0].sqnr_db, e[1].sqnr_db, e[2].sqnr_db);
        assert!(tile > tensor && block > tensor, "{e:?}");
        // FP4 keeps fewer digits than FP8 whatever its blocks.
        assert!(
            e[4].sqnr_db < e[3].sqnr_db && e[5].sqnr_db < e[3].sqnr_db,
            "{e:?}"
        );
        assert!((e[1].bits_per_value - 8.25).abs() < 1e-12);
        assert!(
            (e[4].bits_per_value - 4.5).abs() < 1e-12,
            "{}",
            e[4].bits_per_value
        );
    }

    /// On MiniLM's query weight (the sample the Quantize page ships) with input channel 5 made
    /// a ×100 outlier: 1×128 tiles keep far more of the signal than one scale per tensor, and
    /// the rotated NVFP4 comes back to the tensor's own values (within 4-bit precision).
    #[test]
    fn on_the_sample_tensor_tiles_confine_an_outlier_channel() {
        let bytes = include_bytes!("../../../../assets/tensors/minilm-l6-layer0.safetensors");
        let t = crate::quant::tensor_io::read_safetensors(bytes, "layer0.attention.query.weight")
            .unwrap();
        let x = with_outlier_channel(&t.values, 384, 5, 100.0);
        let e = block_shape_errors(&x, 384).unwrap();
        assert!(e[1].sqnr_db > e[0].sqnr_db + 10.0, "{e:?}");
        assert!(e[6].sqnr_db > 15.0, "{e:?}");
    }

    #[test]
    fn a_ragged_tensor_is_refused_with_a_sentence() {
        let x = vec![0.5f32; 100];
        assert!(block_shape_errors(&x, 7)
            .unwrap_err()
            .contains("whole rows"));
        assert!(block_shape_errors(&x, 0).is_err());
    }
}
