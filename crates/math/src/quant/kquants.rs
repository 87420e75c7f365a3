//! llama.cpp's K-quants (Q2_K … Q6_K), byte for byte with its reference quantizers
//! (`quantize_row_q*_K_ref` in ggml-quants.c, which `ggml_quantize_chunk` and llama-quantize use
//! when no importance matrix is given), and their dequantizers (`dequantize_row_q*_K`).
//!
//! # How a K-quant super-block is laid out
//!
//! Every K-quant cuts a tensor into **super-blocks of 256 weights** ([`QK_K`]) and each
//! super-block into **sub-blocks** of 16 (Q2_K, Q3_K, Q6_K: 16 sub-blocks) or 32 weights (Q4_K,
//! Q5_K: 8 sub-blocks). Scales are nested two deep:
//!
//! 1. one or two **super-block scales** stored as IEEE half (FP16): `d` and, for the schemes with
//!    an offset, `dmin`;
//! 2. one small **integer scale per sub-block** (and an integer min where there is `dmin`),
//!    multiplied by the super-block scale to give the sub-block's real scale;
//! 3. one small **integer code per weight**.
//!
//! A weight is rebuilt from its code `q`, its sub-block's integer scale `sc` (and min `m`) and the
//! super-block's `d` (and `dmin`):
//!
//! | scheme | bytes | bits/weight | sub-blocks × size | sub-block scale, min | code `q` | value |
//! |--------|------:|------:|------|------|------|------|
//! | Q2_K | 84  | 2.625  | 16 × 16 | 4-bit `sc`, 4-bit `m` | 0..=3 | `d·sc·q − dmin·m` |
//! | Q3_K | 110 | 3.4375 | 16 × 16 | 6-bit `sc` − 32 (signed) | 0..=7 | `d·sc·(q − 4)` |
//! | Q4_K | 144 | 4.5    | 8 × 32  | 6-bit `sc`, 6-bit `m` | 0..=15 | `d·sc·q − dmin·m` |
//! | Q5_K | 176 | 5.5    | 8 × 32  | 6-bit `sc`, 6-bit `m` | 0..=31 | `d·sc·q − dmin·m` |
//! | Q6_K | 210 | 6.5625 | 16 × 16 | 8-bit signed `sc` | 0..=63 | `d·sc·(q − 32)` |
//!
//! Byte layouts (all multi-byte fields little-endian; offsets in bytes):
//! - **Q2_K** ([`q2_k`]): `scales[16]` @0 (low nibble `sc`, high nibble `m`), `qs[64]` @16 (four
//!   2-bit codes per byte), `d` @80, `dmin` @82.
//! - **Q3_K** ([`q3_k`]): `hmask[32]` @0 (the third bit of each code), `qs[64]` @32 (low two
//!   bits), `scales[12]` @96 (sixteen 6-bit scales: low nibbles in bytes 0..8, high two bits in
//!   bytes 8..12), `d` @108.
//! - **Q4_K** ([`q4_k`]): `d` @0, `dmin` @2, `scales[12]` @4 (eight 6-bit scales and eight 6-bit
//!   mins, see [`scale_min_k4`]), `qs[128]` @16 (two 4-bit codes per byte).
//! - **Q5_K** ([`q5_k`]): as Q4_K, then `qh[32]` @16 (the fifth bit of each code) and `qs[128]` @48.
//! - **Q6_K** ([`q6_k`]): `ql[128]` @0 (low four bits), `qh[64]` @128 (high two bits),
//!   `scales[16]` @192 (signed bytes), `d` @208.
//!
//! Within a super-block, codes are interleaved so that SIMD code can unpack 32 neighbours at once:
//! for example Q4_K byte `qs[32·c + l]` holds weight `64·c + l` in its low nibble and weight
//! `64·c + l + 32` in its high nibble. Each submodule's docs give its exact bit positions.
//!
//! # How the reference chooses the numbers
//!
//! For each sub-block the reference fits a scale (and a min) by a small search that minimises a
//! weighted squared (Q4_K, Q5_K, Q3_K, Q6_K) or absolute (Q2_K) error, then quantizes the
//! sub-block scales against the largest one, stores the super-block scale as FP16, and finally
//! re-derives every code from the *stored* scales (so the codes fit what a reader will see). The
//! search is in [`fit`]. All arithmetic is `f32` in the C source's order, with each operation
//! rounded once (the reference library is compiled without FMA contraction).
//!
//! # Rounding, overflow, NaN and infinity
//!
//! Codes round to nearest with ties to even (llama.cpp's `nearest_int`, the 1.5·2^23 trick) and
//! are clamped to the code range; FP16 scales round to nearest even and overflow to ±infinity
//! (when a super-block scale exceeds 65504, e.g. Q4_K sub-block ranges above about 6e7, llama.cpp
//! stores infinity and dequantizes to ±infinity or NaN; so does this port). Tiny weights (|x| ≲
//! 0.01) give FP16-subnormal super-block scales, which are coarse. In Q3_K and Q6_K a sub-block
//! whose largest magnitude is below 1e-15 counts as zero; in Q2_K, Q4_K and Q5_K a constant
//! sub-block gets scale 0.
//! NaN and ±infinity inputs are not rejected: they flow through the same f32 operations as in
//! llama.cpp. For **finite** inputs the bytes are the same on every platform; for non-finite inputs
//! they match llama.cpp on x86-64 natively, and may differ elsewhere only where IEEE leaves a NaN's
//! sign or payload open (WebAssembly does).

