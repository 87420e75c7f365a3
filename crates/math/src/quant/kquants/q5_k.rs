//! Q5_K: 5-bit codes with a 6-bit scale and a 6-bit min per 32 weights, 5.5 bits per weight
//! (llama.cpp `block_q5_K`, `quantize_row_q5_K_ref`, `dequantize_row_q5_K`).
//!
//! Layout of one 176-byte block of [`QK_K`] weights: `d` (FP16, LE) @0, `dmin` (FP16, LE) @2,
//! `scales[12]` @4 (as Q4_K, see [`scale_min_k4`]), `qh[32]` @16, `qs[128]` @48. Weight
//! `i = 64·c + 32·h + l` (c in 0..4, h in 0..2, l in 0..32) has its low four bits in nibble h of
//! `qs[32·c + l]` and its fifth bit in bit `2·c + h` (= i/32) of `qh[l]`. Its value is
//! `d·sc_j·q − dmin·m_j` for sub-block j = i/32, computed as `(d·sc)·q − dmin·m` in `f32`.
//!
//! The fit: per sub-block, [`super::fit::scale_and_min`] with `nmax = 31`, weights
//! `sqrt(mean(x²)) + |x|`, 16 candidate scales from `(31 − 0.5 + 0.1·is)/range`, squared error.
//! See the module [`super`] for rounding and non-finite inputs.

use super::{
    dequantize_blocks, dequantize_k4_k5, quantize_blocks, quantize_k4_k5, KType, LengthError, QK_K,
};

/// Bytes per 256-weight block.
pub const BLOCK_BYTES: usize = 176;

/// llama.cpp's `block_q5_K`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockQ5K {
    /// Super-block scale of the sub-block scales (FP16 bits).
    pub d: u16,
    /// Super-block scale of the sub-block mins (FP16 bits).
    pub dmin: u16,
    /// Eight 6-bit scales and eight 6-bit mins.
    pub scales: [u8; 12],
    /// Fifth bits of the codes.
    pub qh: [u8; QK_K / 8],
    /// Low four bits of the codes.
    pub qs: [u8; QK_K / 2],
}
const _: () = assert!(std::mem::size_of::<BlockQ5K>() == BLOCK_BYTES);

/// Quantizes one super-block, byte for byte as `quantize_row_q5_K_ref`.
pub fn quantize_block(x: &[f32; QK_K], out: &mut [u8; BLOCK_BYTES]) {
    quantize_k4_k5(KType::Q5K, x, -0.5, 15, out);
}

/// Dequantizes one super-block, bit for bit as `dequantize_row_q5_K`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK_K]) {
    let qh = &b[16..48];
    let fifth = |c: usize, l: usize| {
        (
            ((qh[l] >> (2 * c)) & 1) * 16,
            ((qh[l] >> (2 * c + 1)) & 1) * 16,
        )
    };
    dequantize_k4_k5(b, &b[48..], fifth, y);
}

/// Quantizes `x` (a multiple of 256 values) into `out` (`x.len() / 256 × 176` bytes), as
/// `ggml_quantize_chunk(GGML_TYPE_Q5_K, …)` without an importance matrix. Checks both lengths
/// before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("q5_K", x, out, quantize_block)
}

/// Dequantizes whole blocks into `out` (256 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("q5_K", blocks, out, dequantize_block)
}
