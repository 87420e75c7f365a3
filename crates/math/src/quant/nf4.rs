//! NF4 (Dettmers et al. 2023, QLoRA): 4-bit codes of the bitsandbytes NormalFloat table, absmax per
//! 64-weight block, with optional double quantization of the absmax values.

use super::kernels;

/// bitsandbytes' NF4 code table (`functional.py`, `get_4bit_type("nf4")`), ascending.
pub const NF4_CODE: [f32; 16] = [
    -1.0,
    -0.696_192_8,
    -0.525_073_05,
    -0.394_917_5,
    -0.284_441_38,
    -0.184_773_43,
    -0.091_050_036,
    0.0,
    0.079_580_3,
    0.160_930_2,
    0.246_112_3,
    0.337_915_24,
    0.440_709_83,
    0.562_617,
    0.722_956_84,
    1.0,
];

/// Index of the code nearest to `v` (which is in [-1, 1]); ties go to the lower code, NaN gives 0.
///
/// A binary search finds the two codes around `v`, and the same f32 distances as a scan over all
/// 16 decide between them. No other code can tie with them: the codes are at least 0.079 apart,
/// far more than an f32 rounding error.
pub fn nearest_code(v: f32) -> u8 {
    // The partition point of the sorted codes, as a count: compares without branches, which
    // vectorize (a binary search's branches mispredict on every other value).
    let above: usize = NF4_CODE.iter().map(|c| (*c <= v) as usize).sum();
    let lo = above.saturating_sub(1).min(NF4_CODE.len() - 2);
    if (NF4_CODE[lo + 1] - v).abs() < (NF4_CODE[lo] - v).abs() {
        (lo + 1) as u8
    } else {
        lo as u8
    }
}

/// For each pair of neighbouring codes i and i + 1, the smallest f32 that [`nearest_code`] sends
/// to i + 1 or above. `nearest_code` is a non-decreasing step function of its argument (between
/// two codes it compares two f32 distances, one falling and one rising with v; below −1 it gives
/// 0 and above 1 it gives 15; NaN gives 0), so the code of any v is the number of these it is at
/// or above. Found once, by bisection over the f32s between the two codes.
fn thresholds() -> &'static [f32; 15] {
    static THRESHOLDS: std::sync::OnceLock<[f32; 15]> = std::sync::OnceLock::new();
    THRESHOLDS.get_or_init(|| {
        // f32 bits → an integer in the same order as the values (for finite values).
        let key = |v: f32| {
            let b = v.to_bits();
            if b >> 31 == 1 {
                !b
            } else {
                b | 0x8000_0000
            }
        };
        let value = |k: u32| f32::from_bits(if k >> 31 == 1 { k & 0x7FFF_FFFF } else { !k });
        std::array::from_fn(|i| {
            // nearest_code(low) ≤ i < i + 1 = nearest_code(high): bisect for the first above.
            let (mut low, mut high) = (key(NF4_CODE[i]), key(NF4_CODE[i + 1]));
            while high - low > 1 {
                let mid = low + (high - low) / 2;
                if nearest_code(value(mid)) as usize > i {
                    high = mid;
                } else {
                    low = mid;
                }
            }
            value(high)
        })
    })
}

/// The codes of one block whose absmax `m` is not 0: [`nearest_code`] of each v / m, as the count
/// of `thresholds` at or below it (no compare fails for all: NaN counts none, code 0). Four lanes
/// of simd128 in wasm, where LLVM leaves this loop scalar.
#[inline]
fn block_codes(x: &[f32], m: f32, thresholds: &[f32; 15], out: &mut [u8]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let done = {
        use core::arch::wasm32::*;
        let n = x.len().min(out.len()) / 4 * 4;
        let m4 = f32x4_splat(m);
        for (xs, os) in x[..n].chunks_exact(4).zip(out[..n].chunks_exact_mut(4)) {
            let q = f32x4_div(crate::lanes::load_f32x4(xs), m4);
            // Each compare is all ones (−1) where q is at or above the threshold.
            let count = thresholds.iter().fold(i32x4_splat(0), |count, t| {
                i32x4_sub(count, f32x4_ge(q, f32x4_splat(*t)))
            });
            let bytes = u8x16_narrow_i16x8(i16x8_narrow_i32x4(count, count), count);
            os.copy_from_slice(&i32x4_extract_lane::<0>(bytes).to_le_bytes());
        }
        n
    };
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let done = 0;
    for (o, v) in out.iter_mut().zip(x).skip(done) {
        let q = v / m;
        *o = thresholds.iter().map(|t| (q >= *t) as u8).sum();
    }
}

