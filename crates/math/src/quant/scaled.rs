//! One value through a block-scaled format: its element code, the block's scale in its own format
//! (E8M0 for OCP MX, unsigned E4M3 for NVFP4, FP32 for DeepSeek-V3's 1×128 tiles) and NVFP4's
//! FP32 tensor scale, and the value they decode to: code × block scale × tensor scale.
//!
//! - MXFP8 / MXFP4 (OCP MX v1.0, section 6.3): the scale is 2^(floor(log2 amax) − emax), emax
//!   being the element format's largest exponent (E4M3: 8, E2M1: 2), stored as its biased exponent
//!   (bias 127) in one byte.
//! - NVFP4 (arXiv:2509.25149, section 2; Transformer Engine's NVFP4BlockScaling): the tensor scale
//!   is amax_tensor / (6 × 448), so that the largest block scale fits E4M3; each block's scale is
//!   amax_block / 6 in units of the tensor scale, rounded to unsigned E4M3 as llama.cpp does
//!   ([`super::nvfp4::ue4m3_from_f32`]).
//! - FP8 1×128: an FP32 scale amax / 448 per tile.
//!
//! Elements are rounded to nearest even and saturate at the element format's largest value.

use super::mx::{e8m0_value, shared_scale, MxFormat};
use super::nvfp4::{ue4m3_from_f32, ue4m3_to_f32};
use crate::format::{FormatId, Overflow};

/// A block-scaled format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockFormat {
    /// OCP MXFP8: E4M3 elements, an E8M0 scale per 32.
    Mxfp8,
    /// OCP MXFP4: E2M1 elements, an E8M0 scale per 32.
    Mxfp4,
    /// NVFP4: E2M1 elements, an unsigned E4M3 scale per 16, an FP32 scale per tensor.
    Nvfp4,
    /// DeepSeek-V3's activations: E4M3 elements, an FP32 scale per 1×128 tile.
    Fp8Tile,
}

impl BlockFormat {
    /// Every block format, in the order the page lists them.
    pub const ALL: [BlockFormat; 4] = [
        BlockFormat::Mxfp8,
        BlockFormat::Mxfp4,
        BlockFormat::Nvfp4,
        BlockFormat::Fp8Tile,
    ];

    /// Stable name for URLs and menus.
    pub const fn name(self) -> &'static str {
        match self {
            BlockFormat::Mxfp8 => "mxfp8",
            BlockFormat::Mxfp4 => "mxfp4",
            BlockFormat::Nvfp4 => "nvfp4",
            BlockFormat::Fp8Tile => "fp8-1x128",
        }
    }

    /// What it is, in words.
    pub const fn label(self) -> &'static str {
        match self {
            BlockFormat::Mxfp8 => "MXFP8: E4M3 × E8M0 scale per 32",
            BlockFormat::Mxfp4 => "MXFP4: E2M1 × E8M0 scale per 32",
            BlockFormat::Nvfp4 => "NVFP4: E2M1 × E4M3 scale per 16 × FP32 tensor scale",
            BlockFormat::Fp8Tile => "FP8 1×128: E4M3 × FP32 scale per tile",
        }
    }

    /// The element format.
    pub const fn element(self) -> FormatId {
        match self {
            BlockFormat::Mxfp8 | BlockFormat::Fp8Tile => FormatId::F8E4M3,
            BlockFormat::Mxfp4 | BlockFormat::Nvfp4 => FormatId::F4E2M1,
        }
    }

    /// The scale's format: "E8M0", "UE4M3" or "FP32".
    pub const fn scale_format(self) -> &'static str {
        match self {
            BlockFormat::Mxfp8 | BlockFormat::Mxfp4 => "E8M0",
            BlockFormat::Nvfp4 => "UE4M3",
            BlockFormat::Fp8Tile => "FP32",
        }
    }
}

crate::name_text!(BlockFormat, String, |s: &str| format!(
    "unknown block format '{s}'; expected mxfp8, mxfp4, nvfp4 or fp8-1x128"
));

/// A value through a block-scaled format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled {
    /// The format.
    pub format: BlockFormat,
    /// The block scale's bits (8 for E8M0 and UE4M3, 32 for FP32).
    pub scale_bits: u32,
    /// The block scale's value.
    pub block_scale: f64,
    /// The tensor scale (1 except for NVFP4).
    pub tensor_scale: f64,
    /// The element's code.
    pub code: u32,
    /// The element's value.
    pub element: f64,
    /// code × block scale × tensor scale.
    pub value: f64,
}

/// E2M1's largest value.
const E2M1_MAX: f64 = 6.0;
/// E4M3's largest value.
const E4M3_MAX: f64 = 448.0;

