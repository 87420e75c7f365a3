//! Quantizing and dequantizing by scheme: each scheme's quantizer behind one call, writing the
//! byte formats [`super::scheme`] lists and [`super::layout`] describes.

use super::checks::whole_blocks;
use super::error::QuantError;
use super::fp8_tiles::{fp8_codec, fp8_encode, fp8_scale};
use super::ggml;
use super::kquants::LengthError;
use super::layout::Layout;
use super::scheme::Scheme;
use super::{absmax, iq4_nl, nf4, nvfp4, zeropoint};
use crate::format::{fp8, half};

/// Quantizes `x` into the scheme's bytes (see the module docs for each layout, and each
/// quantizer for its rounding). `x.len()` must be a whole number of blocks and `block` should
/// have passed [`Scheme::block`]; otherwise a [`QuantError::Ragged`].
///
/// For `fp8-128x128`, `block` is the tensor's column count: `x` must be whole rows of it
/// ([`QuantError::Rows`]; 0 columns is [`QuantError::ColumnsOutOfRange`]).
pub fn quantize(s: Scheme, x: &[f32], block: usize) -> Result<Vec<u8>, QuantError> {
    if s == Scheme::Fp8Block {
        let cols = s.block(Some(block))?;
        let mut out = Vec::with_capacity(s.layout(cols).bytes_for(x.len()));
        super::fp8_tiles::quantize_blocks(x, cols, &mut out).map_err(|_| QuantError::Rows {
            values: x.len(),
            cols,
        })?;
        return Ok(out);
    }
    whole_blocks(x.len(), block)?;
    let layout = s.layout(block);
    let mut out = Vec::with_capacity(layout.bytes_for(x.len()));
    match s {
        Scheme::Ggml(t) => {
            out.resize(layout.bytes_for(x.len()), 0);
            ggml::quantize_row(t, x, &mut out)?;
        }
        Scheme::KQuant(t) => sized(&mut out, layout, x.len(), |o| t.quantize(x, o))?,
        Scheme::Iq4Nl => sized(&mut out, layout, x.len(), |o| iq4_nl::quantize(x, o))?,
        Scheme::Nvfp4 => sized(&mut out, layout, x.len(), |o| nvfp4::quantize(x, o))?,
        Scheme::Mx(f) => sized(&mut out, layout, x.len(), |o| super::mx::quantize(f, x, o))?,
        Scheme::AbsmaxInt8 => absmax::quantize_to_bytes(x, block, &mut out),
        Scheme::Fp8Block => unreachable!("fp8-128x128 is quantized above"),
        Scheme::Fp8Tile => {
            for tile in x.chunks_exact(layout.values) {
                let scale = fp8_scale(Scheme::F8E4M3, tile);
                out.extend_from_slice(&scale.to_le_bytes());
                fp8_encode(Scheme::F8E4M3, tile, scale, &mut out);
            }
        }
        Scheme::ZeroPointUint8 | Scheme::ZeroPointInt4 => {
            let bits = layout.code_bits;
            out.resize(layout.bytes_for(x.len()), 0);
            let mut codes = vec![0; block];
            for (chunk, o) in x
                .chunks_exact(block)
                .zip(out.chunks_exact_mut(layout.block_bytes))
            {
                let (scale, zero_point) = zeropoint::quantize_into(chunk, bits, &mut codes);
                o[..4].copy_from_slice(&scale.to_le_bytes());
                o[4] = zero_point;
                layout.pack_codes(&codes, &mut o[layout.code_offset..]);
            }
        }
        // Whole slices, the conversion inlined: through a function pointer, a byte at a time
        // into the vector, BF16 ran at 2.1 GB/s in wasm.
        Scheme::Bf16 => {
            out.resize(2 * x.len(), 0);
            for (o, v) in out.chunks_exact_mut(2).zip(x) {
                o.copy_from_slice(&half::f32_to_bf16_bits(*v).to_le_bytes());
            }
        }
        Scheme::F16 => {
            out.resize(2 * x.len(), 0);
            half::encode_f16_le(x, &mut out);
        }
        Scheme::Nf4 => nf4_bytes(&nf4::quantize(x, block, false), &mut out),
        Scheme::F8E4M3 | Scheme::F8E5M2 => {
            let scale = fp8_scale(s, x);
            out.extend_from_slice(&scale.to_le_bytes());
            fp8_encode(s, x, scale, &mut out);
        }
    }
    Ok(out)
}

