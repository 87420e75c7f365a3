//! The Quantize lab's measuring pass on the GPU: [`measure_part`] quantizes one part, dequantizes
//! it on the device and measures the pairs there (`shaders/measure_lab.wgsl`), so only the bytes
//! and a [`PartSummary`] come back, never the dequantized values.
//!
//! # Streaming
//! Each chunk of a part is one submission: the quantize kernels (and NF4's `double_quantize`)
//! write the block words and codes into device buffers, the dequantize kernel reads them there
//! (the block words as its headers, `params.stride` = 4), and the measuring kernels read the
//! chunk's weights and dequantized values; the codes, block words, counters and tile words are
//! then copied out once. Chunks are double-buffered (`dispatch::Overlap`): chunk k + 1 is
//! written and submitted before chunk k is read back. The one thing a chunk needs from those
//! before it, the largest error so far (the error histogram's range), stays on the device too:
//! `scan` carries it in `partials[0]`. NF4 with double quantization streams whole groups of 256
//! blocks (their scales are reconstructed together).
//!
//! # Tolerance
//! Counts (counted, skipped, lost), the value histogram, the error histogram and the error map's
//! block boundaries are exact: the kernels bin with integer arithmetic on bit patterns that
//! reproduces the CPU's f64 formulas (value bins through order keys of the bin starts, found on
//! the host with the CPU's own [`Bins::index_or_past_end`]; error bins through the CPU's f32
//! error, exactly rounded, and the histogram's range as it was when each value arrived).
//!
//! Sums are not: WGSL has no f64 and no float atomics. Each tile of at most 32 values sums in
//! f32, in order, over values scaled by the power of two that brings the tile's largest |e|,
//! |x| or |x̂| into [1, 2) (computed on the bits, so subnormal inputs scale exactly and no square
//! can overflow); the host unscales each tile's four sums and adds them in f64. A term is formed
//! with at most two roundings (the f32 error against the CPU's f64 difference, then the square)
//! and passes through at most 31 f32 additions, so each non-negative sum (Σe², Σx², Σx̂², and the
//! error map's Σe² per block) is within γ₃₃ = 33u/(1 − 33u) < 2.0·10⁻⁶ of the exact one
//! (u = 2⁻²⁴; Higham, recursive summation of non-negative terms), and Σx·x̂ within that times
//! Σ|x·x̂| ≤ √(Σx²·Σx̂²). A device may flush a scaled term below 2⁻¹²⁶ to zero: with the tile's
//! largest term in [1, 4), that is under 2⁻¹²¹ of the tile's sum. The largest error is the f32
//! |x̂ − x|, one rounding from the CPU's f64 difference. [`crate::SUM_TOLERANCE`] and
//! [`crate::MAX_ERROR_TOLERANCE`] state the bounds, rounded up; [`crate::metrics_within_tolerance`] checks the
//! metrics derived from them (tolerance.rs). An error past f32's range (x and x̂ of opposite signs near f32's
//! largest values) makes the GPU's sums infinite where the CPU's f64 stays finite.

use crate::context::{words_to_bytes, Gpu, GpuError, Role};
use crate::dispatch::{
    assemble, chunk_units, f32_bytes, read, submit, table, words, CheckedOut, Overlap, Params, Pass,
};
use crate::layout::Layout;
use crate::part::part_bytes;
use crate::quantize::check;
use crate::shaders::Family;
use crate::tables::{kernel_consts, table_of};
use bitbudget_math::quant::analysis::PartQuantizer;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::fp4_options::Fp4Options;
use bitbudget_math::quant::histogram::{GrowingHistogram, FINE};
use bitbudget_math::quant::lab::{
    summarize, HeatRun, MeasureSetup, Overview, PartSummary, SchemeDetail, SchemeRun,
};
use bitbudget_math::quant::nf4;
use bitbudget_math::quant::scheme::Scheme;

mod geometry;

use geometry::{ceil_log2, tile_lengths, value_table};

