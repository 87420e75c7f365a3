//! Q2_K: 2-bit codes with a 4-bit scale and a 4-bit min per 16 weights, 2.625 bits per weight
//! (llama.cpp `block_q2_K`, `quantize_row_q2_K_ref`, `dequantize_row_q2_K`).
//!
//! Layout of one 84-byte block of [`QK_K`] weights: `scales[16]` @0 (sub-block j's scale in the
//! low nibble, its min in the high nibble), `qs[64]` @16, `d` (FP16, LE) @80, `dmin` (FP16, LE)
//! @82. Weight `i = 128·h + 32·k + l` (h in 0..2, k in 0..4, l in 0..32) has its code in bits
//! `2k..2k+2` of `qs[32·h + l]`. Its value is `d·sc_j·q − dmin·m_j` for sub-block j = i/16,
//! computed as `(d·sc)·q − dmin·m` in `f32`.
//!
//! The fit: per sub-block, [`super::fit::scale_and_min`] with `nmax = 3`, weights `|x|`, 16
//! candidate scales from `(3 − 0.5 + 0.1·is)/range`, absolute error; the sixteen scales and mins
//! are then quantized to 4 bits against the largest of each (`d = max_scale/15`,
//! `dmin = max_min/15`). See the module [`super`] for rounding and non-finite inputs.

use super::{
    dequantize_blocks, fit, ggml_f16, ggml_f32, nearest_int, quantize_blocks, x86_nan, KType,
    LengthError, QK_K,
};

/// Bytes per 256-weight block.
pub const BLOCK_BYTES: usize = 84;

/// llama.cpp's `block_q2_K`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockQ2K {
    /// Sixteen 4-bit scales (low nibbles) and mins (high nibbles).
    pub scales: [u8; QK_K / 16],
    /// Packed 2-bit codes.
    pub qs: [u8; QK_K / 4],
    /// Super-block scale of the sub-block scales (FP16 bits).
    pub d: u16,
    /// Super-block scale of the sub-block mins (FP16 bits).
    pub dmin: u16,
}
const _: () = assert!(std::mem::size_of::<BlockQ2K>() == BLOCK_BYTES);

/// Quantizes one super-block, byte for byte as `quantize_row_q2_K_ref`.
pub fn quantize_block(x: &[f32; QK_K], out: &mut [u8; BLOCK_BYTES]) {
    // The sixteen sub-blocks are fitted side by side: xt[i][j] is value i of sub-block j.
    let mut xt = [[0f32; 16]; 16];
    let mut wt = [[0f32; 16]; 16];
    for (i, (xr, wr)) in xt.iter_mut().zip(wt.iter_mut()).enumerate() {
        for j in 0..16 {
            xr[j] = x[16 * j + i];
            wr[j] = xr[j].abs();
        }
    }
    let mut ct = [[0u8; 16]; 16];
    let (scales, mins) = fit::scale_and_min(&xt, &wt, 3, -0.5, 0.1, 15, true, &mut ct);
    let mut codes = [0u8; QK_K];
    for (i, row) in ct.iter().enumerate() {
        for (j, &c) in row.iter().enumerate() {
            codes[16 * j + i] = c;
        }
    }
    let max_scale = scales.iter().fold(0f32, |m, &s| if s > m { s } else { m });
    let max_min = mins.iter().fold(0f32, |m, &s| if s > m { s } else { m });
    let mut packed = [0u8; 16];
    let mut d = ggml_f16(0.0);
    if max_scale > 0.0 {
        let iscale = 15.0 / max_scale;
        for (p, &s) in packed.iter_mut().zip(&scales) {
            *p = nearest_int(iscale * s) as u8;
        }
        d = ggml_f16(max_scale / 15.0);
    }
    let mut dmin = ggml_f16(0.0);
    if max_min > 0.0 {
        let iscale = 15.0 / max_min;
        for (p, &m) in packed.iter_mut().zip(&mins) {
            *p |= nearest_int(iscale * m).wrapping_shl(4) as u8;
        }
        dmin = ggml_f16(max_min / 15.0);
    }
    let (d_all, dmin_all) = (ggml_f32(d), ggml_f32(dmin));
    for (j, &p) in packed.iter().enumerate() {
        let (sc, m) = ((p & 0xF) as f32, (p >> 4) as f32);
        let d = x86_nan(d_all, sc, d_all * sc);
        if d == 0.0 {
            continue;
        }
        let dm = x86_nan(dmin_all, m, dmin_all * m);
        let (xs, cs) = (&x[16 * j..16 * j + 16], &mut codes[16 * j..16 * j + 16]);
        fit::divided_codes(xs, Some(dm), d, 0, 3, cs, |c| c);
    }
    out[..16].copy_from_slice(&packed);
    KType::Q2K.pack_codes(&codes, &mut out[16..80]);
    out[80..82].copy_from_slice(&d);
    out[82..84].copy_from_slice(&dmin);
}

/// Dequantizes one super-block, bit for bit as `dequantize_row_q2_K`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK_K]) {
    let d = ggml_f32([b[80], b[81]]);
    let min = ggml_f32([b[82], b[83]]);
    for (i, v) in y.iter_mut().enumerate() {
        let sc = b[i / 16];
        let (dl, ml) = (d * (sc & 0xF) as f32, min * (sc >> 4) as f32);
        let (h, k, l) = (i / 128, (i % 128) / 32, i % 32);
        let q = (b[16 + 32 * h + l] >> (2 * k)) & 3;
        *v = dl * q as f32 - ml;
    }
}

/// Quantizes `x` (a multiple of 256 values) into `out` (`x.len() / 256 × 84` bytes), as
/// `ggml_quantize_chunk(GGML_TYPE_Q2_K, …)` without an importance matrix. Checks both lengths
/// before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("q2_K", x, out, quantize_block)
}

/// Dequantizes whole blocks into `out` (256 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("q2_K", blocks, out, dequantize_block)
}
