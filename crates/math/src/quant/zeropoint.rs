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
        .map(|v| {
            if v.is_nan() {
                zero_point as u8
            } else {
                ((v / scale).round() + zero_point).clamp(0.0, top) as u8
            }
        })
        .collect();
    ZeroPointBlock {
        scale,
        zero_point: zero_point as u8,
        codes,
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