pub(crate) mod f4;
pub mod fit;
mod kind;
pub mod q2_k;
pub mod q3_k;
pub mod q4_k;
pub mod q5_k;
pub mod q6_k;

pub use kind::{KType, Rebuild};

use crate::format::half::{f16_bits_to_f32, f32_to_f16_bits};
use f4::F4;
use std::fmt;

/// Weights per K-quant super-block (llama.cpp `QK_K`).
pub const QK_K: usize = 256;

/// A buffer whose length does not fit the scheme's blocks. Quantizers and dequantizers check
/// lengths before writing anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthError {
    /// The number of values is not a whole number of blocks.
    Values {
        /// Scheme name as llama.cpp spells it (`q4_K`, `iq4_nl`, `mxfp6-e3m2`, …).
        scheme: &'static str,
        /// Values given.
        values: usize,
        /// Values per block.
        block_values: usize,
    },
    /// The block bytes do not match the number of values.
    Bytes {
        /// Scheme name.
        scheme: &'static str,
        /// Bytes given.
        bytes: usize,
        /// Bytes that the values need.
        expected: usize,
    },
}

impl fmt::Display for LengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LengthError::Values {
                scheme,
                values,
                block_values,
            } => write!(
                f,
                "{scheme} quantizes whole blocks of {block_values} values, but got {values} values \
                 ({} short of the next whole block)",
                (block_values - values % block_values) % block_values
            ),
            LengthError::Bytes {
                scheme,
                bytes,
                expected,
            } => write!(
                f,
                "{scheme}: these values take {expected} bytes of blocks, but the buffer has {bytes}"
            ),
        }
    }
}

impl std::error::Error for LengthError {}

/// Checks that `values` values split into blocks of `N` and that `bytes` is their size in blocks
/// of `B` bytes.
pub(crate) fn check_lengths<const N: usize, const B: usize>(
    scheme: &'static str,
    values: usize,
    bytes: usize,
) -> Result<(), LengthError> {
    if values % N != 0 {
        return Err(LengthError::Values {
            scheme,
            values,
            block_values: N,
        });
    }
    let expected = values / N * B;
    if bytes != expected {
        return Err(LengthError::Bytes {
            scheme,
            bytes,
            expected,
        });
    }
    Ok(())
}

/// Runs `block` on each `N`-value block of `x` and its `B`-byte slot in `out`, after checking
/// the lengths.
pub(crate) fn quantize_blocks<const N: usize, const B: usize>(
    scheme: &'static str,
    x: &[f32],
    out: &mut [u8],
    mut block: impl FnMut(&[f32; N], &mut [u8; B]),
) -> Result<(), LengthError> {
    check_lengths::<N, B>(scheme, x.len(), out.len())?;
    for (xs, bytes) in x.chunks_exact(N).zip(out.chunks_exact_mut(B)) {
        block(
            xs.try_into().expect("chunks_exact gives N values"),
            bytes.try_into().expect("chunks_exact_mut gives B bytes"),
        );
    }
    Ok(())
}

