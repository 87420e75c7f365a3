//! GGML block quantizers, byte-compatible with llama.cpp's `quantize_row_*_ref` (ggml-quants.c)
//! and the `gguf` Python package's numpy mirrors: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and MXFP4.
//!
//! All arithmetic is `f32`, in the reference's order, so the bytes match exactly. Scales are stored
//! as IEEE half (round to nearest, ties to even). Every block holds 32 weights.

use super::kernels::{absmax, scaled_codes};
use super::layout::Layout;
use super::scheme::Scheme;
use crate::format::half::{f16_bits_to_f32 as f16_value, f32_to_f16_bits as f16_bits};

/// Weights per GGML block.
pub const QK: usize = 32;

// llama.cpp's `#[repr(C)]` block structs (ggml-common.h): [`Layout::of`] takes each format's code
// offset from them, and its block sizes are checked against theirs.

/// llama.cpp `block_q8_0 { ggml_half d; int8_t qs[32]; }`.
#[repr(C)]
pub struct BlockQ8_0 {
    /// Scale (IEEE half bits).
    pub d: u16,
    /// Codes.
    pub qs: [i8; QK],
}
const _: () = assert!(std::mem::size_of::<BlockQ8_0>() == 34);

/// llama.cpp `block_q4_0 { ggml_half d; uint8_t qs[16]; }`: low nibbles hold weights 0..16,
/// high nibbles 16..32.
#[repr(C)]
pub struct BlockQ4_0 {
    /// Scale (IEEE half bits).
    pub d: u16,
    /// Packed nibbles.
    pub qs: [u8; QK / 2],
}
const _: () = assert!(std::mem::size_of::<BlockQ4_0>() == 18);

/// llama.cpp `block_q4_1 { ggml_half d; ggml_half m; uint8_t qs[16]; }`.
#[repr(C)]
pub struct BlockQ4_1 {
    /// Scale.
    pub d: u16,
    /// Minimum.
    pub m: u16,
    /// Packed nibbles.
    pub qs: [u8; QK / 2],
}
const _: () = assert!(std::mem::size_of::<BlockQ4_1>() == 20);

/// llama.cpp `block_q5_0 { ggml_half d; uint8_t qh[4]; uint8_t qs[16]; }`: bit j of qh is the
/// fifth bit of weight j.
#[repr(C)]
pub struct BlockQ5_0 {
    /// Scale.
    pub d: u16,
    /// Fifth bits.
    pub qh: [u8; 4],
    /// Low nibbles.
    pub qs: [u8; QK / 2],
}
const _: () = assert!(std::mem::size_of::<BlockQ5_0>() == 22);

/// llama.cpp `block_q5_1 { ggml_half d; ggml_half m; uint8_t qh[4]; uint8_t qs[16]; }`.
#[repr(C)]
pub struct BlockQ5_1 {
    /// Scale.
    pub d: u16,
    /// Minimum.
    pub m: u16,
    /// Fifth bits.
    pub qh: [u8; 4],
    /// Low nibbles.
    pub qs: [u8; QK / 2],
}
const _: () = assert!(std::mem::size_of::<BlockQ5_1>() == 24);

/// llama.cpp `block_mxfp4 { uint8_t e; uint8_t qs[16]; }`: an E8M0 shared exponent and E2M1 codes.
#[repr(C)]
pub struct BlockMxfp4 {
    /// E8M0 scale exponent.
    pub e: u8,
    /// Packed E2M1 codes.
    pub qs: [u8; QK / 2],
}
const _: () = assert!(std::mem::size_of::<BlockMxfp4>() == 17);

/// The GGML block formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GgmlType {
    /// 8-bit, absmax scale.
    Q8_0,
    /// 4-bit, signed scale from the largest-magnitude weight.
    Q4_0,
    /// 4-bit with scale and minimum.
    Q4_1,
    /// 5-bit, signed scale.
    Q5_0,
    /// 5-bit with scale and minimum.
    Q5_1,
    /// OCP MX FP4: E2M1 codes with a shared E8M0 exponent.
    Mxfp4,
}

