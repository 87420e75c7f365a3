//! The public operations: quantize, dequantize and NF4 double quantization on a [`Gpu`], with the
//! same bytes as `bitbudget_math::quant::scheme`.

use crate::context::{Gpu, GpuError, Role};
use crate::dispatch::{
    assemble, chunk_units, f32_bytes, read, read_words, split, submit, table, words, CheckedOut,
    Overlap, Params, Pass,
};
use crate::layout::{layout, packs_nibbles, Layout};
use crate::tables::{kernel_consts, table_of, Table};
use crate::timing::{Stopwatch, Timings};
use bitbudget_math::quant::fp4_options::Fp4Options;
use bitbudget_math::quant::fp8_tiles::fp8_scale;
use bitbudget_math::quant::nf4;
use bitbudget_math::quant::scheme::Scheme;

/// Checks the block size and the length the way the CPU path does, plus what the CPU path does
/// not check (a zero block, an odd block for 4-bit codes), with a message instead of a panic.
pub(crate) fn check(scheme: Scheme, block: usize, n: usize) -> Result<Layout, GpuError> {
    if block == 0 || block > 1 << 24 {
        return Err(GpuError::Input(format!(
            "block {block} must be between 1 and 16777216"
        )));
    }
    if packs_nibbles(scheme) && !block.is_multiple_of(2) {
        return Err(GpuError::Input(format!(
            "{scheme} packs two codes per byte: the block must be even"
        )));
    }
    let l = layout(scheme, block);
    if !n.is_multiple_of(l.weights) {
        return Err(GpuError::Input(format!(
            "{n} weights is not a whole number of {}-weight blocks ({} left over)",
            l.weights,
            n % l.weights
        )));
    }
    Ok(l)
}

/// Quantizes `x` into `scheme`'s bytes, exactly the bytes of
/// `bitbudget_math::quant::codec::quantize(scheme, x, block)`: same rounding (ties, zero blocks,
/// subnormals, NaN and ±∞ included), same layout. `x.len()` must be a whole number of blocks;
/// GGML and MXFP4 use 32-weight blocks, FP8 and the casts ignore `block`; for `fp8-128x128`
/// `block` is the column count and `x` whole rows of it. The tensor is streamed
/// in chunks of whole blocks within the adapter's limits, double-buffered (chunk k + 1 is written
/// and computed while chunk k is read back; see `dispatch::Overlap`); FP8 reads it twice (its
/// per-tensor scale needs the whole tensor's absmax first).
pub async fn quantize(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
) -> Result<Vec<u8>, GpuError> {
    quantize_with(gpu, scheme, x, block, Extra::default()).await
}

/// [`quantize`] with the FP4 options (random Hadamard transform, stochastic rounding) of
/// NVFP4 and MXFP4: exactly the bytes of
/// `bitbudget_math::quant::fp4_options::quantize(scheme, x, opts, first)`, at the scheme's own
/// block; `first` is the tensor index of `x[0]` (0 for a whole tensor), so parts draw the whole
/// tensor's uniforms. Options on another scheme: [`GpuError::Input`] with the CPU's message;
/// otherwise errors as [`quantize`].
pub async fn quantize_with_options(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    opts: Fp4Options,
    first: u64,
) -> Result<Vec<u8>, GpuError> {
    let extra = Extra {
        scale: None,
        fp4: opts,
        first,
    };
    quantize_with(gpu, scheme, x, scheme.default_block(), extra).await
}

/// What a quantization takes besides the scheme, the weights and the block.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Extra {
    /// FP8's per-tensor scale, given (as `bitbudget_math::quant::analysis::PartQuantizer`
    /// computed it for the whole tensor): then FP8 writes no 4-byte header, the bytes of one
    /// part of a tensor. Ignored by other schemes; with `None`, FP8 measures `x` and writes the
    /// header, as [`quantize`] does.
    pub scale: Option<f32>,
    /// NVFP4's and MXFP4's options (refused for other schemes).
    pub fp4: Fp4Options,
    /// The tensor index of `x[0]` (stochastic rounding's counter).
    pub first: u64,
}