/// Runs `block` on each `B`-byte block of `blocks` and its `N`-value slot in `out`, after
/// checking the lengths.
pub(crate) fn dequantize_blocks<const N: usize, const B: usize>(
    scheme: &'static str,
    blocks: &[u8],
    out: &mut [f32],
    mut block: impl FnMut(&[u8; B], &mut [f32; N]),
) -> Result<(), LengthError> {
    check_lengths::<N, B>(scheme, out.len(), blocks.len())?;
    for (bytes, ys) in blocks.chunks_exact(B).zip(out.chunks_exact_mut(N)) {
        block(
            bytes.try_into().expect("chunks_exact gives B bytes"),
            ys.try_into().expect("chunks_exact_mut gives N values"),
        );
    }
    Ok(())
}

/// llama.cpp's `nearest_int`: `v` rounded to the nearest integer, ties to even, by adding
/// 1.5·2^23 and reading the low mantissa bits. Exact for |v| ≤ 4194303; beyond that (and for NaN
/// or ±infinity) it returns the same wrapped value as the C code compiled without asserts, which
/// every caller then clamps to its code range.
#[inline(always)]
pub fn nearest_int(v: f32) -> i32 {
    let shifted = x86_nan(v, 12_582_912.0, v + 12_582_912.0);
    (shifted.to_bits() & 0x007F_FFFF) as i32 - 0x0040_0000
}

/// `r`, the IEEE result of an operation on `a` and `b`, with the NaN that x86-64's SSE gives
/// made explicit: a NaN operand comes back quieted (the first when both are), an invalid
/// operation gives the default NaN (negative, quiet). Rust and LLVM leave a NaN's sign and
/// payload open, so without this the codes `nearest_int` reads from a NaN's mantissa would
/// depend on how the code was compiled (the GPU kernels follow the same rule).
#[inline(always)]
pub fn x86_nan(a: f32, b: f32, r: f32) -> f32 {
    if !r.is_nan() {
        return r;
    }
    let quiet = |v: f32| f32::from_bits(v.to_bits() | 0x0040_0000);
    if a.is_nan() {
        quiet(a)
    } else if b.is_nan() {
        quiet(b)
    } else {
        f32::from_bits(0xFFC0_0000)
    }
}

/// `GGML_FP32_TO_FP16`: nearest even, overflow to ±infinity, and a NaN keeps its sign (ggml
/// writes `sign | 0x7E00`).
#[inline]
pub fn ggml_f16(v: f32) -> [u8; 2] {
    let mut h = f32_to_f16_bits(v);
    if v.is_nan() {
        h |= ((v.to_bits() >> 16) & 0x8000) as u16;
    }
    h.to_le_bytes()
}

/// `GGML_FP16_TO_FP32` of two little-endian bytes (exact).
#[inline]
pub fn ggml_f32(b: [u8; 2]) -> f32 {
    f16_bits_to_f32(u16::from_le_bytes(b))
}

