//! Every quantization scheme behind one name, with the CLI's byte formats:
//!
//! - GGML (`q8_0 q4_0 q4_1 q5_0 q5_1`) and `mxfp4`: llama.cpp's block bytes, 32 weights per block.
//! - `absmax-int8`: per block, the f32 scale (little-endian) then B int8 codes (default B = 64).
//! - `zeropoint-uint8`: per block, the f32 scale, the u8 zero point, then B u8 codes.
//! - `nf4`: per block, the f32 absmax then B/2 bytes of codes (element 2i in the low nibble);
//!   double quantization is a storage estimate in reports, not part of these bytes.
//! - `zeropoint-int4`: per block, the f32 scale, the u8 zero point, then B/2 bytes of 4-bit codes.
//! - `f8e4m3`, `f8e5m2`: one f32 per-tensor scale (amax / format max), then one byte per weight
//!   (saturating round to nearest even of x / scale).
//! - `bf16`, `f16`: plain casts, two little-endian bytes per weight (round to nearest even).

use super::ggml::{self, GgmlType, QK};
use super::{absmax, nf4, zeropoint};
use crate::format::{fp8, half, FormatId};
use std::fmt;
use std::str::FromStr;

/// A quantization scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// A GGML block format (or MXFP4).
    Ggml(GgmlType),
    /// Symmetric absmax INT8.
    AbsmaxInt8,
    /// Asymmetric min-max UINT8.
    ZeroPointUint8,
    /// Asymmetric min-max 4-bit.
    ZeroPointInt4,
    /// NormalFloat 4-bit.
    Nf4,
    /// FP8 E4M3 with a per-tensor scale.
    F8E4M3,
    /// FP8 E5M2 with a per-tensor scale.
    F8E5M2,
    /// A plain cast to bfloat16.
    Bf16,
    /// A plain cast to IEEE half.
    F16,
}

impl Scheme {
    /// Every scheme, in the CLI's order.
    pub const ALL: [Scheme; 14] = [
        Scheme::Ggml(GgmlType::Q8_0),
        Scheme::Ggml(GgmlType::Q4_0),
        Scheme::Ggml(GgmlType::Q4_1),
        Scheme::Ggml(GgmlType::Q5_0),
        Scheme::Ggml(GgmlType::Q5_1),
        Scheme::Ggml(GgmlType::Mxfp4),
        Scheme::Nf4,
        Scheme::AbsmaxInt8,
        Scheme::ZeroPointUint8,
        Scheme::ZeroPointInt4,
        Scheme::F8E4M3,
        Scheme::F8E5M2,
        Scheme::Bf16,
        Scheme::F16,
    ];