/// Tiles per group of the running maximum (the kernel's workgroup).
const GROUP: usize = 64;
/// Where the value bins start in the stats buffer (`VALUE_BASE`).
const VALUE_BASE: usize = 16;
/// Where the error bins start (`ERROR_BASE`); at most this minus `VALUE_BASE` value bins.
const ERROR_BASE: usize = 272;
/// Words per tile in the tiles buffer (`WORDS`).
const TILE_WORDS: usize = 8;
/// Words of the stats buffer.
const STATS_WORDS: usize = ERROR_BASE + FINE;

/// Quantizes `padded` (one part of a tensor, zero-padded to whole blocks, whose first
/// `original.len()` values are real) with `quantizer`'s scheme and whole-tensor parameters, and
/// measures the part on the device under `setup` (from
/// `bitbudget_math::quant::lab::SchemeRun::measure_setup`): the part's bytes, exactly the CPU's,
/// and its [`PartSummary`] for `SchemeRun::measure_summary`. Counts and histograms are exact; the
/// sums are within [`crate::SUM_TOLERANCE`]. The bytes never leave the device between quantizing
/// and measuring (see the module's "Streaming"). Errors as [`crate::quantize`] (and
/// [`GpuError::TooLarge`] when 256 NF4 blocks with double quantization exceed the adapter's
/// largest storage binding); a setup with more than 255 value bins is refused.
pub async fn measure_part(
    gpu: &Gpu,
    quantizer: &PartQuantizer,
    setup: &MeasureSetup,
    original: &[f32],
    padded: &[f32],
) -> Result<(Vec<u8>, PartSummary), GpuError> {
    if setup.bin_count == 0 || setup.bin_count >= ERROR_BASE - VALUE_BASE {
        return Err(GpuError::Input(format!(
            "{} value bins: the GPU's measuring pass takes 1 to {}",
            setup.bin_count,
            ERROR_BASE - VALUE_BASE - 1
        )));
    }
    if original.len() > padded.len() || setup.heat_block == 0 {
        return Err(GpuError::Input(format!(
            "{} values in a padded part of {} (heat block {})",
            original.len(),
            padded.len(),
            setup.heat_block
        )));
    }
    let mut summary = PartSummary {
        dequantized: vec![0; setup.bin_count + 1],
        errors: GrowingHistogram::starting_at(setup.error_exponent),
        ..PartSummary::default()
    };
    if original.is_empty() {
        return Ok((part_bytes(gpu, quantizer, padded).await?, summary));
    }
    let (scheme, block) = (quantizer.scheme(), quantizer.block());
    if scheme == Scheme::Fp8Block {
        // Its 2D blocks are quantized and dequantized on the device, then measured here: the
        // summary is the CPU reference itself, so its sums are exact.
        let bytes = crate::fp8_blocks::quantize(gpu, padded, block).await?;
        let values = crate::fp8_blocks::dequantize(gpu, &bytes, block).await?;
        let approx = &values[..original.len()];
        return Ok((bytes, summarize(setup, original, approx)));
    }
    let l = check(scheme, block, padded.len())?;
    let family = l.quantize;
    let scalar = match quantizer.fp8_scale() {
        Some(scale) => scale.to_bits(),
        None if l.per_tensor_scale => {
            return Err(GpuError::Input(format!(
                "{scheme} measures a part with the whole tensor's scale, and none was given"
            )))
        }
        None => 0,
    };
    let mean = quantizer.nf4_mean();
    // Double quantization reconstructs each group of 256 block scales together.
    let together = if mean.is_some() { nf4::DQ_BLOCK } else { 1 };
    // Per block: the weights and their dequantized values, 16 bytes of block words (twice with
    // double quantization), the codes, and at most as many tile words as values.
    let unit_bytes = (8 * l.weights as u64).max(32).max(l.code_bytes as u64 + 4);
    let per_chunk =
        chunk_units(gpu, l.weights, unit_bytes, l.weights as u64, together)? * l.weights;
    let table = table(gpu, table_of(scheme));
    let mut buffers = CheckedOut::new(gpu);
    let table_words = value_table(setup);
    let thresholds = buffers.get(Role::Thresholds, 4 * table_words.len() as u64);
    gpu.queue
        .write_buffer(&thresholds, 0, &words_to_bytes(&table_words));
    // Shared by the chunks: [0] carries the largest |e| so far from chunk to chunk.
    let most_groups = per_chunk.min(original.len()).div_ceil(GROUP);
    let partials = buffers.get(Role::Partials, 4 * (1 + most_groups) as u64);
    gpu.queue.write_buffer(&partials, 0, &[0; 4]);
    // The measured values are the first of the quantized ones (as `SchemeRun::padded_part`
    // gives them): then the quantize kernels' input is the measuring kernels' `x` too.
    let same_values = original
        .iter()
        .zip(padded)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    // A kernel the device refuses would leave the results at zero: say so instead.
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut bytes = Vec::with_capacity(padded.len() / l.weights * l.stride());
    let mut overlap = Overlap::new(true);
    let mut offset = setup.heat_offset % setup.heat_block;
    for (k, at) in (0..padded.len()).step_by(per_chunk).enumerate() {
        let slot = overlap.slot(k);
        let end = (at + per_chunk).min(padded.len());
        let chunk = Chunk {
            values: end.min(original.len()).saturating_sub(at),
            heat_block: setup.heat_block,
            offset,
            units: (end - at) / l.weights,
        };
        let weights = 4 * (end - at) as u64;
        let block_bytes = 16 * chunk.units as u64;
        let code_bytes = (chunk.units * l.code_bytes) as u64;
        let input = buffers.get_in(slot, Role::Input, weights);
        let blocks = buffers.get_in(slot, Role::Blocks, block_bytes);
        let codes = buffers.get_in(slot, Role::Output, code_bytes);
        let headers = match mean {
            Some(_) => buffers.get_in(slot, Role::Reconstructed, block_bytes),
            None => blocks.clone(),
        };
        let y = buffers.get_in(slot, Role::Dequantized, weights);
        let x = if same_values {
            input.clone()
        } else {
            let x = buffers.get_in(slot, Role::Original, 4 * chunk.values as u64);
            let values = &original[at..at + chunk.values];
            gpu.queue.write_buffer(&x, 0, &f32_bytes(values));
            x
        };
        let tile_bytes = 4 * (TILE_WORDS * chunk.tiles()) as u64;
        let stats = buffers.get_in(slot, Role::Stats, 4 * STATS_WORDS as u64);
        let tiles = buffers.get_in(slot, Role::Tiles, tile_bytes);
        let params: Vec<wgpu::Buffer> = (0..8)
            .map(|p| buffers.get_in(slot, Role::Params(p), 48))
            .collect();
        let reads = Reads {
            codes: buffers.get_in(slot, Role::ReadOutput, code_bytes),
            blocks: buffers.get_in(slot, Role::ReadBlocks, block_bytes),
            stats: buffers.get_in(slot, Role::ReadStats, 4 * STATS_WORDS as u64),
            tiles: buffers.get_in(slot, Role::ReadTiles, tile_bytes),
        };
        gpu.queue
            .write_buffer(&input, 0, &f32_bytes(&padded[at..end]));
        gpu.queue.write_buffer(&stats, 0, &vec![0; 4 * STATS_WORDS]);
        let base = Params {
            n: (end - at) as u32,
            block: l.weights as u32,
            variant: l.variant,
            scalar,
            first: quantizer.first() + at as u64,
            consts: kernel_consts(scheme, quantizer.options()),
            ..Params::default()
        };
        let quantizing: &[&wgpu::Buffer] = &[&input, &table, &blocks, &codes];
        let reconstructing: &[&wgpu::Buffer] = &[&blocks, &table, &headers, &codes];
        let dequantizing: &[&wgpu::Buffer] = &[&headers, &codes, &table, &y];
        let measuring: &[&wgpu::Buffer] = &[&x, &y, &thresholds, &stats, &tiles, &partials];
        let mut steps = Vec::new();
        if l.measures {
            steps.push((family, "measure", chunk.units, base, quantizing));
        }
        let code_words = code_bytes.div_ceil(4) as usize;
        steps.push((family, "quantize", code_words, base, quantizing));
        if let Some(mean) = mean {
            let dq = Params {
                n: chunk.units as u32,
                scalar: mean.to_bits(),
                // Each absmax is the first of its block's four words.
                stride: 4,
                ..Params::default()
            };
            let groups = chunk.units.div_ceil(nf4::DQ_BLOCK);
            steps.push((family, "double_quantize", groups, dq, reconstructing));
        }
        // The quantize kernels' block words are the headers, four words a block.
        let deq = Params { stride: 4, ..base };
        steps.push((l.dequantize, "dequantize", end - at, deq, dequantizing));
        if chunk.values > 0 {
            for (entry, count, p) in chunk.measure_steps(setup.error_exponent) {
                steps.push((Family::MeasureLab, entry, count, p, measuring));
            }
        }
        let passes: Vec<Pass<'_>> = steps
            .into_iter()
            .zip(&params)
            .map(
                |((family, entry, count, p, bindings), params_buffer)| Pass {
                    family,
                    entry,
                    params: Params {
                        count: count as u32,
                        ..p
                    },
                    params_buffer,
                    bindings,
                },
            )
            .collect();
        let mut copies = vec![(&codes, &reads.codes, code_bytes)];
        if l.header_bytes > 0 {
            copies.push((&headers, &reads.blocks, block_bytes));
        }
        if chunk.values > 0 {
            copies.push((&stats, &reads.stats, 4 * STATS_WORDS as u64));
            copies.push((&tiles, &reads.tiles, tile_bytes));
        }
        let index = submit(gpu, &passes, &copies);
        offset = (offset + chunk.values) % setup.heat_block;
        if let Some((chunk, reads, index)) = overlap.started((chunk, reads, index)) {
            chunk
                .finish(gpu, &l, (reads, index), &mut bytes, &mut summary)
                .await?;
        }
    }
    if let Some((chunk, reads, index)) = overlap.last() {
        chunk
            .finish(gpu, &l, (reads, index), &mut bytes, &mut summary)
            .await?;
    }
    if let Some(e) = scope.pop().await {
        let why = format!("the device refused the measuring pass: {e}");
        return Err(GpuError::Readback(why));
    }
    Ok((bytes, summary))
}

