//! IQ4_NL: 4-bit indices into a fixed non-linear table of 16 levels, one FP16 scale per 32
//! weights, 4.5 bits per weight (llama.cpp `block_iq4_nl`, `quantize_iq4_nl`,
//! `quantize_row_iq4_nl_ref`, `dequantize_row_iq4_nl`).
//!
//! Layout of one 18-byte block of 32 weights: `d` (FP16, LE) @0, `qs[16]` @2, where `qs[j]` holds
//! weight j's index in its low nibble and weight j + 16's in its high nibble. A weight's value is
//! `d · KVALUES_IQ4NL[index]`, computed in `f32`.
//!
//! The fit: with weights `x²`, start from the scale that maps the value of largest magnitude
//! (`max`) onto the table's end (−127), pick each weight's nearest level, refit the least-squares
//! scale `Σw·q·x / Σw·q²`; then [`quantize`] (what `ggml_quantize_chunk` and llama-quantize write
//! without an importance matrix) also tries the 15 scales `max / (t − 127)` for t in −7..=7, keeps
//! the one with the largest `(Σw·q·x)² / Σw·q²`, stores it as FP16 (nearest even, overflow to
//! ±infinity) and re-picks every index with the unrounded scale. [`quantize_ref`]
//! (`quantize_row_iq4_nl_ref`) does no search and keeps the first indices. Nearest level: ties go
//! to the upper level; values beyond the table clamp to its ends.
//!
//! A block whose largest magnitude is below 1e-15 gets scale 0 and index 8 (level +1) throughout.
//! (`quantize_row_iq4_nl_ref` leaves such a block's indices as they were in its buffer: the
//! previous block's, or uninitialised memory for the first. Its values are 0 either way; the
//! tests compare only the scale there.) NaN inputs take index 15 (all comparisons fail) and,
//! like ±infinity, flow through the same f32 operations as in llama.cpp: for finite inputs the
//! bytes are the same on every platform, for non-finite ones they match llama.cpp on x86-64.

use super::kquants::{dequantize_blocks, ggml_f16, ggml_f32, quantize_blocks, LengthError};

/// Weights per block (llama.cpp `QK4_NL`).
pub const QK4_NL: usize = 32;

/// Bytes per block.
pub const BLOCK_BYTES: usize = 18;

/// The 16 levels, in units of the block scale (llama.cpp `kvalues_iq4nl`, ggml-common.h):
/// a non-uniform grid, denser near zero, from the IQ4_NL pull request (llama.cpp #5590).
pub const KVALUES_IQ4NL: [i8; 16] = [
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
];

/// llama.cpp's `block_iq4_nl`, for reference (the functions work on bytes).
#[repr(C)]
pub struct BlockIq4Nl {
    /// Scale (FP16 bits).
    pub d: u16,
    /// Packed 4-bit indices.
    pub qs: [u8; QK4_NL / 2],
}
const _: () = assert!(std::mem::size_of::<BlockIq4Nl>() == BLOCK_BYTES);

/// The index of the level nearest to `x` and that level (llama.cpp's `best_index_int8` on
/// [`KVALUES_IQ4NL`]): the upper level on ties, 0 at or below −127, 15 at or above 113 and for
/// NaN.
///
/// llama.cpp binary-searches for the first level above `x`; here that level's index is counted
/// (`1 + #{1 ≤ i ≤ 14 : !(x < level_i)}`, which also sends NaN to the top) and the two
/// neighbours are summed from the level gaps, without branches, so that many lanes run as SIMD.
/// The tie test `x − lower < upper − x` is the reference's, in f32. Checked against the binary
/// search between every pair of levels.
#[inline(always)]
pub fn nearest_level(x: f32) -> (usize, f32) {
    let v = |i: usize| KVALUES_IQ4NL[i] as f32;
    let (mut above, mut lower, mut upper) = (1usize, v(0), v(1));
    for i in 1..15 {
        // Negated on purpose: NaN passes every level, as in the binary search it ends at the top.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let passed = !(x < v(i));
        above += passed as usize;
        lower += if passed { v(i) - v(i - 1) } else { 0.0 };
        upper += if passed { v(i + 1) - v(i) } else { 0.0 };
    }
    if x - lower < upper - x {
        (above - 1, lower)
    } else {
        (above, upper)
    }
}

/// Trial scales of [`quantize_block`] evaluated side by side (15 used).
const TRIALS: usize = 16;