/// [`quantize`] with the [`Extra`] parameters.
pub(crate) async fn quantize_with(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    extra: Extra,
) -> Result<Vec<u8>, GpuError> {
    quantize_watched(gpu, scheme, x, block, extra, None).await
}

/// [`quantize_with`], with its phases timed apart on `watch` when one is given (see
/// `timing.rs`): then upload, kernels and readback are submitted and waited for one by one,
/// chunk after chunk, without the overlap of the untimed call (which would mix the phases).
pub(crate) async fn quantize_watched(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    extra: Extra,
    mut watch: Option<&mut Stopwatch<'_>>,
) -> Result<Vec<u8>, GpuError> {
    extra
        .fp4
        .check(scheme)
        .map_err(|e| GpuError::Input(e.to_string()))?;
    let scale = extra.scale;
    if scheme == Scheme::Fp8Block {
        // Bands of 128 rows, `block` columns (fp8_blocks.rs); its phases are not timed apart.
        return crate::fp8_blocks::quantize(gpu, x, block).await;
    }
    let l = check(scheme, block, x.len())?;
    let family = l.quantize;
    let consts = kernel_consts(scheme, extra.fp4);
    let table = table(gpu, table_of(scheme));
    // Largest buffer per block: the weights, the 16 bytes of block words, or the codes.
    let block_words = if l.measures { 16 } else { 0 };
    let unit_bytes = (4 * l.weights as u64)
        .max(block_words)
        .max(l.code_bytes as u64 + 4);
    let per_chunk = chunk_units(gpu, l.weights, unit_bytes, l.weights as u64, 1)? * l.weights;
    let mut buffers = CheckedOut::new(gpu);
    let mut out = Vec::with_capacity(l.prefix_bytes() + x.len() / l.weights * l.stride());
    let mut scalar = scale.map_or(0, f32::to_bits);
    if l.per_tensor_scale && scale.is_none() {
        let started = watch.as_ref().map(|w| w.now());
        let blocks = buffers.get(Role::Blocks, 16);
        gpu.queue.write_buffer(&blocks, 0, &[0; 16]);
        for part in x.chunks(per_chunk) {
            let input = buffers.get(Role::Input, 4 * part.len() as u64);
            let params_buffer = buffers.get(Role::Params(0), 48);
            let codes = buffers.get(Role::Output, 16);
            gpu.queue.write_buffer(&input, 0, &f32_bytes(part));
            let params = Params {
                count: part.len() as u32,
                n: part.len() as u32,
                ..Params::default()
            };
            submit(
                gpu,
                &[Pass {
                    family,
                    entry: "measure",
                    params,
                    params_buffer: &params_buffer,
                    bindings: &[&input, &table, &blocks, &codes],
                }],
                &[],
            );
        }
        let staging = buffers.get(Role::ReadBlocks, 16);
        let index = submit(gpu, &[], &[(&blocks, &staging, 4)]);
        let amax = words(&read(gpu, &[(&staging, 4)], index).await?[0])[0];
        let scale = fp8_scale(scheme, &[f32::from_bits(amax)]);
        out.extend_from_slice(&scale.to_le_bytes());
        scalar = scale.to_bits();
        if let (Some(w), Some(t0)) = (watch.as_mut(), started) {
            w.timings.compute_ms += w.now() - t0;
        }
    }
    let mut overlap = Overlap::new(watch.is_none());
    for (k, part) in x.chunks(per_chunk).enumerate() {
        let slot = overlap.slot(k);
        let units = part.len() / l.weights;
        let code_bytes = (units * l.code_bytes) as u64;
        let code_words = code_bytes.div_ceil(4) as u32;
        let input = buffers.get_in(slot, Role::Input, 4 * part.len() as u64);
        let block_bytes = block_words * units as u64;
        let blocks = buffers.get_in(slot, Role::Blocks, block_bytes);
        let codes = buffers.get_in(slot, Role::Output, code_bytes);
        let read_blocks = buffers.get_in(slot, Role::ReadBlocks, block_bytes);
        let read_codes = buffers.get_in(slot, Role::ReadOutput, code_bytes);
        let first = buffers.get_in(slot, Role::Params(0), 48);
        let second = buffers.get_in(slot, Role::Params(1), 48);
        let t0 = watch.as_ref().map_or(0.0, |w| w.now());
        gpu.queue.write_buffer(&input, 0, &f32_bytes(part));
        if let Some(w) = watch.as_mut() {
            w.uploaded(gpu, t0).await?;
        }
        let base = Params {
            n: part.len() as u32,
            block: l.weights as u32,
            variant: l.variant,
            scalar,
            first: extra.first + (k * per_chunk) as u64,
            consts,
            ..Params::default()
        };
        let bindings: &[&wgpu::Buffer] = &[&input, &table, &blocks, &codes];
        let mut passes = Vec::new();
        if l.measures {
            passes.push(Pass {
                family,
                entry: "measure",
                params: Params {
                    count: units as u32,
                    ..base
                },
                params_buffer: &first,
                bindings,
            });
        }
        passes.push(Pass {
            family,
            entry: "quantize",
            params: Params {
                count: code_words,
                ..base
            },
            params_buffer: &second,
            bindings,
        });
        let mut copies = vec![(&codes, &read_codes, code_bytes)];
        if l.measures {
            copies.push((&blocks, &read_blocks, block_bytes));
        }
        let (index, t1) = match watch.as_mut() {
            Some(w) => {
                w.compute(gpu, &passes).await?;
                (submit(gpu, &[], &copies), w.now())
            }
            None => (submit(gpu, &passes, &copies), 0.0),
        };
        let mut wanted = vec![(read_codes, code_bytes)];
        if l.measures {
            wanted.push((read_blocks, block_bytes));
        }
        let started = Readback {
            wanted,
            index,
            units,
            since: t1,
        };
        if let Some(done) = overlap.started(started) {
            done.finish(gpu, &l, &mut out, watch.as_deref_mut()).await?;
        }
    }
    if let Some(done) = overlap.last() {
        done.finish(gpu, &l, &mut out, watch).await?;
    }
    Ok(out)
}