/// The lab's analysis of one scheme (`bitbudget_math::quant::lab::analyse`) with every part of
/// `part_len` values quantized, dequantized and measured on the GPU, with NVFP4's and MXFP4's
/// `opts` (other schemes ignore them): the same row and charts, counts and histograms exact,
/// sums within [`crate::SUM_TOLERANCE`]. Errors as [`measure_part`]; a merge that does not fit
/// is a [`GpuError::Input`].
pub async fn analyse(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    double_quant: bool,
    part_len: usize,
    opts: Fp4Options,
) -> Result<(SchemeResult, SchemeDetail), GpuError> {
    let overview = Overview::new(x);
    let mut run =
        SchemeRun::new(scheme, x, block, double_quant, &overview, part_len).with_options(opts);
    while run.next_part().is_some() {
        let setup = run.measure_setup();
        let padded = run.padded_part();
        let part = run.part_values();
        let (bytes, summary) = measure_part(gpu, run.quantizer(), &setup, part, &padded).await?;
        run.measure_summary(&bytes, &summary)
            .map_err(|e| GpuError::Input(e.to_string()))?;
    }
    Ok(run.finish())
}

/// One chunk of a part on the device.
struct Chunk {
    /// Real values (the measured ones).
    values: usize,
    /// Values per error-map block.
    heat_block: usize,
    /// Where the first value sits in its error-map block.
    offset: usize,
    /// Blocks quantized.
    units: usize,
}