/// NF4-quantized weights: codes, one absmax per block, and how the absmax values are stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Nf4 {
    /// Block size (64 in QLoRA).
    pub block: usize,
    /// One code per weight.
    pub codes: Vec<u8>,
    /// Absmax per block as dequantized (FP32, or after double quantization).
    pub absmax: Vec<f32>,
    /// Whether the absmax values were double-quantized.
    pub double_quant: bool,
}

/// Second-level block size of double quantization (QLoRA: 256).
pub const DQ_BLOCK: usize = 256;

/// Mean of the blocks' absmax values (summed in f64, divided in f32): the offset that double
/// quantization subtracts before quantizing them. Needed up front when a tensor is quantized in
/// parts ([`quantize_with_mean`]).
pub fn absmax_mean(x: &[f32], block: usize) -> f32 {
    let blocks = x.len().div_ceil(block.max(1));
    let sum: f64 = x
        .chunks(block.max(1))
        .map(|c| kernels::absmax(c) as f64)
        .sum();
    sum as f32 / blocks.max(1) as f32
}

/// Quantizes `x` in blocks of `block`. With `double_quant`, the absmax values minus their mean are
/// quantized to 8 bits with one FP32 scale per 256 of them, as QLoRA's double quantization (whose
/// bitsandbytes implementation uses a dynamic 8-bit code; this uses linear absmax INT8, documented).
pub fn quantize(x: &[f32], block: usize, double_quant: bool) -> Nf4 {
    quantize_with_mean(x, block, double_quant.then(|| absmax_mean(x, block)))
}