/// One submitted chunk of [`quantize_watched`], waiting for its readback.
struct Readback {
    /// The mappable codes and (when the scheme measures blocks) block words, with their bytes.
    wanted: Vec<(wgpu::Buffer, u64)>,
    /// The submission that fills them.
    index: wgpu::SubmissionIndex,
    /// Blocks in the chunk.
    units: usize,
    /// When the readback began (timed calls).
    since: f64,
}

impl Readback {
    /// Reads the chunk back and appends its stored bytes to `out`, adding the time since
    /// `since` to the readback when timed.
    async fn finish(
        self,
        gpu: &Gpu,
        l: &Layout,
        out: &mut Vec<u8>,
        watch: Option<&mut Stopwatch<'_>>,
    ) -> Result<(), GpuError> {
        let wanted: Vec<(&wgpu::Buffer, u64)> = self.wanted.iter().map(|(b, n)| (b, *n)).collect();
        let data = read(gpu, &wanted, self.index).await?;
        if let Some(w) = watch {
            w.timings.readback_ms += w.now() - self.since;
        }
        let blocks = data.get(1).map(Vec::as_slice).unwrap_or(&[]);
        assemble(l, blocks, &data[0], self.units, out);
        Ok(())
    }
}

/// Reverses [`quantize`]: the weights of `scheme`'s bytes, exactly what
/// `bitbudget_math::quant::codec::dequantize` gives (every product and sum rounded to nearest
/// even as on the CPU; NaN results are NaN, with a payload that neither side specifies). The byte
/// count must be a whole number of blocks (FP8: the 4-byte scale first).
pub async fn dequantize(
    gpu: &Gpu,
    scheme: Scheme,
    bytes: &[u8],
    block: usize,
) -> Result<Vec<f32>, GpuError> {
    dequantize_with(gpu, scheme, bytes, block, Fp4Options::NONE).await
}

