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

use super::kquants::f4::F4;
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

/// The midpoints between neighbouring levels, `MIDPOINTS[i] = (level_i + level_{i+1}) / 2`
/// (exact half-integers), then a sentinel beyond the top level.
const MIDPOINTS: [f32; 16] = {
    let mut m = [f32::INFINITY; 16];
    let mut i = 0;
    while i < 15 {
        m[i] = (KVALUES_IQ4NL[i] as f32 + KVALUES_IQ4NL[i + 1] as f32) / 2.0;
        i += 1;
    }
    m
};

/// The step from level i to level i + 1 (`GAPS[i]`), 0 for the sentinel of [`MIDPOINTS`].
const GAPS: [f32; 16] = {
    let mut g = [0f32; 16];
    let mut i = 0;
    while i < 15 {
        g[i] = (KVALUES_IQ4NL[i + 1] - KVALUES_IQ4NL[i]) as f32;
        i += 1;
    }
    g
};

/// The index of the level nearest to `x` and that level (llama.cpp's `best_index_int8` on
/// [`KVALUES_IQ4NL`]): the upper level on ties, 0 at or below −127, 15 at or above 113 and for
/// NaN.
///
/// llama.cpp binary-searches for the first level above `x` and then keeps the lower neighbour
/// when `x − lower < upper − x` (in f32). Both differences are monotone in `x`, and at a midpoint
/// `m` between two levels (and at the float just below it) both are exact, so that test is
/// `x < m`: the index is the number of midpoints that `x` is not below (`!(x < m)`, which also
/// sends NaN to the top). Checked against the binary search at and around every midpoint.
#[inline]
pub fn nearest_level(x: f32) -> (usize, f32) {
    // Negated on purpose: NaN passes every midpoint, as in the binary search it ends at the top.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    let index = MIDPOINTS[..15].iter().filter(|&&m| !(x < m)).count();
    (index, KVALUES_IQ4NL[index] as f32)
}

/// The 15 midpoints of [`MIDPOINTS`] without its sentinel.
const INNER_MIDPOINTS: [f32; 15] = {
    let mut m = [0f32; 15];
    let mut i = 0;
    while i < 15 {
        m[i] = MIDPOINTS[i];
        i += 1;
    }
    m
};

/// [`nearest_level`]'s indices of four products at once: the midpoints each is not below.
#[inline(always)]
fn indices4(y: F4) -> [u8; 4] {
    y.rank_sorted15(&INNER_MIDPOINTS)
}

/// The level indices of `id · x` for 32 weights, four at a time.
fn indices(x: &[f32; QK4_NL], id: f32) -> [u8; QK4_NL] {
    let idv = F4::splat(id);
    let mut codes = [0u8; QK4_NL];
    for (c, x4) in codes.chunks_exact_mut(4).zip(x.chunks_exact(4)) {
        c.copy_from_slice(&indices4(idv.mul(F4::new([x4[0], x4[1], x4[2], x4[3]]))));
    }
    codes
}

/// Trial scales of the search, evaluated side by side in four [`F4`]s (15 used).
const TRIALS: usize = 16;

