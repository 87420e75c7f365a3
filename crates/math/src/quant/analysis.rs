//! What the Quantize lab shows about a scheme on a tensor: metrics, storage, per-element codes,
//! histograms and per-block errors; and a quantizer that works in parts, so a page can process a
//! large tensor in chunks and stay responsive.

use super::metrics::{error_metrics, ErrorMetrics};
use super::scheme::{dequantize, quantize, Scheme};
use crate::format::FormatId;
use serde::Serialize;

/// One scheme's result on a tensor.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SchemeResult {
    /// The scheme.
    #[serde(serialize_with = "name")]
    pub scheme: Scheme,
    /// Block size used.
    pub block: usize,
    /// Storage bits per weight, scales included.
    pub bits_per_weight: f64,
    /// Bytes for this tensor.
    pub bytes: usize,
    /// Error of the round trip.
    pub metrics: ErrorMetrics,
}

fn name<S: serde::Serializer>(s: &Scheme, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s.name())
}

/// Zero-pads `x` to a whole number of blocks (the padding is not counted in any metric).
pub fn padded(x: &[f32], block: usize) -> Vec<f32> {
    let mut v = x.to_vec();
    v.resize(x.len().div_ceil(block) * block, 0.0);
    v
}

/// Quantizes `x` in parts whose concatenation equals [`quantize`] of the whole (FP8's per-tensor
/// scale is computed up front).
pub struct PartQuantizer {
    scheme: Scheme,
    block: usize,
    fp8_scale: Option<f32>,
}

impl PartQuantizer {
    /// Prepares to quantize `x` (the whole tensor, already padded) with `scheme`.
    pub fn new(scheme: Scheme, x: &[f32], block: usize) -> Self {
        let fp8_scale = matches!(scheme, Scheme::F8E4M3 | Scheme::F8E5M2).then(|| {
            let id = if scheme == Scheme::F8E4M3 {
                FormatId::F8E4M3
            } else {
                FormatId::F8E5M2
            };
            x.iter()
                .fold(0f32, |a, v| if v.is_finite() { a.max(v.abs()) } else { a })
                / id.max_value() as f32
        });
        Self {
            scheme,
            block,
            fp8_scale,
        }
    }

    /// Bytes that precede the parts (FP8's scale).
    pub fn header(&self) -> Vec<u8> {
        self.fp8_scale
            .map(|s| s.to_le_bytes().to_vec())
            .unwrap_or_default()
    }

    /// Quantizes one part; `part.len()` must be a whole number of blocks.
    pub fn part(&self, part: &[f32]) -> Result<Vec<u8>, String> {
        match self.fp8_scale {
            Some(scale) => {
                let id = if self.scheme == Scheme::F8E4M3 {
                    FormatId::F8E4M3
                } else {
                    FormatId::F8E5M2
                };
                Ok(part
                    .iter()
                    .map(|v| {
                        id.encode(
                            if scale == 0.0 {
                                0.0
                            } else {
                                (*v / scale) as f64
                            },
                            crate::format::Overflow::Saturate,
                        ) as u8
                    })
                    .collect())
            }
            None => quantize(self.scheme, part, self.block),
        }
    }

    /// Values per part for about `target` values (a whole number of blocks, at least one).
    pub fn part_len(&self, target: usize) -> usize {
        let unit = self.block.max(1);
        (target / unit).max(1) * unit
    }
}

/// Everything about one scheme on `x` (already padded to whole blocks; `n` real values).
pub fn analyse(
    scheme: Scheme,
    x: &[f32],
    n: usize,
    block: usize,
    bytes: &[u8],
) -> Result<(SchemeResult, Vec<f32>), String> {
    let y = dequantize(scheme, bytes, block)?;
    let metrics = error_metrics(&x[..n], &y[..n]);
    let result = SchemeResult {
        scheme,
        block,
        bits_per_weight: scheme.bits_per_weight(block, x.len()),
        bytes: bytes.len(),
        metrics,
    };
    Ok((result, y))
}

/// Quantizes and analyses in one go (for tests and small tensors).
pub fn analyse_all_at_once(
    scheme: Scheme,
    x: &[f32],
    block: usize,
) -> Result<(SchemeResult, Vec<f32>), String> {
    let p = padded(x, block);
    let bytes = quantize(scheme, &p, block)?;
    analyse(scheme, &p, x.len(), block, &bytes)
}

