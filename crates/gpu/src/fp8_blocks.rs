//! `fp8-128x128` on the GPU: the tensor streamed in chunks of whole bands of 128 rows, the
//! `measure` pass once per 128×128 block (its scale), `quantize` once per code word, and the
//! host laying each band's scales before its codes (the layout of `bitbudget_math::quant::scheme`);
//! `dequantize` once per weight with every block's scale. The bytes and values are exactly
//! `bitbudget_math::quant::codec`'s.

use crate::context::{Gpu, GpuError, Role};
use crate::dispatch::{
    chunk_units, f32_bytes, read, read_words, submit, table, CheckedOut, Params, Pass,
};
use crate::layout::layout;
use crate::tables::{fp8_consts, table_of};
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::scheme::{Scheme, FP8_BLOCK};

const SCHEME: Scheme = Scheme::Fp8Block;

/// Checks the column count as the CPU does (1..=2^24); returns the scale bytes of a band.
fn check_columns(cols: usize) -> Result<usize, GpuError> {
    SCHEME
        .block(Some(cols))
        .map_err(|e| GpuError::Input(e.to_string()))?;
    Ok(4 * cols.div_ceil(FP8_BLOCK))
}

/// Bands of 128 rows per chunk within the adapter's limits.
fn bands_per_chunk(gpu: &Gpu, cols: usize) -> Result<usize, GpuError> {
    let band = FP8_BLOCK * cols;
    chunk_units(gpu, band, 4 * band as u64 + 16, band as u64, 1)
}

/// Quantizes `x` (row-major, `cols` per row) into `fp8-128x128`'s bytes, exactly
/// `codec::quantize(Scheme::Fp8Block, x, cols)`. Columns outside 1..=2^24 or values that are not
/// whole rows are a [`GpuError::Input`] with the CPU's message.
pub(crate) async fn quantize(gpu: &Gpu, x: &[f32], cols: usize) -> Result<Vec<u8>, GpuError> {
    let scale_bytes = check_columns(cols)?;
    if !x.len().is_multiple_of(cols) {
        let e = QuantError::Rows {
            values: x.len(),
            cols,
        };
        return Err(GpuError::Input(e.to_string()));
    }
    let l = layout(SCHEME, cols);
    let band = FP8_BLOCK * cols;
    let across = cols.div_ceil(FP8_BLOCK);
    let mut buffers = CheckedOut::new(gpu);
    let table = table(gpu, table_of(SCHEME));
    let mut out = Vec::with_capacity(x.len() + x.len().div_ceil(band) * scale_bytes);
    for part in x.chunks(bands_per_chunk(gpu, cols)? * band) {
        let n = part.len();
        let blocks = n.div_ceil(band) * across;
        let code_bytes = n.next_multiple_of(4) as u64;
        let block_bytes = 16 * blocks as u64;
        let input = buffers.get(Role::Input, 4 * n as u64);
        let block_words = buffers.get(Role::Blocks, block_bytes);
        let codes = buffers.get(Role::Output, code_bytes);
        let read_blocks = buffers.get(Role::ReadBlocks, block_bytes);
        let read_codes = buffers.get(Role::ReadOutput, code_bytes);
        let first = buffers.get(Role::Params(0), 48);
        let second = buffers.get(Role::Params(1), 48);
        gpu.queue.write_buffer(&input, 0, &f32_bytes(part));
        let base = Params {
            n: n as u32,
            block: cols as u32,
            consts: fp8_consts(SCHEME),
            ..Params::default()
        };
        let bindings: &[&wgpu::Buffer] = &[&input, &table, &block_words, &codes];
        let passes = [
            Pass {
                family: l.quantize,
                entry: "measure",
                params: Params {
                    count: blocks as u32,
                    ..base
                },
                params_buffer: &first,
                bindings,
            },
            Pass {
                family: l.quantize,
                entry: "quantize",
                params: Params {
                    count: (code_bytes / 4) as u32,
                    ..base
                },
                params_buffer: &second,
                bindings,
            },
        ];
        let copies = [
            (&codes, &read_codes, code_bytes),
            (&block_words, &read_blocks, block_bytes),
        ];
        let index = submit(gpu, &passes, &copies);
        let data = read(
            gpu,
            &[(&read_codes, code_bytes), (&read_blocks, block_bytes)],
            index,
        )
        .await?;
        let (codes, scales) = (&data[0][..n], &data[1]);
        for (b, rows) in codes.chunks(band).enumerate() {
            for k in b * across..(b + 1) * across {
                out.extend_from_slice(&scales[16 * k..16 * k + 4]);
            }
            out.extend_from_slice(rows);
        }
    }
    Ok(out)
}

/// Reverses [`quantize`]: exactly `codec::dequantize(Scheme::Fp8Block, bytes, cols)`. Bytes
/// that are not whole bands and a shorter last band are a [`GpuError::Input`].
pub(crate) async fn dequantize(gpu: &Gpu, bytes: &[u8], cols: usize) -> Result<Vec<f32>, GpuError> {
    let scale_bytes = check_columns(cols)?;
    let stored_band = scale_bytes + FP8_BLOCK * cols;
    let tail = bytes.len() % stored_band;
    if tail != 0 && (tail <= scale_bytes || !(tail - scale_bytes).is_multiple_of(cols)) {
        let e = QuantError::ByteLength {
            scheme: SCHEME,
            bytes: bytes.len(),
            stride: stored_band,
        };
        return Err(GpuError::Input(e.to_string()));
    }
    let l = layout(SCHEME, cols);
    let table = table(gpu, table_of(SCHEME));
    let mut buffers = CheckedOut::new(gpu);
    let mut out = Vec::with_capacity(bytes.len());
    for part in bytes.chunks(bands_per_chunk(gpu, cols)? * stored_band) {
        let (mut scales, mut codes) = (Vec::new(), Vec::new());
        for stored in part.chunks(stored_band) {
            scales.extend_from_slice(&stored[..scale_bytes]);
            codes.extend_from_slice(&stored[scale_bytes..]);
        }
        let n = codes.len();
        codes.resize(n.next_multiple_of(4).max(4), 0);
        let headers = buffers.get(Role::Input, scales.len() as u64);
        let codes_buffer = buffers.get(Role::InputCodes, codes.len() as u64);
        let y = buffers.get(Role::Output, 4 * n.max(1) as u64);
        let read_y = buffers.get(Role::ReadOutput, 4 * n.max(1) as u64);
        let params_buffer = buffers.get(Role::Params(0), 48);
        gpu.queue.write_buffer(&headers, 0, &scales);
        gpu.queue.write_buffer(&codes_buffer, 0, &codes);
        let pass = Pass {
            family: l.dequantize,
            entry: "dequantize",
            params: Params {
                count: n as u32,
                n: n as u32,
                block: cols as u32,
                stride: 1,
                ..Params::default()
            },
            params_buffer: &params_buffer,
            bindings: &[&headers, &codes_buffer, &table, &y],
        };
        let index = submit(gpu, &[pass], &[(&y, &read_y, 4 * n as u64)]);
        let values = read_words(gpu, (read_y, 4 * n as u64, index)).await?;
        out.extend(values.into_iter().map(f32::from_bits));
    }
    Ok(out)
}