/// `x` in a block whose largest magnitude is `block_amax` (of a tensor whose largest is
/// `tensor_amax`, used by NVFP4 only). Errs with a sentence when an amax is not finite and
/// positive, or `x` is not finite, or |x| exceeds the block's amax.
pub fn scaled(
    format: BlockFormat,
    x: f64,
    block_amax: f64,
    tensor_amax: f64,
) -> Result<Scaled, String> {
    let positive = |v: f64, what: &str| {
        if v.is_finite() && v > 0.0 {
            Ok(())
        } else {
            Err(format!("the {what} must be a finite number above 0"))
        }
    };
    positive(block_amax, "block's largest magnitude")?;
    if !x.is_finite() {
        return Err("the value must be finite".into());
    }
    if x.abs() > block_amax {
        return Err(format!(
            "|{x}| is larger than the block's largest magnitude {block_amax}"
        ));
    }
    let (scale_bits, block_scale, tensor_scale) = match format {
        BlockFormat::Mxfp8 | BlockFormat::Mxfp4 => {
            let byte = match format {
                BlockFormat::Mxfp8 => shared_scale(MxFormat::Fp8E4M3, block_amax as f32),
                _ => mxfp4_scale(block_amax),
            };
            (byte as u32, e8m0_value(byte) as f64, 1.0)
        }
        BlockFormat::Nvfp4 => {
            positive(tensor_amax, "tensor's largest magnitude")?;
            if block_amax > tensor_amax {
                return Err("the block's largest magnitude cannot exceed the tensor's".into());
            }
            let tensor = tensor_amax / (E2M1_MAX * E4M3_MAX);
            let byte = ue4m3_from_f32((block_amax / E2M1_MAX / tensor) as f32);
            (byte as u32, ue4m3_to_f32(byte) as f64, tensor)
        }
        BlockFormat::Fp8Tile => {
            let s = (block_amax as f32) / E4M3_MAX as f32;
            (s.to_bits(), s as f64, 1.0)
        }
    };
    let element_format = format.element();
    let step = block_scale * tensor_scale;
    let code = if step == 0.0 {
        element_format.encode(0.0, Overflow::Saturate)
    } else {
        element_format.encode(x / step, Overflow::Saturate)
    };
    let element = element_format.decode(code);
    Ok(Scaled {
        format,
        scale_bits,
        block_scale,
        tensor_scale,
        code,
        element,
        value: element * step,
    })
}

/// MXFP4's E8M0 byte for a block of largest magnitude `amax` > 0: floor(log2 amax) − 2 + 127,
/// clamped to 0..=254.
fn mxfp4_scale(amax: f64) -> u8 {
    let e = amax.log2().floor() as i32 - 2;
    (e.clamp(-127, 127) + 127) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mxfp8_scales_by_a_power_of_two_from_the_block_amax() {
        // amax 3.0: floor(log2 3) = 1, minus E4M3's emax 8: 2^-7, byte 120.
        let s = scaled(BlockFormat::Mxfp8, 0.1, 3.0, 3.0).unwrap();
        assert_eq!(s.scale_bits, 120);
        assert_eq!(s.block_scale, 2f64.powi(-7));
        // 0.1 × 128 = 12.8 → E4M3 13.0 (steps of 1 between 8 and 16).
        assert_eq!(s.element, 13.0);
        assert_eq!(s.value, 13.0 / 128.0);
    }

    #[test]
    fn mxfp4_and_nvfp4_keep_e2m1_codes_under_their_scales() {
        let m = scaled(BlockFormat::Mxfp4, 1.0, 6.0, 6.0).unwrap();
        // floor(log2 6) = 2, minus 2: scale 1, byte 127; 1.0 is an E2M1 value.
        assert_eq!((m.scale_bits, m.block_scale, m.value), (127, 1.0, 1.0));
        let n = scaled(BlockFormat::Nvfp4, 1.0, 6.0, 6.0 * 448.0).unwrap();
        // Tensor scale 1; block scale 6 / 6 = 1.0 in UE4M3 (0x38).
        assert_eq!(
            (n.tensor_scale, n.block_scale, n.scale_bits),
            (1.0, 1.0, 0x38)
        );
        assert_eq!(n.value, 1.0);
    }

    #[test]
    fn the_fp8_tile_scale_is_an_fp32_amax_over_448() {
        let t = scaled(BlockFormat::Fp8Tile, 448.0, 448.0, 1.0).unwrap();
        assert_eq!((t.block_scale, t.element, t.value), (1.0, 448.0, 448.0));
        assert_eq!(t.scale_bits, 1.0f32.to_bits());
    }

    #[test]
    fn bad_inputs_get_sentences() {
        assert!(scaled(BlockFormat::Mxfp8, 5.0, 3.0, 3.0)
            .unwrap_err()
            .contains("larger"));
        assert!(scaled(BlockFormat::Mxfp8, 1.0, 0.0, 3.0)
            .unwrap_err()
            .contains("above 0"));
        assert!(scaled(BlockFormat::Nvfp4, 1.0, 6.0, 1.0)
            .unwrap_err()
            .contains("cannot exceed"));
        assert!(scaled(BlockFormat::Fp8Tile, f64::NAN, 1.0, 1.0).is_err());
        assert_eq!("FP8-1X128".parse::<BlockFormat>(), Ok(BlockFormat::Fp8Tile));
    }
}
