//! Q3_K: 3-bit codes with a signed 6-bit scale per 16 weights, 3.4375 bits per weight
//! (llama.cpp `block_q3_K`, `quantize_row_q3_K_ref`, `dequantize_row_q3_K`).
//!
//! Layout of one 110-byte block of [`QK_K`] weights: `hmask[32]` @0, `qs[64]` @32,
//! `scales[12]` @96, `d` (FP16, LE) @108. Weight `i = 128·h + 32·k + l` (h in 0..2, k in 0..4,
//! l in 0..32) has the low two bits of its code in bits `2k..2k+2` of `qs[32·h + l]` and the third
//! bit in bit i/32 of `hmask[i % 32]`. Sub-block j (of 16 weights) has the 6-bit scale `s_j`,
//! stored as its low nibble (byte j for j < 8, high nibble of byte j − 8 otherwise) and its high
//! two bits (bits `2·(j/4)` of byte `8 + j % 4`); see [`scale`]. A weight's value is
//! `d·(s_j − 32)·(q − 4)`, computed as `(d·(s−32))·(q−4)` in `f32`.
//!
//! The fit: per sub-block, [`super::fit::q3`] with `nmax = 4`; the sixteen signed scales are then
//! quantized against the one of largest magnitude to `-32..=31` (`d = −max_scale/32`). See the
//! module [`super`] for rounding and non-finite inputs.

use super::{
    dequantize_blocks, fit, fit_signed_sub_blocks, ggml_f16, ggml_f32, nearest_int,
    quantize_blocks, KType, LengthError, QK_K,
};

/// Bytes per 256-weight block.
pub const BLOCK_BYTES: usize = 110;

/// llama.cpp's `block_q3_K`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockQ3K {
    /// Third bits of the codes.
    pub hmask: [u8; QK_K / 8],
    /// Low two bits of the codes.
    pub qs: [u8; QK_K / 4],
    /// Sixteen 6-bit scales.
    pub scales: [u8; 12],
    /// Super-block scale (FP16 bits).
    pub d: u16,
}
const _: () = assert!(std::mem::size_of::<BlockQ3K>() == BLOCK_BYTES);

/// Sub-block `j`'s signed scale (−32..=31) from the 12 packed scale bytes.
#[inline]
pub fn scale(s: &[u8], j: usize) -> i32 {
    let low = if j < 8 { s[j] & 0xF } else { s[j - 8] >> 4 };
    let high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    (low | (high << 4)) as i32 - 32
}

/// Quantizes one super-block, byte for byte as `quantize_row_q3_K_ref`.
pub fn quantize_block(x: &[f32; QK_K], out: &mut [u8; BLOCK_BYTES]) {
    let mut codes = [0i8; QK_K];
    let (scales, max_scale, _) = fit_signed_sub_blocks(x, &mut codes, |xs, c| fit::q3(xs, 4, c));
    let mut packed = [0u8; 12];
    let d = if max_scale != 0.0 {
        let iscale = -32.0 / max_scale;
        for (j, &s) in scales.iter().enumerate() {
            // C keeps nearest_int in an int8_t (wrapping) before clamping.
            let l = ((nearest_int(iscale * s) as i8).clamp(-32, 31) + 32) as u8;
            if j < 8 {
                packed[j] = l & 0xF;
            } else {
                packed[j - 8] |= (l & 0xF) << 4;
            }
            packed[8 + j % 4] |= (l >> 4) << (2 * (j / 4));
        }
        ggml_f16(1.0 / iscale)
    } else {
        ggml_f16(0.0)
    };
    let d_all = ggml_f32(d);
    for j in 0..16 {
        let d = d_all * scale(&packed, j) as f32;
        if d == 0.0 {
            continue;
        }
        let (xs, cs) = (&x[16 * j..16 * j + 16], &mut codes[16 * j..16 * j + 16]);
        fit::divided_codes(xs, None, d, -4, 3, cs, |c| c as i8);
    }
    // Every code is 0..=7 here.
    KType::Q3K.pack_codes(&codes.map(|c| c as u8), &mut out[..96]);
    out[96..108].copy_from_slice(&packed);
    out[108..110].copy_from_slice(&d);
}

/// Dequantizes one super-block, bit for bit as `dequantize_row_q3_K`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK_K]) {
    let d_all = ggml_f32([b[108], b[109]]);
    let scales = &b[96..108];
    for (i, v) in y.iter_mut().enumerate() {
        let dl = d_all * scale(scales, i / 16) as f32;
        let (h, k, l) = (i / 128, (i % 128) / 32, i % 32);
        let low = ((b[32 + 32 * h + l] >> (2 * k)) & 3) as i32;
        let high = (b[i % 32] >> (i / 32)) & 1;
        *v = dl * (low - if high == 1 { 0 } else { 4 }) as f32;
    }
}

/// Quantizes `x` (a multiple of 256 values) into `out` (`x.len() / 256 × 110` bytes), as
/// `ggml_quantize_chunk(GGML_TYPE_Q3_K, …)` without an importance matrix. Checks both lengths
/// before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("q3_K", x, out, quantize_block)
}

/// Dequantizes whole blocks into `out` (256 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("q3_K", blocks, out, dequantize_block)
}
