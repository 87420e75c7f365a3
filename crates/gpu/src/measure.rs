//! The Quantize lab's measuring pass on the GPU: [`measure_part`] quantizes one part, dequantizes
//! it on the device and measures the pairs there (`shaders/measure_lab.wgsl`), so only the bytes
//! and a [`PartSummary`] come back, never the dequantized values.
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

use crate::context::{Gpu, GpuError, Role};
use crate::dispatch::{
    chunk_units, f32_bytes, read, split, submit, table, words, CheckedOut, Params, Pass,
};
use crate::layout::layout;
use crate::part::part_bytes;
use crate::quantize::dequantize_on_device;
use crate::shaders::Family;
use crate::tables::table_of;
use bitbudget_math::quant::analysis::PartQuantizer;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::histogram::{GrowingHistogram, FINE};
use bitbudget_math::quant::lab::{
    HeatRun, MeasureSetup, Overview, PartSummary, SchemeDetail, SchemeRun,
};
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
const TILE_WORDS: usize = 7;
/// Words of the stats buffer.
const STATS_WORDS: usize = ERROR_BASE + FINE;

/// Quantizes `padded` (one part of a tensor, zero-padded to whole blocks, whose first
/// `original.len()` values are real) with `quantizer`'s scheme and whole-tensor parameters, and
/// measures the part on the device under `setup` (from
/// `bitbudget_math::quant::lab::SchemeRun::measure_setup`): the part's bytes, exactly the CPU's,
/// and its [`PartSummary`] for `SchemeRun::measure_summary`. Counts and histograms are exact; the
/// sums are within [`crate::SUM_TOLERANCE`]. Errors as [`crate::quantize`], and a setup with more than
/// 255 value bins is refused.
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
    let bytes = part_bytes(gpu, quantizer, padded).await?;
    let mut summary = PartSummary {
        dequantized: vec![0; setup.bin_count + 1],
        errors: GrowingHistogram::starting_at(setup.error_exponent),
        ..PartSummary::default()
    };
    if original.is_empty() {
        return Ok((bytes, summary));
    }
    let (scheme, block) = (quantizer.scheme(), quantizer.block());
    let l = layout(scheme, block)?;
    let scalar = quantizer.fp8_scale().map_or(0, f32::to_bits);
    let stride = l.stride();
    let unit_bytes = (8 * l.weights as u64).max(stride as u64 + 8);
    let per_chunk = chunk_units(gpu, l.weights, unit_bytes, l.weights as u64)? * l.weights;
    let table_words = value_table(setup);
    let deq_table = table(gpu, table_of(scheme));
    let mut buffers = CheckedOut::new(gpu);
    let thresholds = buffers.get(Role::Thresholds, 4 * table_words.len() as u64);
    gpu.queue.write_buffer(
        &thresholds,
        0,
        &crate::context::words_to_bytes(&table_words),
    );
    let mut offset = setup.heat_offset % setup.heat_block;
    let mut at = 0;
    while at < original.len() {
        let end = (at + per_chunk).min(padded.len());
        let n = end.min(original.len()) - at;
        let stored = &bytes[at / l.weights * stride..end / l.weights * stride];
        let chunk = Chunk {
            values: n,
            heat_block: setup.heat_block,
            offset,
            exponent: summary.errors.exponent(),
        };
        // A kernel the device refuses would leave the results at zero: say so instead.
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let (headers, codes) = split(&l, stored);
        let y = dequantize_on_device(
            gpu,
            &mut buffers,
            &l,
            scalar,
            (&headers, &codes),
            &deq_table,
            end - at,
        );
        let x = buffers.get(Role::Original, 4 * n as u64);
        gpu.queue
            .write_buffer(&x, 0, &f32_bytes(&original[at..at + n]));
        let words = chunk
            .measure(gpu, &mut buffers, [&x, &y, &thresholds])
            .await?;
        if let Some(e) = scope.pop().await {
            let why = format!("the device refused the measuring pass: {e}");
            return Err(GpuError::Readback(why));
        }
        chunk.add_to(&words, &mut summary);
        offset = (offset + n) % setup.heat_block;
        at = end;
    }
    Ok((bytes, summary))
}