/// Reverses [`quantize_with_options`]: exactly the weights of
/// `bitbudget_math::quant::fp4_options::dequantize(scheme, bytes, opts)` (with RHT, the inverse
/// transform of the decoded values in f32, the CPU's operations in its order; NaN as in
/// [`dequantize`]). The RHT seed must be the one the bytes were written with; SR needs nothing.
/// Errors as [`quantize_with_options`] and [`dequantize`].
pub async fn dequantize_with_options(
    gpu: &Gpu,
    scheme: Scheme,
    bytes: &[u8],
    opts: Fp4Options,
) -> Result<Vec<f32>, GpuError> {
    dequantize_with(gpu, scheme, bytes, scheme.default_block(), opts).await
}

/// [`dequantize`] with NVFP4's and MXFP4's options (the inverse rotation).
pub(crate) async fn dequantize_with(
    gpu: &Gpu,
    scheme: Scheme,
    bytes: &[u8],
    block: usize,
    opts: Fp4Options,
) -> Result<Vec<f32>, GpuError> {
    opts.check(scheme)
        .map_err(|e| GpuError::Input(e.to_string()))?;
    if scheme == Scheme::Fp8Block {
        return crate::fp8_blocks::dequantize(gpu, bytes, block).await;
    }
    let l = check(scheme, block, 0)?;
    let (scalar, body) = if l.per_tensor_scale {
        if bytes.len() < 4 {
            return Err(GpuError::Input(format!(
                "{} bytes is too short for a {scheme} tensor (4-byte scale first)",
                bytes.len()
            )));
        }
        (
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            &bytes[4..],
        )
    } else {
        (0, bytes)
    };
    let stride = l.stride();
    if !body.len().is_multiple_of(stride) {
        return Err(GpuError::Input(format!(
            "{} bytes is not a whole number of {stride}-byte {scheme} blocks",
            body.len()
        )));
    }
    let table = table(gpu, table_of(scheme));
    let unit_bytes = (4 * l.weights as u64).max(8).max(stride as u64 + 4);
    let per_chunk = chunk_units(gpu, l.weights, unit_bytes, l.weights as u64, 1)?;
    let mut buffers = CheckedOut::new(gpu);
    let mut out = Vec::with_capacity(body.len() / stride * l.weights);
    let mut overlap = Overlap::new(true);
    for (k, part) in body.chunks(per_chunk * stride).enumerate() {
        let slot = overlap.slot(k);
        let n = part.len() / stride * l.weights;
        let (headers, codes) = split(&l, part);
        let headers_buffer = buffers.get_in(slot, Role::Input, headers.len() as u64);
        let codes_buffer = buffers.get_in(slot, Role::InputCodes, codes.len() as u64);
        let y = buffers.get_in(slot, Role::Output, 4 * n as u64);
        let read_y = buffers.get_in(slot, Role::ReadOutput, 4 * n as u64);
        let params_buffer = buffers.get_in(slot, Role::Params(0), 48);
        gpu.queue.write_buffer(&headers_buffer, 0, &headers);
        gpu.queue.write_buffer(&codes_buffer, 0, &codes);
        let params = Params {
            count: n as u32,
            n: n as u32,
            block: l.weights as u32,
            variant: l.variant,
            scalar,
            // `split` gives each block two header words.
            stride: 2,
            consts: kernel_consts(scheme, opts),
            ..Params::default()
        };
        let pass = Pass {
            family: l.dequantize,
            entry: "dequantize",
            params,
            params_buffer: &params_buffer,
            bindings: &[&headers_buffer, &codes_buffer, &table, &y],
        };
        let index = submit(gpu, &[pass], &[(&y, &read_y, 4 * n as u64)]);
        if let Some(done) = overlap.started((read_y, 4 * n as u64, index)) {
            out.extend(read_words(gpu, done).await?.into_iter().map(f32::from_bits));
        }
    }
    if let Some(done) = overlap.last() {
        out.extend(read_words(gpu, done).await?.into_iter().map(f32::from_bits));
    }
    Ok(out)
}