/// The integer code stored for each of the first `count` weights (Q8_0: the int8; 4/5-bit
/// formats: the nibble with its fifth bit; MXFP4 and NF4: the table index; FP8: the byte).
pub fn codes(scheme: Scheme, bytes: &[u8], block: usize, count: usize) -> Vec<i32> {
    use super::ggml::GgmlType::*;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let code = match scheme {
            Scheme::Ggml(t) => {
                let (b, j) = (&bytes[i / 32 * t.block_bytes()..], i % 32);
                let nib = |qs: &[u8]| if j < 16 { qs[j] & 0x0F } else { qs[j - 16] >> 4 } as i32;
                match t {
                    Q8_0 => b[2 + j] as i8 as i32,
                    Q4_0 => nib(&b[2..]),
                    Q4_1 => nib(&b[4..]),
                    Q5_0 => {
                        nib(&b[6..])
                            | ((((u32::from_le_bytes([b[2], b[3], b[4], b[5]]) >> j) & 1) as i32)
                                << 4)
                    }
                    Q5_1 => {
                        nib(&b[8..])
                            | ((((u32::from_le_bytes([b[4], b[5], b[6], b[7]]) >> j) & 1) as i32)
                                << 4)
                    }
                    Mxfp4 => nib(&b[1..]),
                }
            }
            Scheme::AbsmaxInt8 => bytes[i / block * (4 + block) + 4 + i % block] as i8 as i32,
            Scheme::ZeroPointUint8 => bytes[i / block * (5 + block) + 5 + i % block] as i32,
            Scheme::ZeroPointInt4 => {
                let byte = bytes[i / block * (5 + block / 2) + 5 + (i % block) / 2];
                (if i % 2 == 0 { byte & 0x0F } else { byte >> 4 }) as i32
            }
            Scheme::Bf16 | Scheme::F16 => {
                u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]) as i32
            }
            Scheme::Nf4 => {
                let byte = bytes[i / block * (4 + block / 2) + 4 + (i % block) / 2];
                (if i % 2 == 0 { byte & 0x0F } else { byte >> 4 }) as i32
            }
            Scheme::F8E4M3 | Scheme::F8E5M2 => bytes[4 + i] as i32,
        };
        out.push(code);
    }
    out
}

/// Counts of `values` in `bins` equal bins over [lo, hi] (values outside are clamped into the end
/// bins; NaN is skipped).
pub fn histogram(values: &[f32], lo: f32, hi: f32, bins: usize) -> Vec<u32> {
    let mut h = vec![0u32; bins.max(1)];
    let width = (hi - lo) / bins.max(1) as f32;
    for v in values.iter().filter(|v| !v.is_nan()) {
        let i = if width > 0.0 {
            ((v - lo) / width) as isize
        } else {
            0
        };
        h[i.clamp(0, bins.max(1) as isize - 1) as usize] += 1;
    }
    h
}

/// RMSE of each block of `block` values.
pub fn block_rmse(x: &[f32], y: &[f32], block: usize) -> Vec<f32> {
    x.chunks(block)
        .zip(y.chunks(block))
        .map(|(a, b)| error_metrics(a, b).rmse as f32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::generate::{generate, Distribution};

    #[test]
    fn parts_concatenate_to_the_whole() {
        let x = generate(Distribution::Laplace, 32, 96, 0.1, 3);
        for s in Scheme::ALL {
            let block = s.block(None).unwrap();
            let q = PartQuantizer::new(s, &x, block);
            let len = q.part_len(500);
            let mut bytes = q.header();
            for part in x.chunks(len) {
                bytes.extend(q.part(part).unwrap());
            }
            assert_eq!(bytes, quantize(s, &x, block).unwrap(), "{s}");
        }
    }

    #[test]
    fn codes_decode_back_to_the_dequantized_values() {
        let x = generate(Distribution::Normal, 4, 64, 1.0, 5);
        let bytes = quantize("q5_0".parse().unwrap(), &x, 32).unwrap();
        let y = dequantize("q5_0".parse().unwrap(), &bytes, 32).unwrap();
        let c = codes("q5_0".parse().unwrap(), &bytes, 32, 64);
        let d = crate::format::FormatId::F16.decode(u16::from_le_bytes([bytes[0], bytes[1]]) as u32)
            as f32;
        for i in 0..32 {
            assert_eq!(y[i], (c[i] - 16) as f32 * d);
        }
    }

    #[test]
    fn histogram_counts_everything_once() {
        let h = histogram(&[-2.0, -1.0, 0.0, 0.5, 1.0, 9.0, f32::NAN], -1.0, 1.0, 4);
        assert_eq!(h.iter().sum::<u32>(), 6);
        assert_eq!(h, vec![2, 0, 1, 3]);
    }

    #[test]
    fn padding_is_not_measured() {
        let (r, y) = analyse_all_at_once("q8_0".parse().unwrap(), &[0.5; 33], 32).unwrap();
        assert_eq!(y.len(), 64);
        assert_eq!(r.bytes, 2 * 34);
        assert!(r.metrics.sqnr_db > 40.0);
    }
}
