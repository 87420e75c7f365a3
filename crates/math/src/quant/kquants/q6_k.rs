//! Q6_K: 6-bit codes with a signed 8-bit scale per 16 weights, 6.5625 bits per weight
//! (llama.cpp `block_q6_K`, `quantize_row_q6_K_ref`, `dequantize_row_q6_K`).
//!
//! Layout of one 210-byte block of [`QK_K`] weights: `ql[128]` @0, `qh[64]` @128, `scales[16]`
//! @192 (signed bytes), `d` (FP16, LE) @208. Weight `i = 128·h + 32·k + l` (h in 0..2, k in 0..4,
//! l in 0..32) has the low four bits of its code in nibble `k / 2` of `ql[64·h + 32·(k % 2) + l]`
//! and the high two bits in bits `2k..2k+2` of `qh[32·h + l]`. Its value is
//! `d·sc_j·(q − 32)` for sub-block j = i/16, computed as `(d·sc)·(q−32)` in `f32`.
//!
//! The fit: per sub-block, [`super::fit::symmetric`] with `nmax = 32`; the sixteen scales are
//! then quantized against the one of largest magnitude to at most 127 (`d = −max_scale/128`). A
//! super-block whose every sub-block fits to a scale below 1e-15 is stored as 210 zero bytes.
//! See the module [`super`] for rounding and non-finite inputs.

use super::{
    dequantize_blocks, fit, fit_signed_sub_blocks, ggml_f16, ggml_f32, nearest_int,
    quantize_blocks, KType, LengthError, QK_K,
};

/// Bytes per 256-weight block.
pub const BLOCK_BYTES: usize = 210;

/// llama.cpp's `block_q6_K`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockQ6K {
    /// Low four bits of the codes.
    pub ql: [u8; QK_K / 2],
    /// High two bits of the codes.
    pub qh: [u8; QK_K / 4],
    /// Sixteen signed 8-bit scales.
    pub scales: [i8; QK_K / 16],
    /// Super-block scale (FP16 bits).
    pub d: u16,
}
const _: () = assert!(std::mem::size_of::<BlockQ6K>() == BLOCK_BYTES);

/// Quantizes one super-block, byte for byte as `quantize_row_q6_K_ref`.
pub fn quantize_block(x: &[f32; QK_K], out: &mut [u8; BLOCK_BYTES]) {
    let mut codes = [0i8; QK_K];
    let (scales, max_scale, max_abs_scale) =
        fit_signed_sub_blocks(x, &mut codes, |xs, c| fit::symmetric(xs, 32, c));
    if max_abs_scale < fit::GROUP_MAX_EPS {
        out.fill(0);
        return;
    }
    let iscale = -128.0 / max_scale;
    let d = ggml_f16(1.0 / iscale);
    let mut packed = [0i8; 16];
    for (p, &s) in packed.iter_mut().zip(&scales) {
        *p = nearest_int(iscale * s).min(127) as i8;
    }
    let d_all = ggml_f32(d);
    for (j, &sc) in packed.iter().enumerate() {
        let d = d_all * sc as f32;
        if d == 0.0 {
            continue;
        }
        let (xs, cs) = (&x[16 * j..16 * j + 16], &mut codes[16 * j..16 * j + 16]);
        fit::divided_codes(xs, None, d, -32, 31, cs, |c| c as i8);
    }
    // Every code is 0..=63 here.
    KType::Q6K.pack_codes(&codes.map(|c| c as u8), &mut out[..192]);
    for (t, p) in out[192..208].iter_mut().zip(packed) {
        *t = p as u8;
    }
    out[208..210].copy_from_slice(&d);
}

/// Dequantizes one super-block, bit for bit as `dequantize_row_q6_K`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK_K]) {
    let d = ggml_f32([b[208], b[209]]);
    for (i, v) in y.iter_mut().enumerate() {
        let (h, k, l) = (i / 128, (i % 128) / 32, i % 32);
        let low = (b[64 * h + 32 * (k % 2) + l] >> (4 * (k / 2))) & 0xF;
        let high = (b[128 + 32 * h + l] >> (2 * k)) & 3;
        let q = (low | (high << 4)) as i32 - 32;
        let sc = b[192 + i / 16] as i8;
        *v = d * sc as f32 * q as f32;
    }
}

/// Quantizes `x` (a multiple of 256 values) into `out` (`x.len() / 256 × 210` bytes), as
/// `ggml_quantize_chunk(GGML_TYPE_Q6_K, …)` without an importance matrix. Checks both lengths
/// before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("q6_K", x, out, quantize_block)
}

/// Dequantizes whole blocks into `out` (256 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("q6_K", blocks, out, dequantize_block)
}
