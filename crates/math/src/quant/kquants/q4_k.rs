//! Q4_K: 4-bit codes with a 6-bit scale and a 6-bit min per 32 weights, 4.5 bits per weight
//! (llama.cpp `block_q4_K`, `quantize_row_q4_K_ref`, `dequantize_row_q4_K`).
//!
//! Layout of one 144-byte block of [`QK_K`] weights: `d` (FP16, LE) @0, `dmin` (FP16, LE) @2,
//! `scales[12]` @4 (sub-block scales and mins, see [`scale_min_k4`]), `qs[128]` @16 where byte
//! `qs[32·c + l]` holds the code of weight `64·c + l` in its low nibble and of `64·c + l + 32` in
//! its high nibble (c in 0..4, l in 0..32). Weight i of sub-block j = i/32 is
//! `d·sc_j·q_i − dmin·m_j`, computed as `(d·sc)·q − dmin·m` in `f32`.
//!
//! The fit: per sub-block, [`super::fit::scale_and_min`] with `nmax = 15`, weights `sqrt(mean(x²)) + |x|`,
//! 21 candidate scales from `(15 − 1 + 0.1·is)/range`, squared error. See the module
//! [`super`] for rounding and non-finite inputs.

use super::{
    dequantize_blocks, dequantize_k4_k5, quantize_blocks, quantize_k4_k5, KType, LengthError, QK_K,
};

/// Bytes per 256-weight block.
pub const BLOCK_BYTES: usize = 144;

/// llama.cpp's `block_q4_K`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockQ4K {
    /// Super-block scale of the sub-block scales (FP16 bits).
    pub d: u16,
    /// Super-block scale of the sub-block mins (FP16 bits).
    pub dmin: u16,
    /// Eight 6-bit scales and eight 6-bit mins.
    pub scales: [u8; 12],
    /// Packed 4-bit codes.
    pub qs: [u8; QK_K / 2],
}
const _: () = assert!(std::mem::size_of::<BlockQ4K>() == BLOCK_BYTES);

/// Quantizes one super-block, byte for byte as `quantize_row_q4_K_ref`.
pub fn quantize_block(x: &[f32; QK_K], out: &mut [u8; BLOCK_BYTES]) {
    quantize_k4_k5(KType::Q4K, x, -1.0, 20, out);
}

/// Dequantizes one super-block, bit for bit as `dequantize_row_q4_K`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK_K]) {
    dequantize_k4_k5(b, &b[16..], |_, _| (0, 0), y);
}

/// Quantizes `x` (a multiple of 256 values) into `out` (`x.len() / 256 × 144` bytes), as
/// `ggml_quantize_chunk(GGML_TYPE_Q4_K, …)` without an importance matrix. Checks both lengths
/// before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("q4_K", x, out, quantize_block)
}

/// Dequantizes whole blocks into `out` (256 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("q4_K", blocks, out, dequantize_block)
}
