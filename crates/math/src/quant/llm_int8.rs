//! LLM.int8() (Dettmers et al. 2022): vector-wise INT8 matrix multiplication, with the outlier
//! feature columns kept in FP16 (mixed-precision decomposition).

use crate::format::{FormatId, Overflow};

/// Outlier threshold of the paper: a feature column with any |x| ≥ 6.0 stays in 16 bits.
pub const OUTLIER_THRESHOLD: f32 = 6.0;

/// X (m × k, row-major) times W (k × n, row-major) three ways.
#[derive(Clone, Debug, PartialEq)]
pub struct Int8Matmul {
    /// FP32 reference.
    pub reference: Vec<f32>,
    /// Vector-wise INT8 for every column (no decomposition).
    pub int8: Vec<f32>,
    /// LLM.int8(): outlier columns of X (and rows of W) in FP16, the rest in INT8.
    pub decomposed: Vec<f32>,
    /// Indices of the outlier feature columns.
    pub outlier_columns: Vec<usize>,
}

fn f16(v: f32) -> f32 {
    FormatId::F16.decode(FormatId::F16.encode(v as f64, Overflow::Native)) as f32
}

fn round_i8(v: f32, scale: f32) -> i32 {
    if scale == 0.0 {
        0
    } else {
        (v / scale).round().clamp(-127.0, 127.0) as i32
    }
}

/// Vector-wise INT8 product over the feature columns `keep`: X rows and W columns each get an
/// absmax scale; products accumulate in i32 and are rescaled by the outer product of the scales.
fn int8_part(x: &[f32], w: &[f32], m: usize, k: usize, n: usize, keep: &[usize]) -> Vec<f32> {
    let row_scale: Vec<f32> = (0..m)
        .map(|i| keep.iter().fold(0f32, |a, &j| a.max(x[i * k + j].abs())) / 127.0)
        .collect();
    let col_scale: Vec<f32> = (0..n)
        .map(|c| keep.iter().fold(0f32, |a, &j| a.max(w[j * n + c].abs())) / 127.0)
        .collect();
    let mut out = vec![0f32; m * n];
    for i in 0..m {
        for c in 0..n {
            let acc: i32 = keep
                .iter()
                .map(|&j| {
                    round_i8(x[i * k + j], row_scale[i]) * round_i8(w[j * n + c], col_scale[c])
                })
                .sum();
            out[i * n + c] = acc as f32 * row_scale[i] * col_scale[c];
        }
    }
    out
}

/// Computes X·W as FP32, as vector-wise INT8, and as LLM.int8() with outliers (|x| ≥ `threshold`
/// anywhere in a feature column) in FP16.
pub fn int8_matmul(
    x: &[f32],
    w: &[f32],
    m: usize,
    k: usize,
    n: usize,
    threshold: f32,
) -> Int8Matmul {
    assert_eq!((x.len(), w.len()), (m * k, k * n), "shapes must match");
    let mut reference = vec![0f32; m * n];
    for i in 0..m {
        for c in 0..n {
            reference[i * n + c] = (0..k).map(|j| x[i * k + j] * w[j * n + c]).sum();
        }
    }
    let all: Vec<usize> = (0..k).collect();
    let outlier_columns: Vec<usize> = (0..k)
        .filter(|&j| (0..m).any(|i| x[i * k + j].abs() >= threshold))
        .collect();
    let regular: Vec<usize> = all
        .iter()
        .copied()
        .filter(|j| !outlier_columns.contains(j))
        .collect();
    let mut decomposed = int8_part(x, w, m, k, n, &regular);
    for i in 0..m {
        for c in 0..n {
            decomposed[i * n + c] += outlier_columns
                .iter()
                .map(|&j| f16(x[i * k + j]) * f16(w[j * n + c]))
                .sum::<f32>();
        }
    }
    Int8Matmul {
        reference,
        int8: int8_part(x, w, m, k, n, &all),
        decomposed,
        outlier_columns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::metrics::error_metrics;

    #[test]
    fn decomposition_rescues_outlier_features() {
        let (m, k, n) = (8, 64, 8);
        let x: Vec<f32> = (0..m * k)
            .map(|i| {
                if i % k == 3 {
                    60.0
                } else {
                    ((i * 31 % 97) as f32 / 97.0 - 0.5) * 0.2
                }
            })
            .collect();
        let w: Vec<f32> = (0..k * n)
            .map(|i| ((i * 17 % 89) as f32 / 89.0 - 0.5) * 0.1)
            .collect();
        let r = int8_matmul(&x, &w, m, k, n, OUTLIER_THRESHOLD);
        assert_eq!(r.outlier_columns, vec![3]);
        let plain = error_metrics(&r.reference, &r.int8).rmse;
        let mixed = error_metrics(&r.reference, &r.decomposed).rmse;
        assert!(mixed * 5.0 < plain, "decomposed {mixed} vs plain {plain}");
    }
}