    /// CLI name.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Ggml(GgmlType::Q8_0) => "q8_0",
            Scheme::Ggml(GgmlType::Q4_0) => "q4_0",
            Scheme::Ggml(GgmlType::Q4_1) => "q4_1",
            Scheme::Ggml(GgmlType::Q5_0) => "q5_0",
            Scheme::Ggml(GgmlType::Q5_1) => "q5_1",
            Scheme::Ggml(GgmlType::Mxfp4) => "mxfp4",
            Scheme::Nf4 => "nf4",
            Scheme::AbsmaxInt8 => "absmax-int8",
            Scheme::ZeroPointUint8 => "zeropoint-uint8",
            Scheme::ZeroPointInt4 => "zeropoint-int4",
            Scheme::F8E4M3 => "f8e4m3",
            Scheme::F8E5M2 => "f8e5m2",
            Scheme::Bf16 => "bf16",
            Scheme::F16 => "f16",
        }
    }

    /// The block size used when none is given.
    pub const fn default_block(self) -> usize {
        match self {
            Scheme::Ggml(_) => QK,
            Scheme::F8E4M3 | Scheme::F8E5M2 | Scheme::Bf16 | Scheme::F16 => 1,
            _ => 64,
        }
    }

    /// Checks a requested block size; GGML formats only take 32, NF4 needs an even size.
    pub fn block(self, requested: Option<usize>) -> Result<usize, String> {
        let b = requested.unwrap_or(self.default_block());
        match self {
            Scheme::Ggml(_) if b != QK => {
                Err(format!("{} has a fixed block of {QK} weights", self.name()))
            }
            Scheme::F8E4M3 | Scheme::F8E5M2 if requested.is_some() => Err(format!(
                "{} uses one per-tensor scale: --block does not apply",
                self.name()
            )),
            _ if b == 0 || b > 1 << 24 => Err(format!("block {b} must be between 1 and 16777216")),
            Scheme::Nf4 if b % 2 == 1 => {
                Err("nf4 packs two codes per byte: the block must be even".into())
            }
            _ => Ok(b),
        }
    }

    /// Storage bits per weight including scales, for `n` weights in blocks of `block`.
    pub fn bits_per_weight(self, block: usize, n: usize) -> f64 {
        match self {
            Scheme::Ggml(t) => t.block_bytes() as f64 * 8.0 / QK as f64,
            Scheme::AbsmaxInt8 => 8.0 + 32.0 / block as f64,
            Scheme::ZeroPointUint8 => 8.0 + 40.0 / block as f64,
            Scheme::ZeroPointInt4 => 4.0 + 40.0 / block as f64,
            Scheme::Bf16 | Scheme::F16 => 16.0,
            Scheme::Nf4 => nf4::bits_per_weight(block, false),
            Scheme::F8E4M3 | Scheme::F8E5M2 => 8.0 + 32.0 / n.max(1) as f64,
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase();
        Scheme::ALL
            .into_iter()
            .find(|x| x.name() == wanted)
            .ok_or_else(|| {
                let names: Vec<&str> = Scheme::ALL.iter().map(|x| x.name()).collect();
                format!("unknown scheme '{s}'; expected one of {}", names.join(" "))
            })
    }
}

fn ragged(n: usize, block: usize) -> String {
    format!(
        "{n} weights is not a whole number of {block}-weight blocks ({} left over)",
        n % block
    )
}

fn fp8_format(s: Scheme) -> FormatId {
    if s == Scheme::F8E4M3 {
        FormatId::F8E4M3
    } else {
        FormatId::F8E5M2
    }
}

/// FP8's per-tensor scale: the largest finite |x| over the format's largest value (0 for a zero
/// tensor). `s` must be an FP8 scheme.
pub fn fp8_scale(s: Scheme, x: &[f32]) -> f32 {
    let amax = x
        .iter()
        .fold(0f32, |a, v| if v.is_finite() { a.max(v.abs()) } else { a });
    amax / fp8_format(s).max_value() as f32
}

/// Appends the FP8 codes of `x / scale` (round to nearest even, saturating; all 0 when the scale
/// is 0). `s` must be an FP8 scheme.
pub fn fp8_encode(s: Scheme, x: &[f32], scale: f32, out: &mut Vec<u8>) {
    let codec = fp8_codec(s);
    if scale == 0.0 {
        out.extend(std::iter::repeat_n(codec.encode_saturating(0.0), x.len()));
    } else {
        out.extend(x.iter().map(|v| codec.encode_saturating(*v / scale)));
    }
}

/// The fast codec of an FP8 scheme (bit-exact with the general one, see [`crate::format::fp8`]).
fn fp8_codec(s: Scheme) -> &'static fp8::Fp8Codec {
    if s == Scheme::F8E4M3 {
        fp8::e4m3()
    } else {
        fp8::e5m2()
    }
}