/// Grows `out` by the bytes of `values` values and lets `write` fill them (a block format's
/// module, which checks the lengths again).
fn sized(
    out: &mut Vec<u8>,
    layout: Layout,
    values: usize,
    write: impl FnOnce(&mut [u8]) -> Result<(), LengthError>,
) -> Result<(), QuantError> {
    let start = out.len();
    out.resize(start + layout.bytes_for(values), 0);
    Ok(write(&mut out[start..])?)
}

/// Appends NF4 blocks in the `nf4` layout: each block's f32 absmax, then its packed codes.
fn nf4_bytes(q: &nf4::Nf4, out: &mut Vec<u8>) {
    let layout = Scheme::Nf4.layout(q.block);
    let start = out.len();
    out.resize(start + q.absmax.len() * layout.block_bytes, 0);
    for ((codes, m), o) in q
        .codes
        .chunks_exact(q.block)
        .zip(&q.absmax)
        .zip(out[start..].chunks_exact_mut(layout.block_bytes))
    {
        o[..4].copy_from_slice(&m.to_le_bytes());
        layout.pack_codes(codes, &mut o[layout.code_offset..]);
    }
}

/// NF4 with double quantization, in the `nf4` byte layout: the codes are computed against each
/// block's exact absmax, and the stored absmax is its double-quantized reconstruction (what a
/// QLoRA model actually multiplies by). Storage is 4.127 bits per weight at block 64
/// ([`nf4::bits_per_weight`]); the bytes stay readable by [`dequantize`] with `Scheme::Nf4`.
/// Errors as [`quantize`], and [`QuantError::OddBlock`] for an odd block.
pub fn nf4_double_quant_bytes(x: &[f32], block: usize) -> Result<Vec<u8>, QuantError> {
    nf4_double_quant_bytes_with_mean(x, block, nf4::absmax_mean(x, block))
}

/// [`nf4_double_quant_bytes`] of a part of a tensor, around the whole tensor's
/// [`nf4::absmax_mean`]; parts that start on multiples of `block` × [`nf4::DQ_BLOCK`] weights
/// concatenate to the whole tensor's bytes.
pub fn nf4_double_quant_bytes_with_mean(
    x: &[f32],
    block: usize,
    mean: f32,
) -> Result<Vec<u8>, QuantError> {
    let block = Scheme::Nf4.block(Some(block))?;
    whole_blocks(x.len(), block)?;
    let q = nf4::quantize_with_mean(x, block, Some(mean));
    let mut out = Vec::with_capacity(Scheme::Nf4.layout(block).bytes_for(x.len()));
    nf4_bytes(&q, &mut out);
    Ok(out)
}

