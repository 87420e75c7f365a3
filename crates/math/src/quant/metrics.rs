//! Error metrics of a reconstruction against the original.

use serde::Serialize;

/// How far `approx` is from `original`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ErrorMetrics {
    /// Mean squared error.
    pub mse: f64,
    /// Root mean squared error.
    pub rmse: f64,
    /// Largest absolute error.
    pub max_abs_error: f64,
    /// Signal-to-quantization-noise ratio in dB: 10·log10(Σx² / Σ(x − x̂)²); +inf when exact.
    pub sqnr_db: f64,
    /// Cosine similarity of the two vectors (1 when both are zero).
    pub cosine: f64,
}

/// Metrics over the pairs where the original is finite (NaN and inf inputs are skipped).
pub fn error_metrics(original: &[f32], approx: &[f32]) -> ErrorMetrics {
    let (mut se, mut sx, mut sy, mut sxy, mut max, mut n) = (0f64, 0f64, 0f64, 0f64, 0f64, 0usize);
    for (a, b) in original.iter().zip(approx) {
        if !a.is_finite() {
            continue;
        }
        let (a, b) = (*a as f64, *b as f64);
        let e = a - b;
        se += e * e;
        sx += a * a;
        sy += b * b;
        sxy += a * b;
        max = f64::max(max, e.abs());
        n += 1;
    }
    let mse = if n == 0 { 0.0 } else { se / n as f64 };
    let sqnr_db = if se == 0.0 {
        f64::INFINITY
    } else {
        10.0 * (sx / se).log10()
    };
    let cosine = if sx == 0.0 && sy == 0.0 {
        1.0
    } else if sx == 0.0 || sy == 0.0 {
        0.0
    } else {
        sxy / (sx.sqrt() * sy.sqrt())
    };
    ErrorMetrics {
        mse,
        rmse: mse.sqrt(),
        max_abs_error: max,
        sqnr_db,
        cosine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_of_a_known_error() {
        let m = error_metrics(&[1.0, -1.0, 2.0, 0.0], &[1.0, -1.0, 2.5, 0.0]);
        assert_eq!(m.mse, 0.0625);
        assert_eq!(m.rmse, 0.25);
        assert_eq!(m.max_abs_error, 0.5);
        assert!((m.sqnr_db - 10.0 * (6.0f64 / 0.25).log10()).abs() < 1e-12);
        assert!(m.cosine > 0.99 && m.cosine < 1.0);
        assert_eq!(error_metrics(&[1.0], &[1.0]).sqnr_db, f64::INFINITY);
    }
}