/// Quantizes `x` into the scheme's bytes. `x.len()` must be a whole number of blocks.
pub fn quantize(s: Scheme, x: &[f32], block: usize) -> Result<Vec<u8>, String> {
    if x.len() % block != 0 {
        return Err(ragged(x.len(), block));
    }
    let mut out = Vec::new();
    match s {
        Scheme::Ggml(t) => {
            out = vec![0u8; x.len() / QK * t.block_bytes()];
            for (chunk, o) in x
                .chunks_exact(QK)
                .zip(out.chunks_exact_mut(t.block_bytes()))
            {
                ggml::quantize_block(t, chunk, o);
            }
        }
        Scheme::AbsmaxInt8 => absmax::quantize_to_bytes(x, block, &mut out),
        Scheme::ZeroPointUint8 => {
            for chunk in x.chunks_exact(block) {
                let q = zeropoint::quantize(chunk, 8);
                out.extend_from_slice(&q.scale.to_le_bytes());
                out.push(q.zero_point);
                out.extend_from_slice(&q.codes);
            }
        }
        Scheme::ZeroPointInt4 => {
            for chunk in x.chunks_exact(block) {
                let q = zeropoint::quantize(chunk, 4);
                out.extend_from_slice(&q.scale.to_le_bytes());
                out.push(q.zero_point);
                out.extend(q.codes.chunks_exact(2).map(|p| p[0] | (p[1] << 4)));
            }
        }
        Scheme::Bf16 | Scheme::F16 => {
            let cast = if s == Scheme::Bf16 {
                half::f32_to_bf16_bits
            } else {
                half::f32_to_f16_bits
            };
            out.extend(x.iter().flat_map(|v| cast(*v).to_le_bytes()));
        }
        Scheme::Nf4 => {
            let q = nf4::quantize(x, block, false);
            for (codes, m) in q.codes.chunks_exact(block).zip(&q.absmax) {
                out.extend_from_slice(&m.to_le_bytes());
                out.extend(codes.chunks_exact(2).map(|p| p[0] | (p[1] << 4)));
            }
        }
        Scheme::F8E4M3 | Scheme::F8E5M2 => {
            let scale = fp8_scale(s, x);
            out.extend_from_slice(&scale.to_le_bytes());
            fp8_encode(s, x, scale, &mut out);
        }
    }
    Ok(out)
}

/// NF4 with double quantization, in the `nf4` byte layout: the codes are computed against each
/// block's exact absmax, and the stored absmax is its double-quantized reconstruction (what a
/// QLoRA model actually multiplies by). Storage is 4.127 bits per weight at block 64
/// ([`nf4::bits_per_weight`]); the bytes stay readable by [`dequantize`] with `Scheme::Nf4`.
pub fn nf4_double_quant_bytes(x: &[f32], block: usize) -> Result<Vec<u8>, String> {
    nf4_double_quant_bytes_with_mean(x, block, nf4::absmax_mean(x, block))
}

/// [`nf4_double_quant_bytes`] of a part of a tensor, around the whole tensor's
/// [`nf4::absmax_mean`]; parts that start on multiples of `block` × [`nf4::DQ_BLOCK`] weights
/// concatenate to the whole tensor's bytes.
pub fn nf4_double_quant_bytes_with_mean(
    x: &[f32],
    block: usize,
    mean: f32,
) -> Result<Vec<u8>, String> {
    if block % 2 == 1 || block == 0 || x.len() % block != 0 {
        return Err(ragged(x.len(), block.max(1)));
    }
    let q = nf4::quantize_with_mean(x, block, Some(mean));
    let mut out = Vec::with_capacity(x.len() / block * (4 + block / 2));
    for (codes, m) in q.codes.chunks_exact(block).zip(&q.absmax) {
        out.extend_from_slice(&m.to_le_bytes());
        out.extend(codes.chunks_exact(2).map(|p| p[0] | (p[1] << 4)));
    }
    Ok(out)
}