/// NF4 with QLoRA's double quantization, exactly the bytes of
/// `bitbudget_math::quant::codec::nf4_double_quant_bytes`: the NF4 kernels quantize against each
/// block's exact absmax, the host takes the mean of the absmax values (an f64 sum in order, as the
/// CPU does, via `nf4::absmax_mean`), and the `double_quantize` kernel replaces each stored absmax
/// by its 8-bit reconstruction (256 per scale).
pub async fn nf4_double_quant_bytes(
    gpu: &Gpu,
    x: &[f32],
    block: usize,
) -> Result<Vec<u8>, GpuError> {
    nf4_double_quant_bytes_with(gpu, x, block, None).await
}

/// [`nf4_double_quant_bytes`] around a given `mean` of the block absmax values (the whole
/// tensor's, for one part of it; `None`: this `x`'s own mean).
pub(crate) async fn nf4_double_quant_bytes_with(
    gpu: &Gpu,
    x: &[f32],
    block: usize,
    mean: Option<f32>,
) -> Result<Vec<u8>, GpuError> {
    let mut bytes = quantize(gpu, Scheme::Nf4, x, block).await?;
    let stride = layout(Scheme::Nf4, block).stride();
    // The NF4 header is the block's f32 absmax.
    let absmax: Vec<f32> = bytes
        .chunks_exact(stride)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let mean = mean.unwrap_or_else(|| nf4::absmax_mean(&absmax, 1));
    let group = nf4::DQ_BLOCK;
    let per_chunk = chunk_units(gpu, group, 4 * group as u64, 1, 1)? * group;
    let table = table(gpu, Table::Nf4);
    let mut buffers = CheckedOut::new(gpu);
    let mut reconstructed = Vec::with_capacity(absmax.len());
    let mut overlap = Overlap::new(true);
    for (k, part) in absmax.chunks(per_chunk).enumerate() {
        let slot = overlap.slot(k);
        let bytes = 4 * part.len() as u64;
        let input = buffers.get_in(slot, Role::Input, bytes);
        let out = buffers.get_in(slot, Role::Blocks, bytes);
        let codes = buffers.get_in(slot, Role::Output, 16);
        let read_out = buffers.get_in(slot, Role::ReadBlocks, bytes);
        let params_buffer = buffers.get_in(slot, Role::Params(0), 48);
        gpu.queue.write_buffer(&input, 0, &f32_bytes(part));
        let params = Params {
            count: part.len().div_ceil(group) as u32,
            n: part.len() as u32,
            scalar: mean.to_bits(),
            // The absmax values side by side.
            stride: 1,
            ..Params::default()
        };
        let index = submit(
            gpu,
            &[Pass {
                family: crate::shaders::Family::QuantizeNf4,
                entry: "double_quantize",
                params,
                params_buffer: &params_buffer,
                bindings: &[&input, &table, &out, &codes],
            }],
            &[(&out, &read_out, bytes)],
        );
        if let Some(done) = overlap.started((read_out, bytes, index)) {
            reconstructed.extend(read_words(gpu, done).await?);
        }
    }
    if let Some(done) = overlap.last() {
        reconstructed.extend(read_words(gpu, done).await?);
    }
    for (b, m) in bytes.chunks_exact_mut(stride).zip(reconstructed) {
        b[..4].copy_from_slice(&m.to_le_bytes());
    }
    Ok(bytes)
}

/// [`crate::quantize`] with its phases timed apart on `now` (milliseconds; natively e.g. an
/// `Instant`'s elapsed time, in the browser `performance.now()`): the same bytes, and the
/// [`Timings`]. Slower than [`crate::quantize`], since it waits for the device between phases
/// and streams its chunks one after the other (no overlap of one chunk's readback with the
/// next chunk's upload and compute).
pub async fn quantize_timed(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    now: &dyn Fn() -> f64,
) -> Result<(Vec<u8>, Timings), GpuError> {
    let mut watch = Stopwatch::new(gpu, now);
    let bytes = quantize_watched(gpu, scheme, x, block, Extra::default(), Some(&mut watch)).await?;
    Ok((bytes, watch.timings))
}