/// [`quantize`] with double quantization around a given `mean` (`None`: no double quantization).
/// A part that starts on a 256-block boundary, quantized with the whole tensor's [`absmax_mean`],
/// gives exactly the whole tensor's bytes for that part.
pub fn quantize_with_mean(x: &[f32], block: usize, mean: Option<f32>) -> Nf4 {
    let mut codes = vec![0u8; x.len()];
    let mut absmax = Vec::with_capacity(x.len().div_ceil(block));
    let thresholds = thresholds();
    for (chunk, out) in x.chunks(block).zip(codes.chunks_mut(block)) {
        let m = kernels::absmax(chunk);
        absmax.push(m);
        if m == 0.0 {
            out.fill(7);
        } else {
            block_codes(chunk, m, thresholds, out);
        }
    }
    if let Some(mean) = mean {
        let centred: Vec<f32> = absmax.iter().map(|v| v - mean).collect();
        absmax = centred
            .chunks(DQ_BLOCK)
            .flat_map(|c| {
                let q = super::absmax::quantize(c);
                q.codes
                    .iter()
                    .map(|code| *code as f32 * q.scale + mean)
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    Nf4 {
        block,
        codes,
        absmax,
        double_quant: mean.is_some(),
    }
}

/// Dequantizes one block's codes (each below 16) into `out`: the code's table value × `absmax`
/// in f32 (rounded to nearest even by the multiply).
pub fn dequantize_codes(absmax: f32, codes: &[u8], out: &mut [f32]) {
    for (o, c) in out.iter_mut().zip(codes) {
        *o = NF4_CODE[(*c & 0x0F) as usize] * absmax;
    }
}

/// Bytes that `n` weights take in NF4 with blocks of `block`: 4 bits per code, plus an FP32
/// absmax per block, or with `double_quant` an 8-bit absmax per block and an FP32 scale per 256
/// blocks (the one FP32 mean per tensor is not counted, as in the QLoRA paper's 4.127 bits per
/// parameter, section 3). Rounded up to whole bytes; `block` 0 is taken as 1.
pub fn storage_bytes(n: u64, block: u64, double_quant: bool) -> u128 {
    let n = n as u128;
    let blocks = n.div_ceil(block.max(1) as u128);
    let scale_bits = if double_quant {
        8 * blocks + 32 * blocks.div_ceil(DQ_BLOCK as u128)
    } else {
        32 * blocks
    };
    (4 * n + scale_bits).div_ceil(8)
}

/// Storage bits per weight: 4 for the code plus the absmax (32 bits per block, or 8 bits per block
/// plus 32 per 256 blocks and one FP32 mean with double quantization).
pub fn bits_per_weight(block: usize, double_quant: bool) -> f64 {
    if double_quant {
        4.0 + 8.0 / block as f64 + 32.0 / (block * DQ_BLOCK) as f64
    } else {
        4.0 + 32.0 / block as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: scan every code, keep the first of the nearest.
    fn nearest_by_scan(v: f32) -> u8 {
        let mut best = 0usize;
        for (i, code) in NF4_CODE.iter().enumerate().skip(1) {
            if (code - v).abs() < (NF4_CODE[best] - v).abs() {
                best = i;
            }
        }
        best as u8
    }

    #[test]
    fn search_agrees_with_the_scan_everywhere_it_matters() {
        let mut probes: Vec<f32> = vec![f32::NAN, -0.0, 0.0, 1.0, -1.0, 1.5, -1.5];
        // Every code and every midpoint (as f32 computes it and exactly), with neighbours.
        for w in NF4_CODE.windows(2) {
            for c in [
                w[0],
                w[1],
                (w[0] + w[1]) / 2.0,
                ((w[0] as f64 + w[1] as f64) / 2.0) as f32,
            ] {
                for d in -3i32..=3 {
                    probes.push(f32::from_bits((c.to_bits() as i32 + d) as u32));
                }
            }
        }
        // A fine sweep of [-1, 1].
        probes.extend((0..=200_000).map(|i| i as f32 / 100_000.0 - 1.0));
        for v in probes {
            assert_eq!(
                nearest_code(v),
                nearest_by_scan(v),
                "{v:e} ({:#010x})",
                v.to_bits()
            );
        }
    }

    #[test]
    fn codes_are_the_table_and_zero_is_exact() {
        assert_eq!(nearest_code(0.0), 7);
        assert_eq!(nearest_code(1.0), 15);
        assert_eq!(nearest_code(-1.0), 0);
        assert_eq!(nearest_code(0.08), 8);
    }

    #[test]
    fn qlora_storage_is_4_127_bits() {
        assert!((bits_per_weight(64, true) - 4.127).abs() < 0.001);
        let n = 64 * 256 * 1000;
        let bits = storage_bytes(n, 64, true) as f64 * 8.0 / n as f64;
        assert!((bits - 4.127).abs() < 0.001, "{bits}");
        assert_eq!(storage_bytes(64, 64, false), 32 + 4);
        assert_eq!(bits_per_weight(64, false), 4.5);
    }

    #[test]
    fn round_trip_error_is_bounded_by_the_widest_code_gap() {
        let x: Vec<f32> = (0..256)
            .map(|i| ((i * 73 % 256) as f32 / 128.0 - 1.0) * 0.02)
            .collect();
        for dq in [false, true] {
            let q = quantize(&x, 64, dq);
            let mut y = vec![0f32; x.len()];
            for ((o, c), m) in y.chunks_mut(64).zip(q.codes.chunks(64)).zip(&q.absmax) {
                dequantize_codes(*m, c, o);
            }
            let worst = x
                .iter()
                .zip(&y)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            assert!(worst <= 0.02 * 0.31 / 2.0 + 1e-4, "{dq}: {worst}");
        }
    }
}