/// Reverses [`quantize`]: exact for the stored codes (each value is code × scale computed in
/// f32, as the scheme's quantizer documents). The byte length must be the header and a whole
/// number of blocks, else [`QuantError::MissingHeader`] or [`QuantError::ByteLength`]. For
/// `fp8-128x128` (`block`: the column count) the bytes must be whole bands of 128 rows and a
/// shorter last band ([`QuantError::ByteLength`] names the whole band's bytes).
pub fn dequantize(s: Scheme, bytes: &[u8], block: usize) -> Result<Vec<f32>, QuantError> {
    let layout = s.layout(block);
    if s == Scheme::Fp8Block {
        let cols = s.block(Some(block))?;
        return super::fp8_tiles::dequantize_blocks(bytes, cols).ok_or(QuantError::ByteLength {
            scheme: s,
            bytes: bytes.len(),
            stride: layout.block_bytes,
        });
    }
    let Some(body) = bytes.get(layout.header_bytes..) else {
        return Err(QuantError::MissingHeader {
            scheme: s,
            bytes: bytes.len(),
            header: layout.header_bytes,
        });
    };
    let stride = layout.block_bytes;
    if body.len() % stride != 0 {
        return Err(QuantError::ByteLength {
            scheme: s,
            bytes: bytes.len(),
            stride,
        });
    }
    let mut out = vec![0f32; body.len() / stride * layout.values];
    match s {
        Scheme::Bf16 => {
            // A bfloat16 is the upper half of the f32 with the same value.
            for (o, c) in out.iter_mut().zip(body.chunks_exact(2)) {
                *o = f32::from_bits((u16::from_le_bytes([c[0], c[1]]) as u32) << 16);
            }
        }
        Scheme::F16 => half::decode_f16_le(body, &mut out),
        Scheme::F8E4M3 | Scheme::F8E5M2 => {
            let scale = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let codec = fp8_codec(s);
            for (o, b) in out.iter_mut().zip(body) {
                *o = codec.decode(*b) * scale;
            }
        }
        Scheme::Ggml(t) => ggml::dequantize_row(t, body, &mut out)?,
        Scheme::KQuant(t) => t.dequantize(body, &mut out)?,
        Scheme::Iq4Nl => iq4_nl::dequantize(body, &mut out)?,
        Scheme::Nvfp4 => nvfp4::dequantize(body, &mut out)?,
        Scheme::Mx(f) => super::mx::dequantize(f, body, &mut out)?,
        _ => {
            let mut codes = vec![0u8; layout.values];
            for (b, o) in body
                .chunks_exact(stride)
                .zip(out.chunks_exact_mut(layout.values))
            {
                dequantize_block(s, &layout, b, &mut codes, o);
            }
        }
    }
    Ok(out)
}

