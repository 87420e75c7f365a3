//! GGML block quantizers, byte-compatible with llama.cpp's `quantize_row_*_ref` (ggml-quants.c)
//! and the `gguf` Python package's numpy mirrors: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and MXFP4.
//!
//! All arithmetic is `f32`, in the reference's order, so the bytes match exactly. Scales are stored
//! as IEEE half (round to nearest, ties to even). Every block holds 32 weights.

use super::kernels::{absmax, scaled_codes};

pub mod fast;
pub mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
use super::checks::whole_blocks;
use super::error::QuantError;
pub use super::ggml_blocks::{
    BlockMxfp4, BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_0, GgmlType, KVALUES_MXFP4, QK,
};
use super::scheme::Scheme;
use crate::format::half::{f16_bits_to_f32 as f16_value, f32_to_f16_bits as f16_bits};

/// Quantizes one 32-weight block into `out` (`t.block_bytes()` long): the bytes of
/// [`scalar::quantize_block_scalar`] (llama.cpp's `quantize_row_*_ref`), from the branch-free
/// loops of [`fast`]. Panics if `x` is not 32 values or `out` not one block's bytes.
#[inline]
pub fn quantize_block(t: GgmlType, x: &[f32], out: &mut [u8]) {
    assert_eq!(
        (x.len(), out.len()),
        (QK, t.block_bytes()),
        "one {t:?} block"
    );
    quantize_blocks(t, x, out);
}

/// Quantizes whole blocks of `x` into `out` (exactly their bytes). The format is matched once
/// and each format gets a loop of its own, into which its block code is inlined: a `match` per
/// block kept one function for all formats, called per block, which in wasm made Q4_0 and Q4_1
/// about 10 % slower than llama.cpp's reference compiled to wasm (`scripts/bench_ggml_wasm.mjs`).
#[inline]
fn quantize_blocks(t: GgmlType, x: &[f32], out: &mut [u8]) {
    match t {
        GgmlType::Q8_0 => each_block(x, out, t, q8_0),
        GgmlType::Q4_0 => each_block(x, out, t, fast::q4_0),
        GgmlType::Q5_0 => each_block(x, out, t, fast::q5_0),
        GgmlType::Q4_1 => each_block(x, out, t, fast::q4_1),
        GgmlType::Q5_1 => each_block(x, out, t, fast::q5_1),
        GgmlType::Mxfp4 => each_block(x, out, t, fast::mxfp4),
    }
}

/// `quantize` on each 32-weight block of `x` and its `t.block_bytes()` of `out`.
#[inline(always)]
fn each_block(x: &[f32], out: &mut [u8], t: GgmlType, quantize: impl Fn(&[f32; QK], &mut [u8])) {
    for (block, o) in x
        .chunks_exact(QK)
        .zip(out.chunks_exact_mut(t.block_bytes()))
    {
        quantize(block.try_into().expect("chunks of 32"), o);
    }
}

/// Q8_0: d = absmax / 127, then the codes round(x / d), written in place by the SIMD kernel.
#[inline]
fn q8_0(x: &[f32; QK], out: &mut [u8]) {
    let d = absmax(x) / 127.0;
    out[..2].copy_from_slice(&f16_bits(d).to_le_bytes());
    scaled_codes(x, inverse(d), &mut out[2..]);
}

/// 1 / `d`, or 0 for a zero scale (llama.cpp's `d ? 1.0f/d : 0.0f`).
#[inline]
fn inverse(d: f32) -> f32 {
    if d == 0.0 {
        0.0
    } else {
        1.0 / d
    }
}

/// Quantizes whole blocks of `x` into `out` (llama.cpp's `quantize_row_*_ref` over a row): `x` a
/// whole number of [`QK`]-weight blocks ([`QuantError::Ragged`] otherwise) and `out` exactly their
/// bytes ([`QuantError::ByteLength`] otherwise). The bytes are [`quantize_block`]'s, block by block.
pub fn quantize_row(t: GgmlType, x: &[f32], out: &mut [u8]) -> Result<(), QuantError> {
    check_row(t, x.len(), out.len())?;
    quantize_blocks(t, x, out);
    Ok(())
}

/// `Ok` when `values` is whole blocks and `bytes` exactly their bytes.
fn check_row(t: GgmlType, values: usize, bytes: usize) -> Result<(), QuantError> {
    whole_blocks(values, QK)?;
    let size = t.block_bytes();
    if bytes == values / QK * size {
        Ok(())
    } else {
        Err(QuantError::ByteLength {
            scheme: Scheme::Ggml(t),
            bytes,
            stride: size,
        })
    }
}

