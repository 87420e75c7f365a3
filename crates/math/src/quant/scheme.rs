//! Every quantization scheme behind one name: the identity (names, the one list, fixed blocks).
//! [`super::codec`] quantizes and dequantizes by scheme, [`super::checks`] checks a request
//! against it, [`super::layout`] gives its bytes. The CLI's byte formats:
//!
//! - GGML (`q8_0 q4_0 q4_1 q5_0 q5_1`) and `mxfp4`: llama.cpp's block bytes, 32 weights per block.
//! - K-quants (`q2_k q3_k q4_k q5_k q6_k`): llama.cpp's 256-weight super-blocks
//!   ([`super::kquants`]); `iq4_nl` (32 weights) and `nvfp4` (64 weights) as llama.cpp stores them
//!   ([`super::iq4_nl`], [`super::nvfp4`]).
//! - OCP MX (`mxfp8-e4m3 mxfp8-e5m2 mxfp6-e3m2 mxfp6-e2m3`): an E8M0 scale byte then 32 elements
//!   ([`super::mx`]).
//! - `fp8-1x128`: per tile of 128 values, the f32 scale (largest finite |x| / 448, little-endian)
//!   then 128 E4M3 bytes (saturating round to nearest even of x / scale), as DeepSeek-V3 scales
//!   activations. With a column count (the CLI's `--cols`), that count must be a multiple of 128,
//!   so the tiles follow rows: 1×128 tiles within each row.
//! - `fp8-128x128` (the `block` argument is the tensor's column count C, rows row-major): per band
//!   of 128 rows (the last band may have fewer), the band's f32 scales (one per 128×128 block,
//!   left to right, little-endian; largest finite |x| of the block / 448), then the band's E4M3
//!   codes row by row in the tensor's own order. Blocks at the right and bottom edges hold only
//!   their real values, so a band of r rows takes 4·⌈C/128⌉ + r·C bytes: DeepSeek-V3's weight
//!   blocks, the codes laid out as its checkpoints store `weight`, each band's scales as its rows
//!   of `weight_scale_inv`.
//! - `absmax-int8`: per block, the f32 scale (little-endian) then B int8 codes (default B = 64).
//! - `zeropoint-uint8`: per block, the f32 scale, the u8 zero point, then B u8 codes.
//! - `nf4`: per block, the f32 absmax then B/2 bytes of codes (element 2i in the low nibble);
//!   double quantization is a storage estimate in reports, not part of these bytes.
//! - `zeropoint-int4`: per block, the f32 scale, the u8 zero point, then B/2 bytes of 4-bit codes.
//! - `f8e4m3`, `f8e5m2`: one f32 per-tensor scale (amax / format max), then one byte per weight
//!   (saturating round to nearest even of x / scale).
//! - `bf16`, `f16`: plain casts, two little-endian bytes per weight (round to nearest even).
//!
//! `nvfp4` and `mxfp4` also take the random Hadamard transform and stochastic rounding
//! ([`super::fp4_options`]): the same layouts, but bytes written with a transform seed decode to
//! the original values only with that seed.
//!
//! Offsets, sizes and nibble order live in [`super::layout`].

use super::ggml_blocks::{GgmlType, QK};
use super::kquants::{KType, QK_K};
use super::mx::{MxFormat, MX_BLOCK};
use super::{iq4_nl, nvfp4};

/// Values per tile of [`Scheme::Fp8Tile`] (DeepSeek-V3, arXiv:2412.19437, section 3.3.2).
pub const FP8_TILE: usize = 128;
/// Rows and columns per block of [`Scheme::Fp8Block`] (DeepSeek-V3's 128×128 weight blocks).
pub const FP8_BLOCK: usize = 128;

/// The schemes that take the options: NVFP4 and MXFP4 (E2M1 codes on a block scale).
pub const FP4_OPTION_SCHEMES: [Scheme; 2] = [Scheme::Nvfp4, Scheme::Ggml(GgmlType::Mxfp4)];

mod family;
pub use family::SchemeFamily;

/// A quantization scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// A GGML block format (or MXFP4).
    Ggml(GgmlType),
    /// A llama.cpp K-quant (256-weight super-blocks).
    KQuant(KType),
    /// llama.cpp's IQ4_NL: a non-linear 4-bit table, 32 weights per FP16 scale.
    Iq4Nl,
    /// NVFP4 as llama.cpp stores it: E2M1 values, a UE4M3 scale per 16 weights.
    Nvfp4,
    /// An OCP MX format with FP8 or FP6 elements.
    Mx(MxFormat),
    /// FP8 E4M3 with an FP32 scale per tile of 128 consecutive values: DeepSeek-V3's 1×128
    /// activation tiles (one row, 128 channels).
    Fp8Tile,
    /// FP8 E4M3 with an FP32 scale per 128×128 block of a row-major 2D tensor: DeepSeek-V3's
    /// weight blocks. Its `block` argument everywhere is the tensor's column count.
    Fp8Block,
    /// Symmetric absmax INT8.
    AbsmaxInt8,
    /// Asymmetric min-max UINT8.
    ZeroPointUint8,
    /// Asymmetric min-max 4-bit.
    ZeroPointInt4,
    /// NormalFloat 4-bit.
    Nf4,
    /// FP8 E4M3 with a per-tensor scale.
    F8E4M3,
    /// FP8 E5M2 with a per-tensor scale.
    F8E5M2,
    /// A plain cast to bfloat16.
    Bf16,
    /// A plain cast to IEEE half.
    F16,
}

