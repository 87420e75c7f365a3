//! A scheme's result on a tensor (metrics and storage), the codes stored per weight, and a
//! quantizer that works in parts, so a page can process a large tensor in chunks, stay responsive
//! and hold only one part's bytes at a time.

use super::codec::{dequantize, nf4_double_quant_bytes_with_mean, quantize};
use super::error::QuantError;
use super::fp4_options::{self, Fp4Options};
use super::fp8_tiles::{fp8_encode, fp8_scale};
use super::layout::Layout;
use super::metrics::ErrorMetrics;
use super::nf4;
use super::scheme::Scheme;
use serde::{Deserialize, Serialize};

/// One scheme's result on a tensor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeResult {
    /// The scheme.
    #[serde(serialize_with = "name", deserialize_with = "named")]
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

/// Reads a scheme back from its name (an unknown name is an error that says which).
fn named<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Scheme, D::Error> {
    let text = String::deserialize(de)?;
    text.parse().map_err(serde::de::Error::custom)
}

/// Quantizes a tensor in parts whose concatenation equals the whole tensor's bytes: FP8's
/// per-tensor scale and NF4 double quantization's mean are computed up front, and parts are whole
/// blocks (whole groups of 256 blocks for double quantization). A backend other than the CPU
/// reads the per-tensor parameters from [`PartQuantizer::fp8_scale`] and
/// [`PartQuantizer::nf4_mean`], and NVFP4's and MXFP4's options from [`PartQuantizer::options`]
/// with the tensor index of the part's first value, [`PartQuantizer::first`] (stochastic
/// rounding draws by tensor index, so parts give the whole tensor's bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct PartQuantizer {
    scheme: Scheme,
    block: usize,
    fp8_scale: Option<f32>,
    nf4_mean: Option<f32>,
    fp4: Fp4Options,
    first: u64,
}

impl PartQuantizer {
    /// Prepares to quantize `x` (the whole tensor) with `scheme`; `double_quant` applies to NF4.
    pub fn new(scheme: Scheme, x: &[f32], block: usize, double_quant: bool) -> Self {
        Self::scaled_by(scheme, x, block, double_quant, x)
    }

    /// As [`PartQuantizer::new`], with FP8's per-tensor scale taken from `x[peak]` alone, where
    /// `peak` is the index of a largest finite |x| ([`super::lab::Overview::peak`]), which saves
    /// a pass over the tensor. Any other `peak` (out of range, or not the largest) gives another
    /// scale, never a panic.
    pub fn new_at_peak(
        scheme: Scheme,
        x: &[f32],
        block: usize,
        double_quant: bool,
        peak: usize,
    ) -> Self {
        let at_peak = x.get(peak..=peak).unwrap_or_default();
        Self::scaled_by(scheme, x, block, double_quant, at_peak)
    }

    /// FP8's scale from the largest finite |v| of `amax_from` (see [`fp8_scale`]).
    fn scaled_by(
        scheme: Scheme,
        x: &[f32],
        block: usize,
        double_quant: bool,
        amax_from: &[f32],
    ) -> Self {
        let fp8 = matches!(scheme, Scheme::F8E4M3 | Scheme::F8E5M2);
        Self {
            scheme,
            block,
            fp8_scale: fp8.then(|| fp8_scale(scheme, amax_from)),
            nf4_mean: (scheme == Scheme::Nf4 && double_quant).then(|| nf4::absmax_mean(x, block)),
            fp4: Fp4Options::NONE,
            first: 0,
        }
    }

    /// This quantizer with the random Hadamard transform and stochastic rounding of `opts`
    /// ([`fp4_options`]) when its scheme is one of [`fp4_options::SCHEMES`] (at the scheme's own
    /// block); other schemes ignore them and stay as they are.
    pub fn with_options(mut self, opts: Fp4Options) -> Self {
        if fp4_options::SCHEMES.contains(&self.scheme) {
            self.fp4 = opts;
        }
        self
    }