/// The sums of the scale search of `quantize_iq4_nl` (`ntry` in 0..=7): for trial k, with
/// `t = k − ntry` and the indices of `x · (t − 127)/max`, `(Σw·q·x, Σw·q²)` under weights `x²`,
/// summed over the weights in order. Trials past `2·ntry` repeat the last one.
///
/// The trials run as the lanes of four vectors, each lane the reference's loop over the weights
/// with its f32 operations in the same order. Per weight the products `x · id_t` all have one
/// sign, are monotone in t, and the largest magnitude is at most `(127 + ntry)/(127 − ntry) ≤
/// 134/120` times the smallest (plus rounding), while no two midpoints of one sign are that close
/// (the closest, 79 and 101, differ by a factor of 1.28; a test checks it): so between a
/// weight's smallest and largest product lies at most one midpoint, and its level in every trial
/// is the level of its smallest product, plus that midpoint's gap where the trial's product is
/// not below it. One comparison per weight and trial instead of fifteen.
fn trial_sums(x: &[f32; QK4_NL], max: f32, ntry: i32) -> ([f32; TRIALS], [f32; TRIALS]) {
    assert!((0..=7).contains(&ntry), "ntry {ntry} is not in 0..=7");
    let last = 2 * ntry as usize;
    let v0 = KVALUES_IQ4NL[0] as f32;
    let id_of = |k: usize| ((k.min(last) as i32 - ntry) as f32 + v0) / max;
    let id: [F4; TRIALS / 4] =
        std::array::from_fn(|v| F4::new([0, 1, 2, 3].map(|k| id_of(4 * v + k))));
    let (first, end) = (F4::splat(id_of(0)), F4::splat(id_of(last)));
    let mut lowest = [0u8; QK4_NL];
    for (c, x4) in lowest.chunks_exact_mut(4).zip(x.chunks_exact(4)) {
        let xv = F4::new([x4[0], x4[1], x4[2], x4[3]]);
        c.copy_from_slice(&indices4(first.mul(xv).pmin(end.mul(xv))));
    }
    let zero = F4::splat(0.0);
    let (mut sqx, mut sq2) = ([zero; TRIALS / 4], [zero; TRIALS / 4]);
    for (&xj, &l) in x.iter().zip(&lowest) {
        // An index is at most 15: the mask only spares the table reads their bounds checks.
        let l = (l & 15) as usize;
        // The level above the next midpoint, less its gap where a product is below that
        // midpoint (a NaN product has l = 15 and no gap).
        let above = F4::splat(KVALUES_IQ4NL[l] as f32 + GAPS[l]);
        let (next, gap) = (F4::splat(MIDPOINTS[l]), F4::splat(GAPS[l]));
        let xv = F4::splat(xj);
        let w = xv.mul(xv);
        for v in 0..TRIALS / 4 {
            let q = above.sub(F4::masked(id[v].mul(xv).lt(next), gap));
            let wq = w.mul(q);
            sqx[v] = sqx[v].add(wq.mul(xv));
            sq2[v] = sq2[v].add(wq.mul(q));
        }
    }
    let flat = |s: [F4; TRIALS / 4]| {
        let mut a = [0f32; TRIALS];
        for (chunk, v) in a.chunks_exact_mut(4).zip(s) {
            chunk.copy_from_slice(&v.to_array());
        }
        a
    };
    (flat(sqx), flat(sq2))
}

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
        codes = indices(x, 1.0 / d);
        let (mut sumqx, mut sumq2) = (0f32, 0f32);
        for (&c, &xj) in codes.iter().zip(x) {
            let q = KVALUES_IQ4NL[(c & 15) as usize] as f32;
            let w = xj * xj;
            sumqx += w * q * xj;
            sumq2 += w * q * q;
        }
        d = if sumq2 > 0.0 { sumqx / sumq2 } else { 0.0 };
        let mut best = d * sumqx;
        if ntry >= 0 {
            // Compared in the reference's order, t = −ntry first.
            let (sqx, sq2) = trial_sums(x, max, ntry);
            for k in 0..=2 * ntry as usize {
                if sq2[k] > 0.0 && sqx[k] * sqx[k] > best * sq2[k] {
                    d = sqx[k] / sq2[k];
                    best = d * sqx[k];
                }
            }
        }
    }
    if ntry > 0 {
        codes = indices(x, if d != 0.0 { 1.0 / d } else { 0.0 });
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

    /// One trial of `quantize_row_iq4_nl_impl`'s scale search, line by line: `(Σw·q·x, Σw·q²)`
    /// for the scale `(t − 127)/max`, every index by [`best_index_int8`].
    fn trial_reference(x: &[f32; QK4_NL], max: f32, t: i32) -> (f32, f32) {
        let id = (t as f32 + KVALUES_IQ4NL[0] as f32) / max;
        let (mut sumqx, mut sumq2) = (0f32, 0f32);
        for &xj in x {
            let (q, w) = (KVALUES_IQ4NL[best_index_int8(id * xj)] as f32, xj * xj);
            sumqx += w * q * xj;
            sumq2 += w * q * q;
        }
        (sumqx, sumq2)
    }

    /// llama.cpp's `quantize_row_iq4_nl_impl` for one block without an importance matrix, line
    /// by line: the reference for [`quantize_block_with`].
    fn quantize_block_reference(x: &[f32; QK4_NL], ntry: i32) -> [u8; BLOCK_BYTES] {
        let v0 = KVALUES_IQ4NL[0] as f32;
        let mut l = [8usize; QK4_NL];
        let (max, amax) = signed_absmax(x);
        let mut d = 0f32;
        if amax >= 1e-15 {
            d = if ntry > 0 { -max / v0 } else { max / v0 };
            let id = 1.0 / d;
            let (mut sumqx, mut sumq2) = (0f32, 0f32);
            for j in 0..QK4_NL {
                l[j] = best_index_int8(id * x[j]);
                let (q, w) = (KVALUES_IQ4NL[l[j]] as f32, x[j] * x[j]);
                sumqx += w * q * x[j];
                sumq2 += w * q * q;
            }
            d = if sumq2 > 0.0 { sumqx / sumq2 } else { 0.0 };
            let mut best = d * sumqx;
            for t in -ntry..=ntry {
                let (sumqx, sumq2) = trial_reference(x, max, t);
                if sumq2 > 0.0 && sumqx * sumqx > best * sumq2 {
                    d = sumqx / sumq2;
                    best = d * sumqx;
                }
            }
        }
        if ntry > 0 {
            let id = if d != 0.0 { 1.0 / d } else { 0.0 };
            for j in 0..QK4_NL {
                l[j] = best_index_int8(id * x[j]);
            }
        }
        let mut out = [0u8; BLOCK_BYTES];
        out[..2].copy_from_slice(&ggml_f16(d));
        for j in 0..QK4_NL / 2 {
            out[2 + j] = l[j] as u8 | ((l[j + 16] as u8) << 4);
        }
        out
    }

    /// The value of largest magnitude (the first on ties; NaN never wins) and that magnitude.
    fn signed_absmax(x: &[f32; QK4_NL]) -> (f32, f32) {
        let (mut max, mut amax) = (0f32, 0f32);
        for &xj in x {
            if xj.abs() > amax {
                amax = xj.abs();
                max = xj;
            }
        }
        (max, amax)
    }

    /// Seeded test blocks: uniform values over spreads from 1e-6 to 1e6, with outliers,
    /// grid-aligned values (which land on midpoints), all-positive blocks, constant blocks and
    /// NaN, ±infinity, zeros, tiny and huge values in place of one weight.
    fn test_blocks(count: usize) -> impl Iterator<Item = [f32; QK4_NL]> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32
        };
        let specials = [
            0.0,
            -0.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-30,
            3e38,
        ];
        (0..count).map(move |block| {
            let spread = 10f32.powi((block % 13) as i32 - 6);
            let mut x: [f32; QK4_NL] = std::array::from_fn(|_| (uniform() - 0.5) * spread);
            match block % 10 {
                0 => x[block % QK4_NL] *= 40.0,
                1 => x
                    .iter_mut()
                    .for_each(|v| *v = (*v * 254.0 / spread).round() * spread),
                2 => x[(block / 10) % QK4_NL] = specials[(block / 10) % specials.len()],
                3 => x.iter_mut().for_each(|v| *v = v.abs()),
                4 => x = [x[0]; QK4_NL],
                _ => {}
            }
            x
        })
    }

    /// Same bits, or both NaN.
    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn every_trial_of_the_side_by_side_search_sums_as_llama_cpp_does() {
        for x in test_blocks(20_000) {
            let (max, amax) = signed_absmax(&x);
            if amax < 1e-15 {
                continue;
            }
            for ntry in [7, 3, 0] {
                let (sqx, sq2) = trial_sums(&x, max, ntry);
                for k in 0..=2 * ntry as usize {
                    let (want_qx, want_q2) = trial_reference(&x, max, k as i32 - ntry);
                    assert!(
                        same(sqx[k], want_qx) && same(sq2[k], want_q2),
                        "ntry {ntry}, trial {k}: ({}, {}) against ({want_qx}, {want_q2}) for {x:?}",
                        sqx[k],
                        sq2[k]
                    );
                }
            }
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn both_paths_write_the_bytes_of_the_line_by_line_port_of_llama_cpp() {
        for x in test_blocks(20_000) {
            for ntry in [7, 0, -1] {
                let mut ours = [0u8; BLOCK_BYTES];
                quantize_block_with(&x, &mut ours, ntry);
                let want = quantize_block_reference(&x, ntry);
                // A NaN scale's sign and payload are not part of the contract.
                let nan = |b: &[u8; BLOCK_BYTES]| ggml_f32([b[0], b[1]]).is_nan();
                if nan(&ours) && nan(&want) {
                    assert_eq!(ours[2..], want[2..], "ntry {ntry}, block {x:?}");
                } else {
                    assert_eq!(ours, want, "ntry {ntry}, block {x:?}");
                }
            }
        }
    }

    #[test]
    fn no_two_midpoints_of_one_sign_lie_within_the_searchs_range_of_scales() {
        // The search's products of one weight differ by a factor of at most 134/120 (ntry = 7),
        // plus a few roundings; `trial_sums` compares each with one midpoint only.
        let reach = 134.0 / 120.0 * (1.0 + 1e-5);
        for pair in MIDPOINTS[..15].windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if a.signum() == b.signum() {
                let ratio = (a / b).max(b / a);
                assert!(ratio > reach, "midpoints {a} and {b} are within {ratio}");
            }
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
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

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    fn vector_indices_equal_nearest_level_in_every_lane() {
        let mut probes = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
        for &m in &INNER_MIDPOINTS {
            for step in -3i32..=3 {
                probes.push(f32::from_bits((m.to_bits() as i32 + step) as u32));
            }
        }
        probes.extend((0..30_000).map(|i| i as f32 * 0.0097 - 145.0));
        // Each probe in every lane, beside three different neighbours.
        for (k, &x) in probes.iter().enumerate() {
            let others = [1, 7, 13].map(|d| probes[(k + d) % probes.len()]);
            for lane in 0..4 {
                let mut four = [0f32; 4];
                let mut o = others.iter();
                for (j, v) in four.iter_mut().enumerate() {
                    *v = if j == lane { x } else { *o.next().unwrap() };
                }
                let got = indices4(F4::new(four));
                let want = four.map(|v| nearest_level(v).0 as u8);
                assert_eq!(got, want, "{four:?}");
            }
        }
    }

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
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
