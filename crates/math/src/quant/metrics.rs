//! Error metrics of a reconstruction against the original.

use serde::Serialize;

/// How far `approx` is from `original`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ErrorMetrics {
    /// Mean squared error; +inf when any value was lost.
    pub mse: f64,
    /// Root mean squared error; +inf when any value was lost.
    pub rmse: f64,
    /// Largest absolute error; +inf when any value was lost.
    pub max_abs_error: f64,
    /// Signal-to-quantization-noise ratio in dB: 10·log10(Σx² / Σ(x − x̂)²); +inf when exact,
    /// −inf when any value was lost.
    pub sqnr_db: f64,
    /// Cosine similarity of the two vectors (1 when both are zero); NaN when any value was lost.
    pub cosine: f64,
    /// Originals that are NaN or ±inf: no error can be measured against them, so they are skipped.
    pub skipped: usize,
    /// Finite originals that came back NaN or ±inf (a block whose scale overflowed because it held
    /// an infinity, say). Each is an infinite error.
    pub lost: usize,
}

/// Metrics over the pairs whose original is finite (NaN and ±inf originals are counted in
/// `skipped`); a finite original that comes back non-finite is counted in `lost` and makes the
/// error infinite.
pub fn error_metrics(original: &[f32], approx: &[f32]) -> ErrorMetrics {
    let (mut se, mut sx, mut sy, mut sxy, mut max, mut n) = (0f64, 0f64, 0f64, 0f64, 0f64, 0usize);
    let (mut skipped, mut lost) = (0usize, 0usize);
    for (a, b) in original.iter().zip(approx) {
        if !a.is_finite() {
            skipped += 1;
            continue;
        }
        if !b.is_finite() {
            lost += 1;
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
    if lost > 0 {
        return ErrorMetrics {
            mse: f64::INFINITY,
            rmse: f64::INFINITY,
            max_abs_error: f64::INFINITY,
            sqnr_db: f64::NEG_INFINITY,
            cosine: f64::NAN,
            skipped,
            lost,
        };
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
        // One square root of the product: exactly 1 for identical vectors more often than two.
        (sxy / (sx * sy).sqrt()).clamp(-1.0, 1.0)
    };
    ErrorMetrics {
        mse,
        rmse: mse.sqrt(),
        max_abs_error: max,
        sqnr_db,
        cosine,
        skipped,
        lost,
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

    #[test]
    fn non_finite_originals_are_skipped_and_counted() {
        let m = error_metrics(&[f32::NAN, f32::INFINITY, 1.0, 2.0], &[0.0, 0.0, 1.0, 2.0]);
        assert_eq!((m.skipped, m.lost), (2, 0));
        assert_eq!((m.mse, m.sqnr_db), (0.0, f64::INFINITY));
        assert_eq!(m.cosine, 1.0);
    }

    #[test]
    fn a_value_that_comes_back_non_finite_is_an_infinite_error() {
        let m = error_metrics(&[f32::INFINITY, 0.5, 0.25], &[f32::NAN, f32::NAN, 0.25]);
        assert_eq!((m.skipped, m.lost), (1, 1));
        assert_eq!(m.mse, f64::INFINITY);
        assert_eq!(m.max_abs_error, f64::INFINITY);
        assert_eq!(m.sqnr_db, f64::NEG_INFINITY);
        assert!(m.cosine.is_nan());
    }
}