/// Dequantizes one block `b` of a blocked scheme into `out`, unpacking its codes into `codes`.
fn dequantize_block(s: Scheme, layout: &Layout, b: &[u8], codes: &mut [u8], out: &mut [f32]) {
    let f32_at = |i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    layout.unpack_codes(&b[layout.code_offset..], codes);
    match s {
        Scheme::AbsmaxInt8 => {
            absmax::dequantize_codes(f32_at(0), codes.iter().map(|c| *c as i8), out)
        }
        Scheme::ZeroPointUint8 | Scheme::ZeroPointInt4 => {
            zeropoint::dequantize_codes(f32_at(0), b[4], codes, out)
        }
        Scheme::Nf4 => nf4::dequantize_codes(f32_at(0), codes, out),
        Scheme::Fp8Tile => {
            let (scale, codec) = (f32_at(0), fp8::e4m3());
            for (o, c) in out.iter_mut().zip(codes.iter()) {
                *o = codec.decode(*c) * scale;
            }
        }
        _ => unreachable!("per-value and llama.cpp formats are decoded by dequantize"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::FormatId;
    use crate::quant::fp8_tiles::fp8_scale;
    use crate::quant::ggml::GgmlType;
    use crate::quant::kquants::KType;
    use crate::quant::mx::MxFormat;

    #[test]
    fn bf16_and_f16_dequantize_to_the_general_codecs_value_for_every_pattern() {
        for (scheme, id) in [(Scheme::Bf16, FormatId::Bf16), (Scheme::F16, FormatId::F16)] {
            let bytes: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
            let values = dequantize(scheme, &bytes, 1).unwrap();
            for (h, v) in values.iter().enumerate() {
                let exact = id.decode(h as u32) as f32;
                assert!(
                    v.to_bits() == exact.to_bits() || (v.is_nan() && exact.is_nan()),
                    "{scheme:?} {h:#06x}: {v:e} against {exact:e}"
                );
            }
        }
    }

    /// The FP8 scale comes from the largest finite |x|: NaN and ±inf are left out.
    #[test]
    fn the_fp8_scale_ignores_non_finite_values() {
        let x = [1.0, f32::NAN, -3.0, f32::INFINITY, f32::NEG_INFINITY, -0.0];
        assert_eq!(fp8_scale(Scheme::F8E4M3, &x), 3.0 / 448.0);
        assert_eq!(fp8_scale(Scheme::F8E5M2, &x), 3.0 / 57344.0);
        assert_eq!(fp8_scale(Scheme::F8E4M3, &[f32::NAN, 0.0]), 0.0);
    }

    #[test]
    fn every_scheme_round_trips_through_its_bytes() {
        let x: Vec<f32> = (0..512)
            .map(|i| ((i * 53 % 128) as f32 / 64.0 - 1.0) * 0.7)
            .collect();
        for s in Scheme::ALL {
            let block = s.block(None).unwrap();
            let bytes = quantize(s, &x, block).unwrap();
            let y = dequantize(s, &bytes, block).unwrap();
            assert_eq!(y.len(), x.len(), "{s}");
            let m = super::super::metrics::error_metrics(&x, &y);
            assert!(m.sqnr_db > 10.0, "{s}: {} dB", m.sqnr_db);
        }
    }

    #[test]
    fn names_parse_back_ignoring_case_and_the_separator() {
        for s in Scheme::ALL {
            assert_eq!(s.name().parse::<Scheme>(), Ok(s));
            assert_eq!(s.name().to_uppercase().replace('-', "_").parse(), Ok(s));
        }
        assert_eq!("Q4_K".parse(), Ok(Scheme::KQuant(KType::Q4K)));
        assert_eq!("mxfp8_e4m3".parse(), Ok(Scheme::Mx(MxFormat::Fp8E4M3)));
    }

    #[test]
    fn the_new_block_formats_write_their_modules_bytes() {
        let x: Vec<f32> = (0..512).map(|i| (i as f32 * 0.61).sin() * 0.1).collect();
        let mut want = vec![0u8; 2 * KType::Q5K.block_bytes()];
        KType::Q5K.quantize(&x, &mut want).unwrap();
        assert_eq!(quantize(Scheme::KQuant(KType::Q5K), &x, 256).unwrap(), want);
        let mut want = vec![0u8; 16 * iq4_nl::BLOCK_BYTES];
        iq4_nl::quantize(&x, &mut want).unwrap();
        assert_eq!(quantize(Scheme::Iq4Nl, &x, 32).unwrap(), want);
    }

    #[test]
    fn an_odd_zeropoint_int4_block_keeps_its_last_code() {
        let x = [0.5f32, -0.25, 1.0, 0.0, 0.75, -1.0];
        let bytes = quantize(Scheme::ZeroPointInt4, &x, 3).unwrap();
        assert_eq!(bytes.len(), 2 * (5 + 2));
        let y = dequantize(Scheme::ZeroPointInt4, &bytes, 3).unwrap();
        for (a, b) in x.iter().zip(&y) {
            assert!((a - b).abs() <= 2.0 / 15.0, "{a} vs {b}");
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(
            quantize(Scheme::AbsmaxInt8, &[0.0; 65], 64).unwrap_err(),
            QuantError::Ragged {
                values: 65,
                block: 64
            }
        );
        assert!(matches!(
            Scheme::Ggml(GgmlType::Q4_0).block(Some(64)),
            Err(QuantError::FixedBlock { block: 32, .. })
        ));
        assert!(matches!(
            dequantize(Scheme::Ggml(GgmlType::Q8_0), &[0; 35], 32),
            Err(QuantError::ByteLength { stride: 34, .. })
        ));
        assert!(matches!(
            dequantize(Scheme::F8E4M3, &[0; 3], 1),
            Err(QuantError::MissingHeader { header: 4, .. })
        ));
        assert!(matches!(
            dequantize(Scheme::Bf16, &[0; 3], 1),
            Err(QuantError::ByteLength { stride: 2, .. })
        ));
        assert_eq!(
            "q7_k".parse::<Scheme>().unwrap_err(),
            QuantError::UnknownScheme("q7_k".into())
        );
        assert!(matches!(
            Scheme::KQuant(KType::Q4K).block(Some(32)),
            Err(QuantError::FixedBlock { block: 256, .. })
        ));
        assert!(matches!(
            dequantize(Scheme::KQuant(KType::Q4K), &[0; 145], 256),
            Err(QuantError::ByteLength { stride: 144, .. })
        ));
        assert_eq!(
            Scheme::Nf4.block(Some(7)),
            Err(QuantError::OddBlock(Scheme::Nf4))
        );
    }
}