/// Reverses [`quantize`]. The byte length must match the scheme's layout.
pub fn dequantize(s: Scheme, bytes: &[u8], block: usize) -> Result<Vec<f32>, String> {
    let stride = match s {
        Scheme::Ggml(t) => t.block_bytes(),
        Scheme::AbsmaxInt8 => 4 + block,
        Scheme::ZeroPointUint8 => 5 + block,
        Scheme::ZeroPointInt4 => 5 + block / 2,
        Scheme::Nf4 => 4 + block / 2,
        Scheme::Bf16 | Scheme::F16 => {
            if bytes.len() % 2 != 0 {
                return Err(format!(
                    "{} bytes is not a whole number of 2-byte {} values",
                    bytes.len(),
                    s
                ));
            }
            let id = if s == Scheme::Bf16 {
                FormatId::Bf16
            } else {
                FormatId::F16
            };
            return Ok(bytes
                .chunks_exact(2)
                .map(|c| id.decode(u16::from_le_bytes([c[0], c[1]]) as u32) as f32)
                .collect());
        }
        Scheme::F8E4M3 | Scheme::F8E5M2 => {
            if bytes.len() < 4 {
                return Err(format!(
                    "{} bytes is too short for a {} tensor (4-byte scale first)",
                    bytes.len(),
                    s
                ));
            }
            let scale = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let codec = fp8_codec(s);
            return Ok(bytes[4..]
                .iter()
                .map(|b| codec.decode(*b) * scale)
                .collect());
        }
    };
    if bytes.len() % stride != 0 {
        return Err(format!(
            "{} bytes is not a whole number of {stride}-byte {} blocks",
            bytes.len(),
            s
        ));
    }
    let weights = match s {
        Scheme::Ggml(_) => QK,
        _ => block,
    };
    let mut out = vec![0f32; bytes.len() / stride * weights];
    for (b, o) in bytes
        .chunks_exact(stride)
        .zip(out.chunks_exact_mut(weights))
    {
        match s {
            Scheme::Ggml(t) => ggml::dequantize_block(t, b, o),
            Scheme::AbsmaxInt8 => absmax::dequantize(
                &absmax::AbsmaxBlock {
                    scale: f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    codes: b[4..].iter().map(|c| *c as i8).collect(),
                },
                o,
            ),
            Scheme::ZeroPointUint8 => {
                let q = zeropoint::ZeroPointBlock {
                    scale: f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    zero_point: b[4],
                    codes: b[5..].to_vec(),
                };
                zeropoint::dequantize(&q, o)
            }
            Scheme::ZeroPointInt4 => {
                let codes = (0..block)
                    .map(|i| {
                        if i % 2 == 0 {
                            b[5 + i / 2] & 0x0F
                        } else {
                            b[5 + i / 2] >> 4
                        }
                    })
                    .collect();
                zeropoint::dequantize(
                    &zeropoint::ZeroPointBlock {
                        scale: f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                        zero_point: b[4],
                        codes,
                    },
                    o,
                )
            }
            Scheme::Nf4 => {
                let m = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                for (i, v) in o.iter_mut().enumerate() {
                    let byte = b[4 + i / 2];
                    let code = if i % 2 == 0 { byte & 0x0F } else { byte >> 4 };
                    *v = nf4::NF4_CODE[code as usize] * m;
                }
            }
            Scheme::F8E4M3 | Scheme::F8E5M2 | Scheme::Bf16 | Scheme::F16 => {
                unreachable!("handled above")
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_round_trips_through_its_bytes() {
        let x: Vec<f32> = (0..128)
            .map(|i| ((i * 53 % 128) as f32 / 64.0 - 1.0) * 0.7)
            .collect();
        for s in Scheme::ALL {
            let block = s.block(None).unwrap();
            let bytes = quantize(s, &x, block).unwrap();
            let y = dequantize(s, &bytes, block).unwrap();
            assert_eq!(y.len(), x.len(), "{s}");
            let m = super::super::metrics::error_metrics(&x, &y);
            assert!(m.sqnr_db > 12.0, "{s}: {} dB", m.sqnr_db);
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(quantize(Scheme::AbsmaxInt8, &[0.0; 65], 64)
            .unwrap_err()
            .contains("1 left over"));
        assert!(Scheme::Ggml(GgmlType::Q4_0).block(Some(64)).is_err());
        assert!(dequantize(Scheme::Ggml(GgmlType::Q8_0), &[0; 35], 32).is_err());
        assert!("q3_k".parse::<Scheme>().unwrap_err().contains("q8_0"));
    }
}