/// The block quantizer of both paths: `ntry = 7` for `quantize_iq4_nl`, −1 for
/// `quantize_row_iq4_nl_ref`.
fn quantize_block_with(x: &[f32; QK4_NL], out: &mut [u8; BLOCK_BYTES], ntry: i32) {
    let mut codes = [8u8; QK4_NL];
    let (mut max, mut amax) = (0f32, 0f32);
    for &v in x {
        if v.abs() > amax {
            amax = v.abs();
            max = v;
        }
    }
    let v0 = KVALUES_IQ4NL[0] as f32;
    let mut d = 0f32;
    if amax >= 1e-15 {
        d = if ntry > 0 { -max / v0 } else { max / v0 };
        let id = 1.0 / d;
        let (mut sumqx, mut sumq2) = (0f32, 0f32);
        for (c, &xj) in codes.iter_mut().zip(x) {
            let (l, q) = nearest_level(id * xj);
            *c = l as u8;
            let w = xj * xj;
            sumqx += w * q * xj;
            sumq2 += w * q * q;
        }
        d = if sumq2 > 0.0 { sumqx / sumq2 } else { 0.0 };
        let mut best = d * sumqx;
        // The trial scales depend only on `max`: evaluate them side by side, compare in order.
        let trials = (2 * ntry + 1).max(0) as usize;
        let mut first = 0;
        while first < trials {
            let mut id = [0f32; TRIALS];
            for (k, s) in id.iter_mut().enumerate() {
                *s = ((first + k) as i32 - ntry) as f32 + v0;
                *s /= max;
            }
            let (mut sqx, mut sq2) = ([0f32; TRIALS], [0f32; TRIALS]);
            for &xj in x {
                let w = xj * xj;
                for k in 0..TRIALS {
                    let (_, q) = nearest_level(id[k] * xj);
                    sqx[k] += w * q * xj;
                    sq2[k] += w * q * q;
                }
            }
            for k in 0..TRIALS.min(trials - first) {
                if sq2[k] > 0.0 && sqx[k] * sqx[k] > best * sq2[k] {
                    d = sqx[k] / sq2[k];
                    best = d * sqx[k];
                }
            }
            first += TRIALS;
        }
    }
    if ntry > 0 {
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        for (c, &v) in codes.iter_mut().zip(x) {
            *c = nearest_level(id * v).0 as u8;
        }
    }
    out[..2].copy_from_slice(&ggml_f16(d));
    for j in 0..QK4_NL / 2 {
        out[2 + j] = codes[j] | (codes[j + 16] << 4);
    }
}

/// Quantizes one block as `ggml_quantize_chunk(GGML_TYPE_IQ4_NL, …)` does without an importance
/// matrix (`quantize_iq4_nl`, with the scale search).
pub fn quantize_block(x: &[f32; QK4_NL], out: &mut [u8; BLOCK_BYTES]) {
    quantize_block_with(x, out, 7);
}

/// Quantizes one block as `quantize_row_iq4_nl_ref` (no scale search).
pub fn quantize_block_ref(x: &[f32; QK4_NL], out: &mut [u8; BLOCK_BYTES]) {
    quantize_block_with(x, out, -1);
}

/// Dequantizes one block, bit for bit as `dequantize_row_iq4_nl`.
pub fn dequantize_block(b: &[u8; BLOCK_BYTES], y: &mut [f32; QK4_NL]) {
    let d = ggml_f32([b[0], b[1]]);
    for j in 0..QK4_NL / 2 {
        y[j] = d * KVALUES_IQ4NL[(b[2 + j] & 0xF) as usize] as f32;
        y[j + 16] = d * KVALUES_IQ4NL[(b[2 + j] >> 4) as usize] as f32;
    }
}

/// Quantizes `x` (a multiple of 32 values) into `out` (`x.len() / 32 × 18` bytes) as
/// llama-quantize does without an importance matrix. Checks both lengths before writing.
pub fn quantize(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("iq4_nl", x, out, quantize_block)
}

/// Quantizes like `quantize_row_iq4_nl_ref` (see the module docs for its zero blocks).
pub fn quantize_ref(x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    quantize_blocks("iq4_nl", x, out, quantize_block_ref)
}

/// Dequantizes whole blocks into `out` (32 values per block). Checks both lengths first.
pub fn dequantize(blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    dequantize_blocks("iq4_nl", blocks, out, dequantize_block)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// llama.cpp's `best_index_int8`, line by line: the reference for [`nearest_level`].
    fn best_index_int8(x: f32) -> usize {
        let v = |i: usize| KVALUES_IQ4NL[i] as f32;
        if x <= v(0) {
            return 0;
        }
        if x >= v(15) {
            return 15;
        }
        let (mut lo, mut hi) = (0usize, 15usize);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if x < v(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        if x - v(hi - 1) < v(hi) - x {
            hi - 1
        } else {
            hi
        }
    }

    #[test]
    fn branch_free_nearest_level_equals_llama_cpps_binary_search() {
        let mut probes = vec![
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            1e30,
            -1e30,
        ];
        for i in 0..16 {
            let a = KVALUES_IQ4NL[i] as f32;
            let b = KVALUES_IQ4NL[(i + 1).min(15)] as f32;
            for c in [a, (a + b) / 2.0, a - 1.0, a + 1.0] {
                for step in -3i32..=3 {
                    probes.push(f32::from_bits((c.to_bits() as i32 + step) as u32));
                }
            }
        }
        probes.extend((0..20_000).map(|i| i as f32 * 0.0137 - 137.0));
        for x in probes {
            let (l, q) = nearest_level(x);
            assert_eq!(l, best_index_int8(x), "x = {x:e}");
            assert_eq!(q, KVALUES_IQ4NL[l] as f32, "x = {x:e}");
        }
    }

    #[test]
    fn nearest_level_agrees_with_a_full_scan_between_every_pair_of_levels() {
        for i in 0..15 {
            let (a, b) = (KVALUES_IQ4NL[i] as f32, KVALUES_IQ4NL[i + 1] as f32);
            let mid = (a + b) / 2.0;
            for x in [a, b, mid, mid - 0.01, mid + 0.01, a + 0.3, b - 0.3] {
                let scan = (0..16)
                    .min_by(|&p, &q| {
                        let (ep, eq) = (
                            (KVALUES_IQ4NL[p] as f32 - x).abs(),
                            (KVALUES_IQ4NL[q] as f32 - x).abs(),
                        );
                        // Ties go to the upper level.
                        ep.partial_cmp(&eq).unwrap().then(q.cmp(&p))
                    })
                    .unwrap();
                assert_eq!(nearest_level(x).0, scan, "x = {x}");
            }
        }
        assert_eq!(nearest_level(-1000.0).0, 0);
        assert_eq!(nearest_level(1000.0).0, 15);
        assert_eq!(nearest_level(f32::NAN).0, 15);
    }
}