    /// The FP4 options in force ([`Fp4Options::NONE`] unless [`PartQuantizer::with_options`]
    /// set them on NVFP4 or MXFP4).
    pub fn options(&self) -> Fp4Options {
        self.fp4
    }

    /// The tensor index of the next part's first value: stochastic rounding's counter (0 until
    /// [`PartQuantizer::at`]; [`super::lab::SchemeRun`] keeps it at its next part).
    pub fn first(&self) -> u64 {
        self.first
    }

    /// Sets [`PartQuantizer::first`]: the next part starts at tensor index `first`.
    pub fn at(&mut self, first: u64) {
        self.first = first;
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Values per block.
    pub fn block(&self) -> usize {
        self.block
    }

    /// The scheme's byte layout at this block size.
    pub fn layout(&self) -> Layout {
        self.scheme.layout(self.block)
    }

    /// FP8's per-tensor scale (`None` for other schemes).
    pub fn fp8_scale(&self) -> Option<f32> {
        self.fp8_scale
    }

    /// The whole tensor's mean block absmax, around which NF4 double quantization quantizes
    /// (`None` without double quantization).
    pub fn nf4_mean(&self) -> Option<f32> {
        self.nf4_mean
    }

    /// Bytes that precede the parts (FP8's scale).
    pub fn header(&self) -> Vec<u8> {
        self.fp8_scale
            .map(|s| s.to_le_bytes().to_vec())
            .unwrap_or_default()
    }

    /// Quantizes one part, without the header; `part.len()` must be a whole number of blocks
    /// ([`QuantError::Ragged`] otherwise). With options, [`fp4_options::quantize`] from
    /// [`PartQuantizer::first`].
    pub fn part(&self, part: &[f32]) -> Result<Vec<u8>, QuantError> {
        if !self.fp4.is_none() {
            return fp4_options::quantize(self.scheme, part, self.fp4, self.first);
        }
        if let Some(scale) = self.fp8_scale {
            let mut out = Vec::with_capacity(part.len());
            fp8_encode(self.scheme, part, scale, &mut out);
            return Ok(out);
        }
        match self.nf4_mean {
            Some(mean) => nf4_double_quant_bytes_with_mean(part, self.block, mean),
            None => quantize(self.scheme, part, self.block),
        }
    }

    /// Dequantizes the bytes of one part (as [`PartQuantizer::part`] returned them).
    /// Errors as [`dequantize`].
    pub fn dequantize_part(&self, bytes: &[u8]) -> Result<Vec<f32>, QuantError> {
        if self.fp4.rht.is_some() {
            // The inverse transform back to the original basis (blocks hold whole groups of 16).
            return fp4_options::dequantize(self.scheme, bytes, self.fp4);
        }
        match self.fp8_scale {
            Some(_) => {
                let mut whole = self.header();
                whole.extend_from_slice(bytes);
                dequantize(self.scheme, &whole, self.block)
            }
            None => dequantize(self.scheme, bytes, self.block),
        }
    }

    /// Values per part for about `target` values: a whole number of blocks (of 256 blocks with
    /// double quantization; of bands of 128 rows for `fp8-128x128`), at least one.
    pub fn part_len(&self, target: usize) -> usize {
        let unit = self.layout().values.max(self.block).max(1)
            * if self.nf4_mean.is_some() {
                nf4::DQ_BLOCK
            } else {
                1
            };
        (target / unit).max(1) * unit
    }
}

/// The integer code stored for each of the first `count` weights of a whole tensor's bytes
/// (header included), read through the scheme's [`Layout`]: Q8_0 and absmax-int8: the signed
/// int8; 4/5-bit formats: the nibble with its fifth bit; MXFP4 and NF4: the table index; FP8:
/// the byte; bf16 and f16: the 16 bits. Stops early where the bytes end.
pub fn codes(scheme: Scheme, bytes: &[u8], block: usize, count: usize) -> Vec<i32> {
    let layout = scheme.layout(block);
    (0..count)
        .map_while(|i| layout.code_value(bytes, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::codec::nf4_double_quant_bytes;
    use crate::quant::generate::{generate, Distribution};

    #[test]
    fn parts_concatenate_to_the_whole() {
        let x = generate(Distribution::Laplace, 32, 96, 0.1, 3);
        for s in Scheme::ALL {
            let block = s.block(None).unwrap();
            let q = PartQuantizer::new(s, &x, block, false);
            let len = q.part_len(500);
            let mut bytes = q.header();
            for part in x.chunks(len) {
                let b = q.part(part).unwrap();
                assert_eq!(
                    q.dequantize_part(&b).unwrap(),
                    dequantize(s, &[q.header(), b.clone()].concat(), block).unwrap()
                );
                bytes.extend(b);
            }
            assert_eq!(bytes, quantize(s, &x, block).unwrap(), "{s}");
        }
    }

    #[test]
    fn parts_with_fp4_options_concatenate_to_the_whole_and_other_schemes_ignore_them() {
        let x = generate(Distribution::Laplace, 32, 96, 0.1, 3);
        let opts = Fp4Options {
            rht: Some(5),
            sr: Some(6),
        };
        for s in Scheme::ALL {
            let block = s.default_block();
            let mut q = PartQuantizer::new(s, &x, block, false).with_options(opts);
            let fp4 = fp4_options::SCHEMES.contains(&s);
            assert_eq!(q.options().is_none(), !fp4, "{s}");
            let len = q.part_len(500);
            let mut bytes = q.header();
            let mut values = Vec::new();
            for (k, part) in x.chunks(len).enumerate() {
                q.at((k * len) as u64);
                let b = q.part(part).unwrap();
                values.extend(q.dequantize_part(&b).unwrap());
                bytes.extend(b);
            }
            let whole = match fp4 {
                true => fp4_options::quantize(s, &x, opts, 0).unwrap(),
                false => quantize(s, &x, block).unwrap(),
            };
            assert_eq!(bytes, whole, "{s}");
            if fp4 {
                assert_eq!(
                    values,
                    fp4_options::dequantize(s, &whole, opts).unwrap(),
                    "{s}"
                );
            }
        }
    }

    #[test]
    fn the_scale_from_the_peak_is_the_scale_from_the_whole_tensor() {
        let mut x = generate(Distribution::Laplace, 4, 100, 0.3, 6);
        x[17] = f32::INFINITY;
        x[40] = f32::NAN;
        let tensors = [x, vec![], vec![f32::NAN; 3], vec![0.0; 5], vec![-2.0, 2.0]];
        for x in &tensors {
            let peak = crate::quant::lab::Overview::new(x).peak;
            for s in [Scheme::F8E4M3, Scheme::F8E5M2, Scheme::AbsmaxInt8] {
                assert_eq!(
                    PartQuantizer::new_at_peak(s, x, 1, false, peak),
                    PartQuantizer::new(s, x, 1, false),
                    "{s} on {x:?}"
                );
            }
        }
        // A peak out of range is only another scale.
        let q = PartQuantizer::new_at_peak(Scheme::F8E4M3, &[1.0], 1, false, 9);
        assert_eq!(q.fp8_scale(), Some(0.0));
    }

    #[test]
    fn double_quantized_parts_concatenate_to_the_whole() {
        // 40 groups of 256 blocks of 8: the mean of all absmax values is needed up front.
        let x = generate(Distribution::Laplace, 40, 2048, 0.1, 4);
        let q = PartQuantizer::new(Scheme::Nf4, &x, 8, true);
        let len = q.part_len(5000);
        assert_eq!(len, 8 * 256 * 2);
        let bytes: Vec<u8> = x.chunks(len).flat_map(|p| q.part(p).unwrap()).collect();
        assert_eq!(bytes, nf4_double_quant_bytes(&x, 8).unwrap());
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
}