/// The lab's analysis of one scheme (`bitbudget_math::quant::lab::analyse`) with every part of
/// `part_len` values quantized, dequantized and measured on the GPU: the same row and charts,
/// counts and histograms exact, sums within [`crate::SUM_TOLERANCE`]. Errors as
/// [`measure_part`]; a merge that does not fit is a [`GpuError::Input`].
pub async fn analyse(
    gpu: &Gpu,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    double_quant: bool,
    part_len: usize,
) -> Result<(SchemeResult, SchemeDetail), GpuError> {
    let overview = Overview::new(x);
    let mut run = SchemeRun::new(scheme, x, block, double_quant, &overview, part_len);
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
    /// The error histogram's exponent before the chunk.
    exponent: Option<i32>,
}

/// What one chunk's measuring pass reads back: the stats and per-tile words.
struct Measured {
    stats: Vec<u32>,
    tiles: Vec<u32>,
}

impl Chunk {
    /// Runs the four measuring dispatches over `[x, y, thresholds]` and reads back their words.
    async fn measure(
        &self,
        gpu: &Gpu,
        buffers: &mut CheckedOut<'_>,
        [x, y, thresholds]: [&wgpu::Buffer; 3],
    ) -> Result<Measured, GpuError> {
        let tiles = tile_lengths(self.values, self.heat_block, self.offset).len();
        let groups = tiles.div_ceil(GROUP);
        let tile_bytes = 4 * (TILE_WORDS * tiles) as u64;
        let stats = buffers.get(Role::Stats, 4 * STATS_WORDS as u64);
        let tile_buffer = buffers.get(Role::Tiles, tile_bytes);
        let partials = buffers.get(Role::Partials, 4 * groups as u64);
        let read_stats = buffers.get(Role::ReadStats, 4 * STATS_WORDS as u64);
        let read_tiles = buffers.get(Role::ReadTiles, tile_bytes);
        gpu.queue.write_buffer(&stats, 0, &vec![0; 4 * STATS_WORDS]);
        let (had, before) = match self.exponent {
            Some(e) => (1, e as u32),
            None => (0, 0),
        };
        let base = Params {
            n: self.values as u32,
            block: self.heat_block as u32,
            variant: self.offset as u32,
            consts: [had, before, tiles as u32, 0],
            ..Params::default()
        };
        let steps = [
            ("tile_max", tiles),
            ("group_max", groups),
            ("scan", groups),
            ("measure_tiles", tiles),
        ];
        let params: Vec<wgpu::Buffer> = (1..=4)
            .map(|k| buffers.get(Role::ParamsMeasure(k), 48))
            .collect();
        let bindings: &[&wgpu::Buffer] = &[x, y, thresholds, &stats, &tile_buffer, &partials];
        let passes: Vec<Pass<'_>> = steps
            .iter()
            .zip(&params)
            .map(|((entry, count), params_buffer)| Pass {
                family: Family::MeasureLab,
                entry,
                params: Params {
                    count: *count as u32,
                    ..base
                },
                params_buffer,
                bindings,
            })
            .collect();
        let copies = [
            (&stats, &read_stats, 4 * STATS_WORDS as u64),
            (&tile_buffer, &read_tiles, tile_bytes),
        ];
        submit(gpu, &passes, &copies);
        let wanted: Vec<(&wgpu::Buffer, u64)> = copies.iter().map(|(_, to, b)| (*to, *b)).collect();
        let mut data = read(gpu, &wanted).await?.into_iter().map(|d| words(&d));
        let mut next = || data.next().unwrap_or_default();
        Ok(Measured {
            stats: next(),
            tiles: next(),
        })
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
        let chunk_max = m.stats[4];
        let exponent = if chunk_max == 0 {
            self.exponent
        } else {
            let e = ceil_log2(chunk_max);
            Some(self.exponent.map_or(e, |before| before.max(e)))
        };
        let errors: Vec<u64> = m.stats[ERROR_BASE..].iter().map(|c| *c as u64).collect();
        summary.errors.add_fine(exponent, &errors);
    }
}
