//! The two tricks NVFP4 training adds to its gradients' matmuls (arXiv:2509.25149, sections
//! 4.2-4.4; Transformer Engine's NVFP4BlockScaling): a random Hadamard transform over blocks of
//! 16 values, which spreads an outlier over its block before the 4-bit scale is chosen, and
//! stochastic rounding, which rounds up or down with probabilities that make the result unbiased.

use crate::format::{FormatId, Overflow};

/// Values per Hadamard block (NVFP4 training uses 16 × 16).
pub const HADAMARD: usize = 16;

/// The factor that makes the transform orthonormal: 1/√16, exact in f32.
pub const HADAMARD_SCALE: f32 = 0.25;

/// A seeded ±1 sign for each of the 16 positions (the "random" of the transform: one sign vector
/// shared by every block, as the paper shares one across layers).
pub fn signs(seed: u64) -> [f32; HADAMARD] {
    let mut s = seed ^ 0x9e37_79b9_7f4a_7c15;
    std::array::from_fn(|_| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        if s & 1 == 1 {
            -1.0
        } else {
            1.0
        }
    })
}

/// The orthonormal Walsh–Hadamard transform of 16 values in place (H is symmetric and its own
/// inverse once scaled by 1/4).
fn walsh_hadamard(v: &mut [f32]) {
    let mut h = 1;
    while h < v.len() {
        for i in (0..v.len()).step_by(2 * h) {
            for j in i..i + h {
                let (a, b) = (v[j], v[j + h]);
                (v[j], v[j + h]) = (a + b, a - b);
            }
        }
        h *= 2;
    }
    for x in v.iter_mut() {
        *x *= HADAMARD_SCALE;
    }
}

/// `x` rotated block by block: y = H · diag(signs) · x for each 16 consecutive values. The
/// length must be a multiple of 16 (else `None`).
pub fn rotate(x: &[f32], signs: &[f32; HADAMARD]) -> Option<Vec<f32>> {
    if x.len() % HADAMARD != 0 {
        return None;
    }
    let mut y = x.to_vec();
    for block in y.chunks_exact_mut(HADAMARD) {
        for (v, s) in block.iter_mut().zip(signs) {
            *v *= s;
        }
        walsh_hadamard(block);
    }
    Some(y)
}

/// The inverse of [`rotate`]: x = diag(signs) · H · y.
pub fn unrotate(y: &[f32], signs: &[f32; HADAMARD]) -> Option<Vec<f32>> {
    if y.len() % HADAMARD != 0 {
        return None;
    }
    let mut x = y.to_vec();
    for block in x.chunks_exact_mut(HADAMARD) {
        walsh_hadamard(block);
        for (v, s) in block.iter_mut().zip(signs) {
            *v *= s;
        }
    }
    Some(x)
}

/// `x` rounded stochastically to `format` with the uniform draw `u` in [0, 1): between its two
/// neighbours v1 ≤ |x| ≤ v2, up to v2 when u < (|x| − v1)/(v2 − v1), so that the expected result
/// is x (NVFP4 paper, section 2). Saturates at the format's largest value; NaN stays NaN.
pub fn stochastic_round(format: FormatId, x: f64, u: f64) -> f64 {
    if !x.is_finite() {
        return format.decode(format.encode(x, Overflow::Saturate));
    }
    let nearest = format.decode(format.encode(x.abs(), Overflow::Saturate));
    let code = format.encode(x.abs(), Overflow::Saturate);
    // Sign-magnitude codes of a positive value grow with it: the neighbour is the next code.
    let (lo, hi) = if nearest <= x.abs() {
        (nearest, format.decode(code + 1))
    } else {
        (format.decode(code - 1), nearest)
    };
    let up = if hi.is_finite() && hi > lo {
        u < (x.abs() - lo) / (hi - lo)
    } else {
        false
    };
    let magnitude = if up { hi } else { lo };
    magnitude.copysign(x)
}

/// The mean of `draws` seeded stochastic roundings of `x` to `format`.
pub fn stochastic_mean(format: FormatId, x: f64, draws: u32, seed: u64) -> f64 {
    let mut s = seed | 1;
    let mut sum = 0.0;
    for _ in 0..draws {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let u = (s >> 11) as f64 / (1u64 << 53) as f64;
        sum += stochastic_round(format, x, u);
    }
    sum / draws.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transform_is_undone_by_its_inverse_and_spreads_an_outlier() {
        let s = signs(7);
        let mut x = vec![0.01f32; 32];
        x[5] = 10.0;
        let y = rotate(&x, &s).unwrap();
        // The outlier's energy is spread over its block: every value is about 10 / 4.
        assert!(
            y[..16].iter().all(|v| v.abs() > 2.0 && v.abs() < 3.0),
            "{y:?}"
        );
        let back = unrotate(&y, &s).unwrap();
        for (a, b) in x.iter().zip(&back) {
            assert!((a - b).abs() < 1e-5, "{a} vs {b}");
        }
        assert!(rotate(&x[..15], &s).is_none());
    }

    /// 0.2 lies between E2M1's 0 and 0.5: round to nearest always gives 0 (a bias of −0.2),
    /// stochastic rounding gives 0.5 two times in five, so its mean is 0.2.
    #[test]
    fn stochastic_rounding_is_unbiased_where_nearest_is_not() {
        let f = FormatId::F4E2M1;
        assert_eq!(f.decode(f.encode(0.2, Overflow::Saturate)), 0.0);
        assert_eq!(stochastic_round(f, 0.2, 0.1), 0.5);
        assert_eq!(stochastic_round(f, 0.2, 0.9), 0.0);
        assert_eq!(stochastic_round(f, -0.2, 0.1), -0.5);
        let mean = stochastic_mean(f, 0.2, 100_000, 3);
        assert!((mean - 0.2).abs() < 0.005, "{mean}");
        // Representable values and the largest one stay put.
        assert_eq!(stochastic_round(f, 1.5, 0.0), 1.5);
        assert_eq!(stochastic_round(f, 6.0, 0.0), 6.0);
        assert_eq!(stochastic_round(f, 7.0, 0.0), 6.0);
    }
}
