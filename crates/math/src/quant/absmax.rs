//! Symmetric absmax INT8, per tensor, per row or block-wise.
//!
//! scale = absmax / 127 (f32); q = x / scale rounded half away from zero (C `roundf`), clamped to
//! [-127, 127]; a zero block has scale 0 and codes 0. Dequantization is q × scale.

/// One block's scale and codes.
#[derive(Clone, Debug, PartialEq)]
pub struct AbsmaxBlock {
    /// absmax / 127.
    pub scale: f32,
    /// Codes in [-127, 127].
    pub codes: Vec<i8>,
}

fn scale_of(x: &[f32]) -> f32 {
    super::kernels::absmax(x) / 127.0
}

/// x / scale rounded half away from zero and clamped to ±127, as a byte; 0 for a zero scale or NaN.
#[inline]
fn code(v: f32, scale: f32) -> u8 {
    if scale == 0.0 {
        return 0;
    }
    super::kernels::code_i8(v / scale)
}

/// Quantizes one block (NaN is skipped by the absmax and coded 0).
pub fn quantize(x: &[f32]) -> AbsmaxBlock {
    let scale = scale_of(x);
    AbsmaxBlock {
        scale,
        codes: x.iter().map(|v| code(*v, scale) as i8).collect(),
    }
}

/// Quantizes `x` in blocks of `block` straight into the CLI's layout (scale, then codes) without
/// per-block allocation: the hot path of the benchmarks.
pub fn quantize_to_bytes(x: &[f32], block: usize, out: &mut Vec<u8>) {
    let mut at = out.len();
    out.resize(at + x.len().div_ceil(block) * 4 + x.len(), 0);
    for chunk in x.chunks(block) {
        let scale = scale_of(chunk);
        out[at..at + 4].copy_from_slice(&scale.to_le_bytes());
        let codes = &mut out[at + 4..at + 4 + chunk.len()];
        if scale == 0.0 {
            codes.fill(0);
        } else {
            super::kernels::divided_codes(chunk, scale, codes);
        }
        at += 4 + chunk.len();
    }
}

/// Dequantizes one block's codes into `out`: each code × `scale` in f32 (exact for the code,
/// rounded to nearest even by the multiply).
pub fn dequantize_codes(scale: f32, codes: impl IntoIterator<Item = i8>, out: &mut [f32]) {
    for (o, q) in out.iter_mut().zip(codes) {
        *o = q as f32 * scale;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_at_most_half_a_step() {
        let x: Vec<f32> = (0..64)
            .map(|i| ((i * 37 % 64) as f32 - 31.7) * 0.013)
            .collect();
        let b = quantize(&x);
        let mut y = vec![0f32; 64];
        dequantize_codes(b.scale, b.codes.iter().copied(), &mut y);
        for (a, z) in x.iter().zip(&y) {
            assert!((a - z).abs() <= b.scale / 2.0 * (1.0 + 1e-6), "{a} {z}");
        }
        assert!(b.codes.iter().any(|c| c.abs() == 127));
    }

    /// Property with a fixed seed: |x − dequant(quant(x))| ≤ scale / 2 for every element of
    /// random blocks of random sizes and magnitudes.
    #[test]
    fn round_trip_error_is_at_most_half_a_step_for_random_blocks() {
        let mut rng = crate::quant::generate::SplitMix64(42);
        for _ in 0..2000 {
            let len = 1 + (rng.next_u64() % 300) as usize;
            let magnitude = 10f64.powf(rng.unit() * 12.0 - 6.0);
            let x: Vec<f32> = (0..len)
                .map(|_| (rng.normal() * magnitude) as f32)
                .collect();
            let b = quantize(&x);
            let mut y = vec![0f32; len];
            dequantize_codes(b.scale, b.codes.iter().copied(), &mut y);
            for (a, z) in x.iter().zip(&y) {
                let bound = b.scale / 2.0 * (1.0 + 1e-5) + f32::MIN_POSITIVE;
                assert!((a - z).abs() <= bound, "{a} vs {z}, scale {}", b.scale);
            }
        }
    }

    #[test]
    fn zero_block_and_ties() {
        assert_eq!(
            quantize(&[0.0; 4]),
            AbsmaxBlock {
                scale: 0.0,
                codes: vec![0; 4]
            }
        );
        // 127 × 0.5 / 127 = 0.5 step: 63.5 rounds away from zero to 64.
        let b = quantize(&[127.0, 63.5, -63.5]);
        assert_eq!(b.codes, vec![127, 64, -64]);
    }
}