impl GgmlType {
    /// Bytes per 32-weight block (from [`Layout`]).
    pub const fn block_bytes(self) -> usize {
        self.layout().block_bytes
    }

    /// The format's byte layout.
    pub const fn layout(self) -> Layout {
        Layout::of(Scheme::Ggml(self), QK)
    }
}

/// E2M1 values doubled, in llama.cpp's `kvalues_mxfp4` order.
pub const KVALUES_MXFP4: [i8; 16] = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];

/// (`x` with the largest magnitude, first on ties) of a block.
fn signed_absmax(block: &[f32]) -> f32 {
    let mut best = 0f32;
    let mut amax = 0f32;
    for &v in block {
        if v.abs() > amax {
            amax = v.abs();
            best = v;
        }
    }
    best
}

fn min_max(block: &[f32]) -> (f32, f32) {
    block
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

fn inverse(d: f32) -> f32 {
    if d == 0.0 {
        0.0
    } else {
        1.0 / d
    }
}

/// Quantizes one 32-weight block into `out` (`t.block_bytes()` long).
pub fn quantize_block(t: GgmlType, x: &[f32], out: &mut [u8]) {
    debug_assert_eq!((x.len(), out.len()), (QK, t.block_bytes()));
    let layout = t.layout();
    let (head, codes) = out.split_at_mut(layout.code_offset);
    let mut q = [0u8; QK];
    match t {
        GgmlType::Q8_0 => {
            let d = absmax(x) / 127.0;
            head.copy_from_slice(&f16_bits(d).to_le_bytes());
            // Bytes are the codes: written in place by the SIMD kernel.
            return scaled_codes(x, inverse(d), codes);
        }
        GgmlType::Q4_0 | GgmlType::Q5_0 => {
            let (levels, offset, top) = if t == GgmlType::Q4_0 {
                (-8.0, 8.5, 15)
            } else {
                (-16.0, 16.5, 31)
            };
            let d = signed_absmax(x) / levels;
            let id = inverse(d);
            head.copy_from_slice(&f16_bits(d).to_le_bytes());
            for (c, v) in q.iter_mut().zip(x) {
                *c = ((v * id + offset).trunc().max(0.0) as u32).min(top) as u8;
            }
        }
        GgmlType::Q4_1 | GgmlType::Q5_1 => {
            let (min, max) = min_max(x);
            let levels = if t == GgmlType::Q4_1 { 15.0 } else { 31.0 };
            let d = (max - min) / levels;
            let id = inverse(d);
            head[..2].copy_from_slice(&f16_bits(d).to_le_bytes());
            head[2..].copy_from_slice(&f16_bits(min).to_le_bytes());
            let top = levels as u32;
            for (c, v) in q.iter_mut().zip(x) {
                *c = (((v - min) * id + 0.5).trunc().max(0.0) as u32).min(top) as u8;
            }
        }
        GgmlType::Mxfp4 => {
            let amax = absmax(x);
            let e = if amax > 0.0 {
                (amax.log2().floor() - 2.0 + 127.0) as u8
            } else {
                0
            };
            let d = e8m0_to_f32_half(e);
            head[0] = e;
            for (c, v) in q.iter_mut().zip(x) {
                *c = best_mxfp4_index(*v, d);
            }
        }
    }
    layout.pack_codes(&q, codes);
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

/// The first index of the nearest `KVALUES_MXFP4[i] × d` to `x` (error computed in f32), as
/// llama.cpp's scan over all 16 finds it, from a search over the 8 magnitudes.
///
/// Negative codes mirror the positive ones (index i + 8 holds −`KVALUES_MXFP4[i]`), and the f32
/// error of −k·d against x equals that of k·d against |x|, so the nearest magnitude to |x| decides;
/// ties keep the smaller magnitude, which is the first index, and a zero is always index 0. The
/// two magnitudes around |x| are the only candidates: they are at least d apart, while |x| ≤ 16·d
/// in its block, so rounding cannot make a third one tie. Non-finite x takes the full scan.
fn best_mxfp4_index(x: f32, d: f32) -> u8 {
    if !x.is_finite() || !d.is_finite() {
        return best_mxfp4_index_by_scan(x, d);
    }
    let a = x.abs();
    let value = |i: usize| d * KVALUES_MXFP4[i] as f32;
    let above = (0..8).position(|i| value(i) > a).unwrap_or(8);
    let lo = above.saturating_sub(1).min(6);
    let i = if (value(lo + 1) - a).abs() < (value(lo) - a).abs() {
        lo + 1
    } else {
        lo
    };
    match (i, x < 0.0) {
        (0, _) | (_, false) => i as u8,
        (_, true) => (i + 8) as u8,
    }
}

/// llama.cpp's `best_index_mxfp4`: a scan over all 16 codes, first index on ties.
fn best_mxfp4_index_by_scan(x: f32, d: f32) -> u8 {
    let mut best = 0u8;
    let mut best_err = (d * KVALUES_MXFP4[0] as f32 - x).abs();
    for (i, k) in KVALUES_MXFP4.iter().enumerate().skip(1) {
        let err = (d * *k as f32 - x).abs();
        if err < best_err {
            best = i as u8;
            best_err = err;
        }
    }
    best
}

/// Dequantizes one block into 32 weights.
pub fn dequantize_block(t: GgmlType, b: &[u8], out: &mut [f32]) {
    debug_assert_eq!((b.len(), out.len()), (t.block_bytes(), QK));
    let half = |i: usize| f16_value(u16::from_le_bytes([b[i], b[i + 1]]));
    let layout = t.layout();
    let mut q = [0u8; QK];
    layout.unpack_codes(&b[layout.code_offset..], &mut q);
    match t {
        GgmlType::Q8_0 => {
            let d = half(0);
            for (o, q) in out.iter_mut().zip(q) {
                *o = (q as i8) as f32 * d;
            }
        }
        GgmlType::Q4_0 | GgmlType::Q5_0 => {
            let d = half(0);
            let offset = if t == GgmlType::Q4_0 { 8 } else { 16 };
            for (o, q) in out.iter_mut().zip(q) {
                *o = (q as i32 - offset) as f32 * d;
            }
        }
        GgmlType::Q4_1 | GgmlType::Q5_1 => {
            let (d, m) = (half(0), half(2));
            for (o, q) in out.iter_mut().zip(q) {
                *o = q as f32 * d + m;
            }
        }
        GgmlType::Mxfp4 => {
            let d = e8m0_to_f32_half(b[0]);
            for (o, q) in out.iter_mut().zip(q) {
                *o = KVALUES_MXFP4[q as usize] as f32 * d;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mxfp4_search_agrees_with_llama_cpp_scan() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for e in [0u8, 1, 2, 100, 120, 127, 130, 200, 254] {
            let d = e8m0_to_f32_half(e);
            let mut probes = Vec::new();
            // Every code value, every midpoint, and their neighbours, of both signs.
            for k in [0f32, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0] {
                for half in [0.0, 0.5, 1.0] {
                    let v = d * (k + half);
                    for step in -2i32..=2 {
                        probes.push(f32::from_bits((v.to_bits() as i32 + step).max(0) as u32));
                    }
                }
            }
            // Random values within the block's range.
            probes.extend((0..2000).map(|_| (next() % 1_000_000) as f32 / 1_000_000.0 * 13.0 * d));
            for v in probes.into_iter().flat_map(|v| [v, -v]) {
                assert_eq!(
                    best_mxfp4_index(v, d),
                    best_mxfp4_index_by_scan(v, d),
                    "x = {v:e}, d = {d:e}"
                );
            }
        }
        for x in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert_eq!(best_mxfp4_index(x, 1.0), best_mxfp4_index_by_scan(x, 1.0));
        }
    }

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
        for t in [
            GgmlType::Q8_0,
            GgmlType::Q4_0,
            GgmlType::Q4_1,
            GgmlType::Q5_0,
            GgmlType::Q5_1,
            GgmlType::Mxfp4,
        ] {
            let mut b = vec![0u8; t.block_bytes()];
            quantize_block(t, &[0.0; 32], &mut b);
            let mut y = [1f32; 32];
            dequantize_block(t, &b, &mut y);
            assert!(y.iter().all(|v| *v == 0.0), "{t:?}");
        }
    }
}