/// Dequantizes whole blocks of `bytes` into `out` ([`QK`] values per block): `bytes` a whole
/// number of blocks ([`QuantError::ByteLength`] otherwise) and `out` exactly their values
/// ([`QuantError::Ragged`] otherwise).
pub fn dequantize_row(t: GgmlType, bytes: &[u8], out: &mut [f32]) -> Result<(), QuantError> {
    let size = t.block_bytes();
    if bytes.len() % size != 0 {
        return Err(QuantError::ByteLength {
            scheme: Scheme::Ggml(t),
            bytes: bytes.len(),
            stride: size,
        });
    }
    if out.len() != bytes.len() / size * QK {
        return Err(QuantError::Ragged {
            values: out.len(),
            block: QK,
        });
    }
    // One loop per format, each with the format's block code inlined (as `quantize_blocks`): in
    // wasm, with Q8_0's codes read in place, Q8_0 went from 6.2 to 26 GB/s.
    match t {
        GgmlType::Q8_0 => each_dequantized(GgmlType::Q8_0, bytes, out),
        GgmlType::Q4_0 => each_dequantized(GgmlType::Q4_0, bytes, out),
        GgmlType::Q5_0 => each_dequantized(GgmlType::Q5_0, bytes, out),
        GgmlType::Q4_1 => each_dequantized(GgmlType::Q4_1, bytes, out),
        GgmlType::Q5_1 => each_dequantized(GgmlType::Q5_1, bytes, out),
        GgmlType::Mxfp4 => each_dequantized(GgmlType::Mxfp4, bytes, out),
    }
    Ok(())
}

/// [`dequantize_block`] on each block, `t` a constant at each call so that the block's code is
/// inlined without its per-block `match` (as `quantize_blocks` does).
#[inline(always)]
fn each_dequantized(t: GgmlType, bytes: &[u8], out: &mut [f32]) {
    for (b, o) in bytes
        .chunks_exact(t.block_bytes())
        .zip(out.chunks_exact_mut(QK))
    {
        dequantize_block(t, b, o);
    }
}

/// `ggml_e8m0_to_fp32_half`: 2^(e-127) / 2, subnormal for e < 2.
pub fn e8m0_to_f32_half(e: u8) -> f32 {
    let bits = if e < 2 {
        0x0020_0000u32 << e
    } else {
        ((e as u32) - 1) << 23
    };
    f32::from_bits(bits)
}

/// Dequantizes one block into 32 weights.
#[inline(always)]
pub fn dequantize_block(t: GgmlType, b: &[u8], out: &mut [f32]) {
    debug_assert_eq!((b.len(), out.len()), (t.block_bytes(), QK));
    let half = |i: usize| f16_value(u16::from_le_bytes([b[i], b[i + 1]]));
    let codes = || {
        let layout = t.layout();
        let mut q = [0u8; QK];
        layout.unpack_codes(&b[layout.code_offset..], &mut q);
        q
    };
    match t {
        GgmlType::Q8_0 => {
            // The codes are the bytes after the scale, as they are.
            let d = half(0);
            for (o, q) in out.iter_mut().zip(&b[2..2 + QK]) {
                *o = (*q as i8) as f32 * d;
            }
        }
        GgmlType::Q4_0 | GgmlType::Q5_0 => {
            let d = half(0);
            let offset = if t == GgmlType::Q4_0 { 8 } else { 16 };
            for (o, q) in out.iter_mut().zip(codes()) {
                *o = (q as i32 - offset) as f32 * d;
            }
        }
        GgmlType::Q4_1 | GgmlType::Q5_1 => {
            let (d, m) = (half(0), half(2));
            for (o, q) in out.iter_mut().zip(codes()) {
                *o = q as f32 * d + m;
            }
        }
        GgmlType::Mxfp4 => {
            let d = e8m0_to_f32_half(b[0]);
            for (o, q) in out.iter_mut().zip(codes()) {
                *o = KVALUES_MXFP4[q as usize] as f32 * d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q8_0_round_trips_within_half_a_step() {
        let x: Vec<f32> = (0..32).map(|i| (i as f32 - 15.5) * 0.37).collect();
        let mut b = [0u8; 34];
        quantize_block(GgmlType::Q8_0, &x, &mut b);
        let mut y = [0f32; 32];
        dequantize_block(GgmlType::Q8_0, &b, &mut y);
        let d = f16_value(u16::from_le_bytes([b[0], b[1]]));
        for (a, b) in x.iter().zip(&y) {
            assert!((a - b).abs() <= d * 0.5 + 1e-3 * d.max(1.0), "{a} vs {b}");
        }
    }

    #[test]
    fn zero_block_has_zero_scale_and_zero_codes() {
        for t in GgmlType::ALL {
            let mut b = vec![0u8; t.block_bytes()];
            quantize_block(t, &[0.0; 32], &mut b);
            let mut y = [1f32; 32];
            dequantize_block(t, &b, &mut y);
            assert!(y.iter().all(|v| *v == 0.0), "{t:?}");
        }
    }
}
