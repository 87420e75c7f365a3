//! `quantize` and `dequantize` streamed: chunks of whole blocks through the math crate's
//! quantizers on every core, in bounded memory, writing the same bytes as the one-shot functions.
//!
//! Schemes with a per-tensor parameter (FP8's scale, NF4 double quantization's mean block absmax)
//! take two passes over a file: the first finds the parameter, the second writes. From stdin,
//! which cannot be read twice, they quantize in one shot (the whole input in memory).

use crate::stream::{over_f32_runs, pipe, Sink, Source, Units};
use bitbudget_math::quant::checks::whole_blocks;
use bitbudget_math::quant::codec::{dequantize, nf4_double_quant_bytes_with_mean, quantize};
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::fp8_tiles::{fp8_encode, fp8_scale};
use bitbudget_math::quant::kernels::absmax;
use bitbudget_math::quant::nf4::DQ_BLOCK;
use bitbudget_math::quant::scheme::Scheme;

/// Whether `quantize` of `scheme` needs a first pass over the whole tensor.
pub fn needs_whole_tensor(scheme: Scheme, double_quant: bool) -> bool {
    matches!(scheme, Scheme::F8E4M3 | Scheme::F8E5M2) || double_quant
}

/// The one-shot checks of a whole input of `bytes` bytes, with their messages: a whole number of
/// f32 values, then of blocks.
pub fn check_f32_input(path: &str, bytes: u64, block: usize) -> Result<(), String> {
    if bytes % 4 != 0 {
        return Err(format!(
            "{path}: {bytes} bytes is not a whole number of f32 values ({} left over)",
            bytes % 4
        ));
    }
    whole_blocks((bytes / 4) as usize, block).map_err(|e| format!("{path}: {e}"))
}

/// The per-tensor parameter of a two-pass scheme, from a first streamed pass over the file.
enum TensorParameter {
    Fp8Scale(f32),
    Nf4Mean(f32),
}

/// The first pass: FP8's scale (the largest of the chunks' scales, as division by the format's
/// maximum keeps order) or NF4's mean block absmax (summed in f64 in tensor order, as
/// `nf4::absmax_mean` does).
fn first_pass(path: &str, scheme: Scheme, block: usize) -> Result<TensorParameter, String> {
    let mut src = Source::open(path)?;
    let chunk = crate::stream::chunk_bytes(block * 4);
    let mut values = Vec::new();
    let (mut scale, mut sum, mut blocks) = (0f32, 0f64, 0usize);
    loop {
        let bytes = src.read_up_to(chunk)?;
        if bytes.is_empty() {
            break;
        }
        crate::stream::f32s_from_le(&bytes, &mut values);
        if matches!(scheme, Scheme::F8E4M3 | Scheme::F8E5M2) {
            scale = scale.max(fp8_scale(scheme, &values));
        } else {
            for b in values.chunks(block) {
                sum += absmax(b) as f64;
                blocks += 1;
            }
        }
    }
    Ok(match scheme {
        Scheme::F8E4M3 | Scheme::F8E5M2 => TensorParameter::Fp8Scale(scale),
        _ => TensorParameter::Nf4Mean(sum as f32 / blocks.max(1) as f32),
    })
}

/// Streams `src` (f32) into `sink` quantized with `scheme` at `block`; the caller has checked
/// `block`. A regular file is checked for whole blocks before anything is written.
pub fn quantize_streamed(
    src: &mut Source,
    sink: &mut Sink,
    scheme: Scheme,
    block: usize,
    double_quant: bool,
) -> Result<(), String> {
    let path = src.path().to_string();
    if let Some(len) = src.len() {
        check_f32_input(&path, len, block)?;
    }
    let layout = scheme.layout(block);
    let mut units = Units {
        unit_in: block * 4,
        unit_out: layout.bytes_for(block) - layout.header_bytes,
        group: 1,
    };
    let tensor = match needs_whole_tensor(scheme, double_quant) {
        true => Some(first_pass(&path, scheme, block)?),
        false => None,
    };
    let (total, tail) = match tensor {
        None => pipe(src, sink, &units, |input, out| {
            over_f32_runs(input, out, block, units.unit_out, |x, o| {
                let bytes = quantize(scheme, x, block).map_err(|e| e.to_string())?;
                o.copy_from_slice(&bytes);
                Ok(())
            })
        }),
        Some(TensorParameter::Fp8Scale(scale)) => {
            sink.write(&scale.to_le_bytes())?;
            pipe(src, sink, &units, |input, out| {
                let mut buf = Vec::new();
                over_f32_runs(input, out, 1, 1, |x, o| {
                    buf.clear();
                    fp8_encode(scheme, x, scale, &mut buf);
                    o.copy_from_slice(&buf);
                    Ok(())
                })
            })
        }
        Some(TensorParameter::Nf4Mean(mean)) => {
            units.group = DQ_BLOCK;
            pipe(src, sink, &units, |input, out| {
                let bytes = over_groups(input, block, mean)?;
                out.copy_from_slice(&bytes);
                Ok(())
            })
        }
    }?;
    if tail > 0 {
        check_f32_input(&path, total, block)?;
    }
    Ok(())
}

/// NF4 double quantization of whole groups of 256 blocks (the last group may be short).
fn over_groups(input: &[u8], block: usize, mean: f32) -> Result<Vec<u8>, String> {
    let mut values = Vec::new();
    crate::stream::f32s_from_le(input, &mut values);
    nf4_double_quant_bytes_with_mean(&values, block, mean).map_err(|e| e.to_string())
}

/// Streams quantized bytes of `scheme` at `block` from `src` into `sink` as f32. A regular file
/// is checked for its header and whole blocks before anything is written.
pub fn dequantize_streamed(
    src: &mut Source,
    sink: &mut Sink,
    scheme: Scheme,
    block: usize,
) -> Result<(), String> {
    let path = src.path().to_string();
    let layout = scheme.layout(block);
    let length_error = |bytes: u64| -> String {
        let bytes = bytes as usize;
        let e = if bytes < layout.header_bytes {
            QuantError::MissingHeader {
                scheme,
                bytes,
                header: layout.header_bytes,
            }
        } else {
            QuantError::ByteLength {
                scheme,
                bytes,
                stride: layout.block_bytes,
            }
        };
        format!("{path}: {e}")
    };
    let fits = |bytes: u64| {
        bytes >= layout.header_bytes as u64
            && (bytes - layout.header_bytes as u64) % layout.block_bytes as u64 == 0
    };
    if let Some(len) = src.len().filter(|len| !fits(*len)) {
        return Err(length_error(len));
    }
    let header = src.read_up_to(layout.header_bytes)?;
    if header.len() < layout.header_bytes {
        return Err(length_error(header.len() as u64));
    }
    let units = Units {
        unit_in: layout.block_bytes,
        unit_out: layout.values * 4,
        group: 1,
    };
    let blocks_per_run = ((16 << 10) / layout.values).max(1);
    let (total, tail) = pipe(src, sink, &units, |input, out| {
        let mut with_header = header.clone();
        for (i, o) in input
            .chunks(blocks_per_run * units.unit_in)
            .zip(out.chunks_mut(blocks_per_run * units.unit_out))
        {
            with_header.truncate(header.len());
            with_header.extend_from_slice(i);
            let y = dequantize(scheme, &with_header, block).map_err(|e| e.to_string())?;
            for (o, v) in o.chunks_exact_mut(4).zip(y) {
                o.copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(())
    })?;
    if tail > 0 {
        return Err(length_error(total + header.len() as u64));
    }
    Ok(())
}
