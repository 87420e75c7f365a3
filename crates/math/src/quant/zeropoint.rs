//! Asymmetric (min-max, zero-point) quantization to `bits`-bit unsigned codes (UINT8, 4-bit).
//!
//! The range is widened to include 0 (as PyTorch's MinMaxObserver does) so that 0 is exact and a
//! constant block is representable: scale = (max − min) / (2^bits − 1), zero point
//! z = round(−min / scale) clamped to the code range, q = clamp(round(x / scale) + z), dequantized
//! (q − z) × scale. Rounding is half away from zero. A zero block has scale 0 and codes 0.

/// One block's parameters and codes.
#[derive(Clone, Debug, PartialEq)]
pub struct ZeroPointBlock {
    /// Step between codes.
    pub scale: f32,
    /// The code that represents 0.
    pub zero_point: u8,
    /// Codes in [0, 2^bits − 1].
    pub codes: Vec<u8>,
}

/// Quantizes one block to `bits` (1..=8) bits.
pub fn quantize(x: &[f32], bits: u32) -> ZeroPointBlock {
    let mut codes = vec![0; x.len()];
    let (scale, zero_point) = quantize_into(x, bits, &mut codes);
    ZeroPointBlock {
        scale,
        zero_point,
        codes,
    }
}

/// [`quantize`] into `codes` (as long as `x`): returns the scale and zero point. The same codes
/// as rounding `x / scale` half away from zero, adding the zero point and clamping, computed
/// without a call to `roundf` or `fminf` (which WebAssembly makes for `f32::round` and `f32::min`).
pub fn quantize_into(x: &[f32], bits: u32, codes: &mut [u8]) -> (f32, u8) {
    let top = ((1u32 << bits) - 1) as f32;
    // Selects, not `f32::min`/`max`: NaN never passes a comparison, so it is skipped.
    let (lo, hi) = x.iter().fold((0f32, 0f32), |(lo, hi), &v| {
        (if v < lo { v } else { lo }, if v > hi { v } else { hi })
    });
    let scale = (hi - lo) / top;
    if scale == 0.0 || !scale.is_finite() {
        codes.fill(0);
        return (0.0, 0);
    }
    let zero_point = round_half_away(-lo / scale).clamp(0.0, top);
    for (c, v) in codes.iter_mut().zip(x) {
        *c = if v.is_nan() {
            zero_point as u8
        } else {
            // Beyond ±512 every code clamps to an end whatever the zero point (at most 255), so
            // clamping first keeps the rounding within the exact range of the magic constant.
            let q = (v / scale).clamp(-512.0, 512.0);
            (round_half_away(q) + zero_point).clamp(0.0, top) as u8
        };
    }
    (scale, zero_point as u8)
}

/// `y` rounded to the nearest integer, halves away from zero (C `roundf`), for |y| < 2^22:
/// adding and subtracting 1.5·2^23 rounds to nearest even, and exact halves then move away from
/// zero.
#[inline]
fn round_half_away(y: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    let even = (y + MAGIC) - MAGIC;
    if (y - even).abs() == 0.5 {
        y + 0.5f32.copysign(y)
    } else {
        even
    }
}

/// Dequantizes one block's codes into `out`: (code − `zero_point`) × `scale` in f32 (the
/// difference is exact; the multiply rounds to nearest even).
pub fn dequantize_codes(scale: f32, zero_point: u8, codes: &[u8], out: &mut [f32]) {
    for (o, q) in out.iter_mut().zip(codes) {
        *o = (*q as f32 - zero_point as f32) * scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formula as first written: `f32::round`, `f32::min`/`max` and no pre-clamp.
    fn reference(x: &[f32], bits: u32) -> ZeroPointBlock {
        let top = ((1u32 << bits) - 1) as f32;
        let (lo, hi) = x
            .iter()
            .filter(|v| !v.is_nan())
            .fold((0f32, 0f32), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        let scale = (hi - lo) / top;
        if scale == 0.0 || !scale.is_finite() {
            return ZeroPointBlock {
                scale: 0.0,
                zero_point: 0,
                codes: vec![0; x.len()],
            };
        }
        let zero_point = (-lo / scale).round().clamp(0.0, top);
        let codes = x
            .iter()
            .map(|v| match v.is_nan() {
                true => zero_point as u8,
                false => ((v / scale).round() + zero_point).clamp(0.0, top) as u8,
            })
            .collect();
        ZeroPointBlock {
            scale,
            zero_point: zero_point as u8,
            codes,
        }
    }

    #[test]
    fn the_fast_codes_equal_the_reference_formula_on_ties_extremes_and_random_blocks() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut blocks: Vec<Vec<f32>> = vec![
            vec![-1.0, 0.5, 1.5, 2.5, -0.5, 3.0, f32::NAN, 254.5],
            vec![0.0, -0.0, 1e-45, -1e-45],
            vec![f32::MAX, -f32::MAX, 1.0],
            vec![f32::INFINITY, 1.0],
            vec![1e30, 1e-30, -3.0],
            vec![-7.5, -7.4999995, 7.5000005, 0.49999997, -0.49999997],
        ];
        for _ in 0..2000 {
            let scale = f32::from_bits((next() as u32 % 60 + 100) << 23);
            blocks.push(
                (0..64)
                    .map(|_| match next() % 50 {
                        0 => f32::NAN,
                        // Exact multiples of half a step: ties after the division.
                        1..=10 => (next() % 600) as f32 * 0.5 * scale - 100.0 * scale,
                        _ => f32::from_bits(next() as u32 & 0xBFFF_FFFF) * scale.signum(),
                    })
                    .collect(),
            );
        }
        for x in &blocks {
            for bits in [4, 8] {
                assert_eq!(quantize(x, bits), reference(x, bits), "{bits} bits: {x:?}");
            }
        }
    }

    #[test]
    fn zero_is_exact_and_errors_stay_within_a_step() {
        let x = [-0.3f32, 0.0, 0.9, 0.45, -0.1];
        for bits in [4, 8] {
            let b = quantize(&x, bits);
            let mut y = [0f32; 5];
            dequantize_codes(b.scale, b.zero_point, &b.codes, &mut y);
            assert_eq!(y[1], 0.0);
            for (a, z) in x.iter().zip(&y) {
                assert!((a - z).abs() <= b.scale * 0.5 + 1e-6, "{bits}: {a} {z}");
            }
        }
    }

    #[test]
    fn constant_and_zero_blocks() {
        let b = quantize(&[0.75; 3], 8);
        let mut y = [0f32; 3];
        dequantize_codes(b.scale, b.zero_point, &b.codes, &mut y);
        assert_eq!(y, [0.75; 3]);
        assert_eq!(
            quantize(&[0.0; 2], 4),
            ZeroPointBlock {
                scale: 0.0,
                zero_point: 0,
                codes: vec![0, 0]
            }
        );
    }
}
