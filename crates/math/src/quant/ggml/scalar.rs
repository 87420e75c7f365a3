//! The GGML block quantizers one value at a time, in llama.cpp's order of f32 operations: the
//! reference that [`super::quantize_block`]'s fast paths are checked against byte for byte
//! (`tests/ggml_fast_parity.rs`), and the "before" of `benches/ggml.rs`.

use super::{e8m0_to_f32_half, inverse, GgmlType, KVALUES_MXFP4, QK};
use crate::format::half::f32_to_f16_bits as f16_bits;
use crate::quant::error::QuantError;
use crate::quant::kernels::{absmax, scaled_codes};

/// The `x` with the largest magnitude (the first on ties; NaN skipped; 0 when none) of a block.
pub(super) fn signed_absmax(block: &[f32]) -> f32 {
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

/// The smallest and largest values of a block (`f32::min`/`max`: NaN skipped).
pub(super) fn min_max(block: &[f32]) -> (f32, f32) {
    block
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        })
}

/// Quantizes one 32-weight block into `out` (`t.block_bytes()` long), one value at a time in
/// llama.cpp's order; [`super::quantize_block`] writes the same bytes faster.
pub fn quantize_block_scalar(t: GgmlType, x: &[f32], out: &mut [u8]) {
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

/// [`super::quantize_row`] with [`quantize_block_scalar`] (whole blocks; `out` exactly their
/// bytes, else [`QuantError::Ragged`] or [`QuantError::ByteLength`]).
pub fn quantize_row_scalar(t: GgmlType, x: &[f32], out: &mut [u8]) -> Result<(), QuantError> {
    super::check_row(t, x.len(), out.len())?;
    for (block, o) in x
        .chunks_exact(QK)
        .zip(out.chunks_exact_mut(t.block_bytes()))
    {
        quantize_block_scalar(t, block, o);
    }
    Ok(())
}

/// The first index of the nearest `KVALUES_MXFP4[i] × d` to `x` (error computed in f32), as
/// llama.cpp's scan over all 16 finds it, from a search over the 8 magnitudes.
///
/// Negative codes mirror the positive ones (index i + 8 holds −`KVALUES_MXFP4[i]`), and the f32
/// error of −k·d against x equals that of k·d against |x|, so the nearest magnitude to |x| decides;
/// ties keep the smaller magnitude, which is the first index, and a zero is always index 0. The
/// two magnitudes around |x| are the only candidates: they are at least d apart, while |x| ≤ 16·d
/// in its block, so rounding cannot make a third one tie. Non-finite x takes the full scan.
pub fn best_mxfp4_index(x: f32, d: f32) -> u8 {
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
pub fn best_mxfp4_index_by_scan(x: f32, d: f32) -> u8 {
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
}
