//! Seeded synthetic tensors: normal, Laplace, uniform, and normal with outlier channels (the
//! systematic large features that LLM.int8() exists for).

use serde::Serialize;

/// A distribution to sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Distribution {
    /// Standard normal × `scale`.
    Normal,
    /// Laplace (double exponential) with the same standard deviation.
    Laplace,
    /// Uniform on [-√3, √3] × `scale` (unit variance).
    Uniform,
    /// Normal, with `count` whole columns (feature channels) multiplied by `magnitude`.
    OutlierChannels {
        /// How many columns.
        count: usize,
        /// Multiplier of those columns.
        magnitude: f32,
    },
}

/// In plain words for readers: "normal values", "normal values with 4 outlier channels of
/// magnitude 20".
impl std::fmt::Display for Distribution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Distribution::Normal => f.write_str("normal values"),
            Distribution::Laplace => f.write_str("Laplace values"),
            Distribution::Uniform => f.write_str("uniform values"),
            Distribution::OutlierChannels { count, magnitude } => write!(
                f,
                "normal values with {count} outlier channel{} of magnitude {magnitude}",
                if *count == 1 { "" } else { "s" }
            ),
        }
    }
}

/// SplitMix64: a small, fast, seedable generator (same sequence on every platform).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// `rows × cols` values (row-major) from `dist`, scaled by `scale`, reproducible from `seed`.
/// Outlier channels are spread evenly across the columns.
pub fn generate(dist: Distribution, rows: usize, cols: usize, scale: f32, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64(seed);
    let outliers: Vec<usize> = match dist {
        Distribution::OutlierChannels { count, .. } if count > 0 && cols > 0 => (0..count
            .min(cols))
            .map(|i| i * cols / count.min(cols) + cols / (2 * count.min(cols)))
            .collect(),
        _ => Vec::new(),
    };
    (0..rows * cols)
        .map(|i| {
            let v = match dist {
                Distribution::Normal | Distribution::OutlierChannels { .. } => rng.normal(),
                Distribution::Laplace => {
                    let u = rng.unit() - 0.5;
                    -u.signum() * (1.0 - 2.0 * u.abs()).ln() / std::f64::consts::SQRT_2
                }
                Distribution::Uniform => (rng.unit() * 2.0 - 1.0) * 3f64.sqrt(),
            };
            let boost = match dist {
                Distribution::OutlierChannels { magnitude, .. }
                    if outliers.contains(&(i % cols.max(1))) =>
                {
                    magnitude
                }
                _ => 1.0,
            };
            v as f32 * scale * boost
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_are_named_in_plain_words_not_rust() {
        let outliers = Distribution::OutlierChannels {
            count: 4,
            magnitude: 20.0,
        };
        assert_eq!(
            outliers.to_string(),
            "normal values with 4 outlier channels of magnitude 20"
        );
        let one = Distribution::OutlierChannels {
            count: 1,
            magnitude: 2.5,
        };
        assert_eq!(
            one.to_string(),
            "normal values with 1 outlier channel of magnitude 2.5"
        );
        assert_eq!(Distribution::Laplace.to_string(), "Laplace values");
    }

    fn moments(v: &[f32]) -> (f64, f64) {
        let n = v.len() as f64;
        let mean = v.iter().map(|x| *x as f64).sum::<f64>() / n;
        (
            mean,
            v.iter().map(|x| (*x as f64 - mean).powi(2)).sum::<f64>() / n,
        )
    }

    #[test]
    fn distributions_have_unit_variance_and_are_reproducible() {
        for d in [
            Distribution::Normal,
            Distribution::Laplace,
            Distribution::Uniform,
        ] {
            let v = generate(d, 200, 100, 1.0, 7);
            let (mean, var) = moments(&v);
            assert!(
                mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
                "{d:?}: {mean} {var}"
            );
            assert_eq!(v, generate(d, 200, 100, 1.0, 7));
        }
    }

    #[test]
    fn outlier_channels_are_whole_columns() {
        let v = generate(
            Distribution::OutlierChannels {
                count: 2,
                magnitude: 20.0,
            },
            64,
            32,
            1.0,
            1,
        );
        let col_rms =
            |c: usize| ((0..64).map(|r| (v[r * 32 + c] as f64).powi(2)).sum::<f64>() / 64.0).sqrt();
        let big: Vec<usize> = (0..32).filter(|c| col_rms(*c) > 5.0).collect();
        assert_eq!(big.len(), 2);
    }
}
