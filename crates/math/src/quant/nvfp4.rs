//! NVFP4 as llama.cpp stores it (`GGML_TYPE_NVFP4`, `block_nvfp4`, `quantize_row_nvfp4_ref`,
//! `dequantize_row_nvfp4`): FP4 E2M1 values with an unsigned FP8 E4M3 ("UE4M3") scale per 16
//! weights, 4.5 bits per weight.
//!
//! Layout of one 36-byte block of 64 weights: `d[4]` @0, one UE4M3 scale byte per 16-weight
//! sub-block, then `qs[32]` @4, where sub-block s uses `qs[8·s .. 8·s + 8]` and byte `qs[8·s + j]`
//! holds the E2M1 code of weight `16·s + j` in its low nibble and of `16·s + j + 8` in its high
//! nibble. A weight's value is `e2m1(code) × ue4m3(d[s])`, computed as
//! `KVALUES_MXFP4[code] × (ue4m3(d[s]) / 2)` in `f32` (the table holds doubled E2M1 values).
//!
//! Encoding, as llama.cpp does it: per sub-block, `amax` = the largest |x| (NaN never wins), the
//! scale byte is [`ue4m3_from_f32`]`(amax / 6)` and each code is the first of the 16 E2M1 codes
//! nearest to x·(2/scale), by f32 error (so NaN takes code 0, and ties the smaller magnitude).
//!
//! How this differs from NVIDIA's NVFP4 (the Blackwell format, as described in NVIDIA's
//! "Introducing NVFP4" and the PTX ISA's `e2m1x2`/`ue4m3` types): NVIDIA adds a per-tensor FP32
//! scale on top of the E4M3 block scales and rounds the scale to nearest even; llama.cpp has no
//! tensor scale, groups four 16-value sub-blocks in a 64-value block, and its UE4M3 conversion has
//! its own rounding (see [`ue4m3_from_f32`]).

use super::ggml_blocks::KVALUES_MXFP4;
use super::kquants::{dequantize_blocks, quantize_blocks, LengthError};

/// Weights per block (llama.cpp `QK_NVFP4`).
pub const QK_NVFP4: usize = 64;

/// Weights per scaled sub-block (llama.cpp `QK_NVFP4_SUB`).
pub const QK_NVFP4_SUB: usize = 16;

/// Bytes per block.
pub const BLOCK_BYTES: usize = 36;

/// llama.cpp's `block_nvfp4`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockNvfp4 {
    /// UE4M3 scale bytes, one per sub-block.
    pub d: [u8; QK_NVFP4 / QK_NVFP4_SUB],
    /// Packed E2M1 codes.
    pub qs: [u8; QK_NVFP4 / 2],
}
const _: () = assert!(std::mem::size_of::<BlockNvfp4>() == BLOCK_BYTES);

/// llama.cpp's `ggml_fp32_to_ue4m3`: the UE4M3 byte (4 exponent bits, bias 7, 3 mantissa bits,
/// no sign) for a scale `x`.
///
/// - `x` not above 0 (zero, negative, NaN) gives 0; `x` above 448 (+infinity included) is first
///   clamped to 448.
/// - Normal range: the mantissa is cut to 3 bits and rounded **half up** on the first dropped bit
///   (ties away from zero, not to even); a carry moves into the exponent.
/// - Every `x` of 256 or more (f32 exponent 8 → UE4M3 exponent field 15) gives 0x7E = 448, as
///   does a carry into that field: bytes 0x78..=0x7D are never produced.
/// - Below 2^-6 the value is subnormal: `round(x·512)` half up, capped at 7 (so values that
///   would round up to 2^-6 stay at 7·2^-9), and 0 when that rounds to 0.
pub fn ue4m3_from_f32(x: f32) -> u8 {
    // Written as comparisons that are false for NaN, as in the C code.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(x > 0.0) {
        return 0;
    }
    let x = if x > 448.0 { 448.0 } else { x };
    let bits = x.to_bits();
    let mut exp = ((bits >> 23) & 0xFF) as i32 - 127 + 7;
    if exp <= 0 {
        let man = (x * 512.0 + 0.5) as i32;
        return man.clamp(0, 7) as u8;
    }
    if exp >= 15 {
        return 0x7E;
    }
    let mut man = ((bits >> 20) & 7) + ((bits >> 19) & 1);
    if man > 7 {
        man = 0;
        exp += 1;
        if exp >= 15 {
            return 0x7E;
        }
    }
    ((exp as u32) << 3 | man) as u8
}

/// llama.cpp's `ggml_ue4m3_to_fp32`: the value of a UE4M3 byte. The top bit is ignored, and
/// 0x7F (E4M3's NaN pattern) reads as 0, as does 0x00. Exact.
pub fn ue4m3_to_f32(b: u8) -> f32 {
    if b == 0 || b == 0x7F {
        return 0.0;
    }
    let exp = ((b >> 3) & 0xF) as i32;
    let man = (b & 7) as f32;
    if exp == 0 {
        man * 2f32.powi(-9)
    } else {
        (1.0 + man / 8.0) * 2f32.powi(exp - 7)
    }
}

/// llama.cpp's `best_index_mxfp4`: the first of the 16 codes whose `KVALUES_MXFP4[i]·d` is
/// nearest to `x` by f32 error (NaN: code 0).
#[inline]
fn best_code(x: f32, d: f32) -> u8 {
    let mut best = 0u8;
    let mut best_err = (KVALUES_MXFP4[0] as f32 * d - x).abs();
    for (i, &k) in KVALUES_MXFP4.iter().enumerate().skip(1) {
        let err = (k as f32 * d - x).abs();
        if err < best_err {
            best = i as u8;
            best_err = err;
        }
    }
    best
}

/// Quantizes one 64-weight block, byte for byte as `quantize_row_nvfp4_ref`.
pub fn quantize_block(x: &[f32; QK_NVFP4], out: &mut [u8; BLOCK_BYTES]) {
    for s in 0..QK_NVFP4 / QK_NVFP4_SUB {
        let xb = &x[QK_NVFP4_SUB * s..QK_NVFP4_SUB * (s + 1)];
        let mut amax = 0f32;
        for &v in xb {
            if amax < v.abs() {
                amax = v.abs();
            }
        }
        let ue = ue4m3_from_f32(amax / 6.0);
        out[s] = ue;
        let d = ue4m3_to_f32(ue) * 0.5;
        for j in 0..QK_NVFP4_SUB / 2 {
            out[4 + 8 * s + j] = best_code(xb[j], d) | (best_code(xb[j + 8], d) << 4);
        }
    }
}

/// Dequantizes one block, bit for bit as `dequantize_row_nvfp4`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK_NVFP4]) {
    for s in 0..QK_NVFP4 / QK_NVFP4_SUB {
        let d = ue4m3_to_f32(b[s]) * 0.5;
        for j in 0..QK_NVFP4_SUB / 2 {
            let q = b[4 + 8 * s + j];
            y[16 * s + j] = KVALUES_MXFP4[(q & 0xF) as usize] as f32 * d;
            y[16 * s + j + 8] = KVALUES_MXFP4[(q >> 4) as usize] as f32 * d;
        }
    }
}

/// Quantizes `x` (a multiple of 64 values) into `out` (`x.len() / 64 × 36` bytes) as
/// `ggml_quantize_chunk(GGML_TYPE_NVFP4, …)`. Checks both lengths before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("nvfp4", x, out, quantize_block)
}

/// Dequantizes whole blocks into `out` (64 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("nvfp4", blocks, out, dequantize_block)
}