/// The 6-bit scale and min of sub-block `j` (0..8) from Q4_K/Q5_K's 12 packed bytes (llama.cpp
/// `get_scale_min_k4`): for j < 4, `sc = q[j] & 63` and `m = q[j+4] & 63`; for j ≥ 4 the low
/// four bits sit in `q[j+4]` (scale low nibble, min high nibble) and the high two bits in the top
/// bits of `q[j-4]` (scale) and `q[j]` (min).
#[inline]
pub fn scale_min_k4(j: usize, q: &[u8; 12]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

/// Packs eight 6-bit scales and mins into Q4_K/Q5_K's 12 bytes, the inverse of [`scale_min_k4`].
pub fn pack_scale_min_k4(scales: &[u8; 8], mins: &[u8; 8]) -> [u8; 12] {
    let mut q = [0u8; 12];
    for j in 0..8 {
        let (ls, lm) = (scales[j], mins[j]);
        if j < 4 {
            q[j] = ls;
            q[j + 4] = lm;
        } else {
            q[j + 4] = (ls & 0xF) | ((lm & 0xF) << 4);
            q[j - 4] |= (ls >> 4) << 6;
            q[j] |= (lm >> 4) << 6;
        }
    }
    q
}

/// The shared second step of Q4_K and Q5_K: quantize the eight sub-block scales and mins to 6 bits
/// against the largest of each, store `d = max_scale/63` and `dmin = max_min/63` as FP16 at
/// `head[0..2]` and `head[2..4]` and the packed 6-bit values at `head[4..16]`; then re-derive
/// every code `q = nearest((x + dmin·m) / (d·sc))`, clamped to `0..=top`, from the stored scales.
/// A sub-block whose stored scale is zero keeps the codes of its fit.
pub(crate) fn finish_k4_k5(
    x: &[f32; QK_K],
    scales: &[f32; 8],
    mins: &[f32; 8],
    top: i32,
    codes: &mut [u8; QK_K],
    head: &mut [u8; 16],
) {
    let max_scale = scales.iter().fold(0f32, |m, &s| if s > m { s } else { m });
    let max_min = mins.iter().fold(0f32, |m, &s| if s > m { s } else { m });
    let inv_scale = if max_scale > 0.0 {
        63.0 / max_scale
    } else {
        0.0
    };
    let inv_min = if max_min > 0.0 { 63.0 / max_min } else { 0.0 };
    let mut ls = [0u8; 8];
    let mut lm = [0u8; 8];
    for j in 0..8 {
        // C stores nearest_int in a uint8_t (wrapping) before MIN(63, ·).
        ls[j] = (nearest_int(inv_scale * scales[j]) as u8).min(63);
        lm[j] = (nearest_int(inv_min * mins[j]) as u8).min(63);
    }
    let packed = pack_scale_min_k4(&ls, &lm);
    head[0..2].copy_from_slice(&ggml_f16(max_scale / 63.0));
    head[2..4].copy_from_slice(&ggml_f16(max_min / 63.0));
    head[4..16].copy_from_slice(&packed);
    let d_all = ggml_f32([head[0], head[1]]);
    let dmin_all = ggml_f32([head[2], head[3]]);
    for j in 0..8 {
        let (sc, m) = scale_min_k4(j, &packed);
        let d = d_all * sc as f32;
        if d == 0.0 {
            continue;
        }
        let dm = dmin_all * m as f32;
        let (xs, cs) = (&x[32 * j..32 * j + 32], &mut codes[32 * j..32 * j + 32]);
        fit::divided_codes(xs, Some(dm), d, 0, top, cs, |c| c);
    }
}

/// Quantizes one Q4_K or Q5_K super-block (`kind`) into `out` (its block bytes): the fit of
/// [`fit_k4_k5`] with `nmax = 2^bits − 1`, `rmin` and `nstep`, the stored scales of
/// [`finish_k4_k5`] in the first 16 bytes, then the codes in `kind`'s bit positions.
pub(crate) fn quantize_k4_k5(kind: KType, x: &[f32; QK_K], rmin: f32, nstep: i32, out: &mut [u8]) {
    let top = (1i32 << kind.code_bits()) - 1;
    let mut codes = [0u8; QK_K];
    let (scales, mins) = fit_k4_k5(x, top, rmin, nstep, &mut codes);
    let head: &mut [u8; 16] = (&mut out[..16]).try_into().expect("16 bytes");
    finish_k4_k5(x, &scales, &mins, top, &mut codes, head);
    kind.pack_codes(&codes, &mut out[16..]);
}

/// Dequantizes one Q4_K or Q5_K super-block `b` (as `dequantize_row_q4_K`/`_q5_K`): the low
/// nibbles from `qs`, plus `fifth(c, l)` (the values 16 × fifth bit that Q5_K adds to weights
/// `64·c + l` and `64·c + l + 32`; `(0, 0)` for Q4_K), scaled `(d·sc)·q − dmin·m`.
pub(crate) fn dequantize_k4_k5(
    b: &[u8],
    qs: &[u8],
    fifth: impl Fn(usize, usize) -> (u8, u8),
    y: &mut [f32; QK_K],
) {
    let d = ggml_f32([b[0], b[1]]);
    let min = ggml_f32([b[2], b[3]]);
    let scales: &[u8; 12] = b[4..16].try_into().expect("12 bytes");
    for c in 0..4 {
        let (sc1, m1) = scale_min_k4(2 * c, scales);
        let (sc2, m2) = scale_min_k4(2 * c + 1, scales);
        let (d1, m1) = (d * sc1 as f32, min * m1 as f32);
        let (d2, m2) = (d * sc2 as f32, min * m2 as f32);
        for l in 0..32 {
            let q = qs[32 * c + l];
            let (h1, h2) = fifth(c, l);
            y[64 * c + l] = d1 * ((q & 0xF) + h1) as f32 - m1;
            y[64 * c + l + 32] = d2 * ((q >> 4) + h2) as f32 - m2;
        }
    }
}

/// The first step of Q3_K and Q6_K: fits each of the sixteen 16-value sub-blocks with `fit`
/// (writing its codes) and returns the sixteen scales, the one of largest magnitude (the first
/// on ties; NaN never wins) and that magnitude.
pub(crate) fn fit_signed_sub_blocks(
    x: &[f32; QK_K],
    codes: &mut [i8; QK_K],
    fit: impl Fn(&[f32; 16], &mut [i8; 16]) -> f32,
) -> ([f32; 16], f32, f32) {
    let mut scales = [0f32; 16];
    let (mut max_scale, mut amax) = (0f32, 0f32);
    for (j, (xs, cs)) in x
        .chunks_exact(16)
        .zip(codes.chunks_exact_mut(16))
        .enumerate()
    {
        scales[j] = fit(
            xs.try_into().expect("16 values"),
            cs.try_into().expect("16 codes"),
        );
        if scales[j].abs() > amax {
            amax = scales[j].abs();
            max_scale = scales[j];
        }
    }
    (scales, max_scale, amax)
}

/// The first step of Q4_K and Q5_K: fits the eight 32-value sub-blocks (side by side) with
/// [`fit::scale_and_min`] under weights `sqrt(mean(x²)) + |x|`, writing the fitted codes.
pub(crate) fn fit_k4_k5(
    x: &[f32; QK_K],
    nmax: i32,
    rmin: f32,
    nstep: i32,
    codes: &mut [u8; QK_K],
) -> ([f32; 8], [f32; 8]) {
    let mut xt = [[0f32; 8]; 32];
    for (j, xs) in x.chunks_exact(32).enumerate() {
        for (row, &v) in xt.iter_mut().zip(xs) {
            row[j] = v;
        }
    }
    // Each sub-block's Σx², in order, as the lanes of two vectors: eight independent chains
    // of additions side by side instead of one after another.
    let mut sum_x2 = [F4::splat(0.0); 2];
    for row in &xt {
        for (h, s) in sum_x2.iter_mut().enumerate() {
            let v = F4::new([row[4 * h], row[4 * h + 1], row[4 * h + 2], row[4 * h + 3]]);
            *s = s.add(v.mul(v));
        }
    }
    let sums = [sum_x2[0].to_array(), sum_x2[1].to_array()];
    let av_x: [f32; 8] = std::array::from_fn(|j| (sums[j / 4][j % 4] / 32.0).sqrt());
    let mut wt = [[0f32; 8]; 32];
    for (wr, xr) in wt.iter_mut().zip(&xt) {
        for j in 0..8 {
            wr[j] = av_x[j] + xr[j].abs();
        }
    }
    let mut ct = [[0u8; 8]; 32];
    let fitted = fit::scale_and_min(&xt, &wt, nmax, rmin, 0.1, nstep, false, &mut ct);
    for (i, row) in ct.iter().enumerate() {
        for (j, &c) in row.iter().enumerate() {
            codes[32 * j + i] = c;
        }
    }
    fitted
}