/// The mappable buffers one chunk is read back through.
struct Reads {
    /// The packed codes.
    codes: wgpu::Buffer,
    /// The block words (four a block; the header in the first bytes).
    blocks: wgpu::Buffer,
    /// Counters and histograms.
    stats: wgpu::Buffer,
    /// Per-tile results.
    tiles: wgpu::Buffer,
}

/// What one chunk's measuring pass reads back: the stats and per-tile words.
struct Measured {
    stats: Vec<u32>,
    tiles: Vec<u32>,
}

impl Chunk {
    /// Tiles of the measured values.
    fn tiles(&self) -> usize {
        if self.values == 0 {
            return 0;
        }
        tile_lengths(self.values, self.heat_block, self.offset).len()
    }

    /// The four measuring dispatches (entry point, invocations, parameters), for a part whose
    /// error histogram had range exponent `start` before its first chunk (the kernels carry the
    /// largest error of the chunks before in `partials[0]`).
    fn measure_steps(&self, start: Option<i32>) -> [(&'static str, usize, Params); 4] {
        let tiles = self.tiles();
        let groups = tiles.div_ceil(GROUP);
        let (had, before) = match start {
            Some(e) => (1, e as u32),
            None => (0, 0),
        };
        let base = Params {
            n: self.values as u32,
            block: self.heat_block as u32,
            variant: self.offset as u32,
            consts: [had, before, tiles as u32, 1],
            ..Params::default()
        };
        [
            ("tile_max", tiles, base),
            ("group_max", groups, base),
            ("scan", groups, base),
            ("measure_tiles", tiles, base),
        ]
    }

    /// Waits for submission `index`, reads the chunk's bytes and measurements back through
    /// `reads`, appends the stored bytes to `bytes` and adds the measurements to `summary`
    /// (whose error histogram then has the range the chunk's kernels started from).
    async fn finish(
        &self,
        gpu: &Gpu,
        l: &Layout,
        (reads, index): (Reads, wgpu::SubmissionIndex),
        bytes: &mut Vec<u8>,
        summary: &mut PartSummary,
    ) -> Result<(), GpuError> {
        let code_bytes = (self.units * l.code_bytes) as u64;
        let mut wanted = vec![(&reads.codes, code_bytes)];
        if l.header_bytes > 0 {
            wanted.push((&reads.blocks, 16 * self.units as u64));
        }
        let measured = self.values > 0;
        if measured {
            wanted.push((&reads.stats, 4 * STATS_WORDS as u64));
            wanted.push((&reads.tiles, 4 * (TILE_WORDS * self.tiles()) as u64));
        }
        let mut data = read(gpu, &wanted, index).await?.into_iter();
        let codes = data.next().unwrap_or_default();
        let blocks = if l.header_bytes > 0 {
            data.next().unwrap_or_default()
        } else {
            Vec::new()
        };
        assemble(l, &blocks, &codes, self.units, bytes);
        if measured {
            let mut next = || words(&data.next().unwrap_or_default());
            let m = Measured {
                stats: next(),
                tiles: next(),
            };
            self.add_to(&m, summary);
        }
        Ok(())
    }

    /// Adds what one chunk measured to the part's summary: each tile's sums unscaled in f64.
    fn add_to(&self, m: &Measured, summary: &mut PartSummary) {
        let f = |w: u32| f32::from_bits(w) as f64;
        let lengths = tile_lengths(self.values, self.heat_block, self.offset);
        for (len, t) in lengths.into_iter().zip(m.tiles.chunks_exact(TILE_WORDS)) {
            let k = |byte: u32| 2f64.powi(2 * (((t[5] >> (8 * byte)) & 0xff) as i32 - 128));
            let (ke, kx, ky) = (k(0), k(1), k(2));
            let sums = &mut summary.sums;
            let se = f(t[1]) * ke;
            sums.se += se;
            sums.sx += f(t[2]) * kx;
            sums.sy += f(t[3]) * ky;
            sums.sxy += f(t[4]) * (kx * ky).sqrt();
            // The kernel sums x̂ − x, scaled as e.
            sums.sd -= f(t[7]) * ke.sqrt();
            summary.heat.push(HeatRun {
                len,
                se,
                count: (t[6] & 0x7fff_ffff) as usize,
                lost: t[6] >> 31 == 1,
            });
        }
        let sums = &mut summary.sums;
        let stat = |k: usize| m.stats[k] as usize;
        sums.counted += stat(0);
        sums.skipped += stat(1);
        sums.lost += stat(2);
        sums.max_abs_error = sums.max_abs_error.max(f(m.stats[3]));
        for (c, k) in summary.dequantized.iter_mut().zip(VALUE_BASE..) {
            *c += m.stats[k];
        }
        // The largest |e| of the part so far (the kernels carry it from chunk to chunk).
        let so_far = m.stats[4];
        let before = summary.errors.exponent();
        let exponent = if so_far == 0 {
            before
        } else {
            let e = ceil_log2(so_far);
            Some(before.map_or(e, |before| before.max(e)))
        };
        let errors: Vec<u64> = m.stats[ERROR_BASE..].iter().map(|c| *c as u64).collect();
        summary.errors.add_fine(exponent, &errors);
    }
}