impl Scheme {
    /// Every scheme, in the CLI's order.
    ///
    /// The one list of schemes: the CLI's `--scheme`, the lab's table and picker and its URL
    /// parameter all read it.
    pub const ALL: [Scheme; 27] = [
        Scheme::Ggml(GgmlType::Q8_0),
        Scheme::Ggml(GgmlType::Q4_0),
        Scheme::Ggml(GgmlType::Q4_1),
        Scheme::Ggml(GgmlType::Q5_0),
        Scheme::Ggml(GgmlType::Q5_1),
        Scheme::KQuant(KType::Q2K),
        Scheme::KQuant(KType::Q3K),
        Scheme::KQuant(KType::Q4K),
        Scheme::KQuant(KType::Q5K),
        Scheme::KQuant(KType::Q6K),
        Scheme::Iq4Nl,
        Scheme::Ggml(GgmlType::Mxfp4),
        Scheme::Nvfp4,
        Scheme::Mx(MxFormat::Fp6E2M3),
        Scheme::Mx(MxFormat::Fp6E3M2),
        Scheme::Mx(MxFormat::Fp8E4M3),
        Scheme::Mx(MxFormat::Fp8E5M2),
        Scheme::Fp8Tile,
        Scheme::Fp8Block,
        Scheme::Nf4,
        Scheme::AbsmaxInt8,
        Scheme::ZeroPointUint8,
        Scheme::ZeroPointInt4,
        Scheme::F8E4M3,
        Scheme::F8E5M2,
        Scheme::Bf16,
        Scheme::F16,
    ];

    /// CLI name.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Ggml(GgmlType::Q8_0) => "q8_0",
            Scheme::Ggml(GgmlType::Q4_0) => "q4_0",
            Scheme::Ggml(GgmlType::Q4_1) => "q4_1",
            Scheme::Ggml(GgmlType::Q5_0) => "q5_0",
            Scheme::Ggml(GgmlType::Q5_1) => "q5_1",
            Scheme::Ggml(GgmlType::Mxfp4) => "mxfp4",
            Scheme::KQuant(t) => t.name(),
            Scheme::Iq4Nl => "iq4_nl",
            Scheme::Nvfp4 => "nvfp4",
            Scheme::Mx(f) => f.name(),
            Scheme::Fp8Tile => "fp8-1x128",
            Scheme::Fp8Block => "fp8-128x128",
            Scheme::Nf4 => "nf4",
            Scheme::AbsmaxInt8 => "absmax-int8",
            Scheme::ZeroPointUint8 => "zeropoint-uint8",
            Scheme::ZeroPointInt4 => "zeropoint-int4",
            Scheme::F8E4M3 => "f8e4m3",
            Scheme::F8E5M2 => "f8e5m2",
            Scheme::Bf16 => "bf16",
            Scheme::F16 => "f16",
        }
    }

    /// The block size of a format that has only one, in values: 32 for GGML, MXFP4, IQ4_NL and
    /// the MX formats, 256 for the K-quants, 64 for NVFP4; 1 for the per-value formats (FP8 and
    /// the casts). `None` where the block is the user's choice, and for `fp8-128x128`, whose
    /// `block` is the tensor's column count.
    pub const fn fixed_block(self) -> Option<usize> {
        match self {
            Scheme::Ggml(_) => Some(QK),
            Scheme::KQuant(_) => Some(QK_K),
            Scheme::Iq4Nl => Some(iq4_nl::QK4_NL),
            Scheme::Nvfp4 => Some(nvfp4::QK_NVFP4),
            Scheme::Mx(_) => Some(MX_BLOCK),
            Scheme::Fp8Tile => Some(FP8_TILE),
            Scheme::F8E4M3 | Scheme::F8E5M2 | Scheme::Bf16 | Scheme::F16 => Some(1),
            Scheme::AbsmaxInt8
            | Scheme::ZeroPointUint8
            | Scheme::ZeroPointInt4
            | Scheme::Nf4
            | Scheme::Fp8Block => None,
        }
    }

    /// The block size used when none is given: [`Scheme::fixed_block`], else 64 (for
    /// `fp8-128x128`, 128 columns: one column of blocks).
    pub const fn default_block(self) -> usize {
        match (self, self.fixed_block()) {
            (_, Some(b)) => b,
            (Scheme::Fp8Block, None) => FP8_BLOCK,
            _ => 64,
        }
    }

    /// Whether the scheme tiles a 2D tensor (`fp8-128x128`): its `block` argument is the
    /// tensor's column count, and a tensor without a shape needs one given.
    pub const fn needs_columns(self) -> bool {
        matches!(self, Scheme::Fp8Block)
    }
}
