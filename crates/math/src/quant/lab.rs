//! The Quantize lab's analysis of one scheme on a tensor, streamed a part at a time so that memory
//! is bounded by the part size, not the tensor: the metrics, a histogram of the dequantized
//! values, a histogram of the error, the error of every block (grouped into at most
//! [`MAX_HEAT_CELLS`] cells), the first values with their stored codes, and the levels of the
//! block that holds the largest |x|.
//!
//! Producing a part (quantize, dequantize: a [`PartBackend`], [`CpuBackend`] here) is apart from
//! measuring it ([`SchemeRun::measure`]), so a backend whose readback is async (WebGPU) feeds
//! the same accumulators: take [`SchemeRun::next_part`], produce its bytes and values, await
//! them, then hand them to [`SchemeRun::measure`].

use super::analysis::{codes, PartQuantizer, SchemeResult};
use super::error::QuantError;
use super::histogram::{histogram, Bins, Histogram};
use super::nf4;
use super::scheme::{Scheme, FP8_BLOCK};
use measure::PairMeasures;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

mod measure;
mod scan;
mod summary;

pub use summary::{summarize, HeatRun, MeasureSetup, PartSummary};

/// Bins of the value and error histograms.
pub const BINS: usize = 80;
/// Most cells of the per-block error map; beyond that, each cell shows the worst of several
/// consecutive blocks.
pub const MAX_HEAT_CELLS: usize = 16_384;
/// Values in the grid of original, code and dequantized values.
pub const FIRST_VALUES: usize = 12;
/// Most distinct levels collected from the peak block (an 8-bit block has at most 256).
const MAX_LEVELS: usize = 512;

/// What the analyses of every scheme on one tensor share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    /// Smallest finite value (a constant tensor gets a range around its value; none: −1).
    pub lo: f32,
    /// Largest finite value (see `lo`; none: 1).
    pub hi: f32,
    /// Histogram of the original values over [lo, hi] in [`BINS`] bins.
    pub histogram: Vec<u32>,
    /// Index of the largest finite |x| (0 when there is none).
    pub peak: usize,
}

impl Overview {
    /// One pass over `x`.
    pub fn new(x: &[f32]) -> Self {
        let span = Self::span(x);
        Self {
            histogram: histogram(x, span.lo, span.hi, BINS),
            ..span
        }
    }

    /// The range and peak of `x` without the histogram (left empty): all that one scheme's
    /// analysis reads ([`analyse`]), at a fraction of the histogram's cost.
    fn span(x: &[f32]) -> Self {
        let (lo, hi, peak) = scan::range_and_peak(x);
        let (lo, hi) = if lo > hi {
            (-1.0, 1.0)
        } else if lo == hi {
            let pad = lo.abs().max(1.0) * 0.5;
            (lo - pad, lo + pad)
        } else {
            (lo, hi)
        };
        Self {
            lo,
            hi,
            histogram: Vec::new(),
            peak,
        }
    }
}

/// One row of the values grid.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueRow {
    /// The original value.
    pub original: f32,
    /// The stored code (see [`codes`]).
    pub code: i32,
    /// The value it dequantizes to.
    pub dequantized: f32,
}

/// Everything the lab draws about one scheme besides its metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeDetail {
    /// Histogram of the dequantized values over the [`Overview`]'s range and bins.
    pub dequantized: Vec<u32>,
    /// Histogram of dequantized − original (NaN and ±inf errors are left out).
    pub errors: Histogram,
    /// Per cell, the largest RMSE of its blocks (+inf where a value was lost).
    pub heat: Vec<f32>,
    /// Values per block of the error map (the scheme's block, at least 32).
    pub heat_block: usize,
    /// Blocks per cell of the error map.
    pub blocks_per_cell: usize,
    /// The first [`FIRST_VALUES`] values.
    pub first: Vec<ValueRow>,
    /// The distinct dequantized values of the block that holds the largest |x|, ascending.
    pub levels: Vec<f32>,
}

/// One part's output from a backend: its quantized bytes (without the per-tensor header) and
/// the values they dequantize to (one per value of the zero-padded part).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProducedPart {
    /// Quantized bytes of the part's whole blocks.
    pub bytes: Vec<u8>,
    /// Dequantized values, padding included.
    pub values: Vec<f32>,
}

/// Whatever quantizes and dequantizes a part: the CPU here, a GPU next.
pub trait PartBackend {
    /// Quantizes `padded` (whole blocks) with `quantizer`'s scheme and per-tensor parameters and
    /// dequantizes the result; the bytes must equal [`PartQuantizer::part`]'s.
    fn produce(
        &mut self,
        quantizer: &PartQuantizer,
        padded: &[f32],
    ) -> Result<ProducedPart, QuantError>;
}

/// The reference backend: [`PartQuantizer::part`] then [`PartQuantizer::dequantize_part`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBackend;

impl PartBackend for CpuBackend {
    fn produce(
        &mut self,
        quantizer: &PartQuantizer,
        padded: &[f32],
    ) -> Result<ProducedPart, QuantError> {
        let bytes = quantizer.part(padded)?;
        let values = quantizer.dequantize_part(&bytes)?;
        Ok(ProducedPart { bytes, values })
    }
}

/// One scheme's analysis of a tensor in progress: call [`SchemeRun::step`] until
/// [`SchemeRun::done`], then [`SchemeRun::finish`]. Holds one part's bytes and values at a time.
pub struct SchemeRun<'a> {
    scheme: Scheme,
    block: usize,
    double_quant: bool,
    x: &'a [f32],
    quantizer: PartQuantizer,
    part_len: usize,
    pos: usize,
    bytes: usize,
    pairs: PairMeasures,
    first: Vec<ValueRow>,
    peak_block: std::ops::Range<usize>,
    levels: HashSet<u32>,
}

impl<'a> SchemeRun<'a> {
    /// Prepares `scheme` (block `block`; `double_quant` applies to NF4) on `x`, in parts of about
    /// `target` values. The last block is zero-padded; padding is stored but never measured.
    /// `overview` must be `x`'s own ([`Overview::new`]): its range bins the dequantized values,
    /// and its peak locates the levels' block and gives FP8 its per-tensor scale.
    pub fn new(
        scheme: Scheme,
        x: &'a [f32],
        block: usize,
        double_quant: bool,
        overview: &'a Overview,
        target: usize,
    ) -> Self {
        let block = block.max(1);
        let quantizer = PartQuantizer::new_at_peak(scheme, x, block, double_quant, overview.peak);
        let start = overview.peak / block * block;
        // A 2D block's values in the peak's row share the peak's scale: its 128-column segment.
        let peak_block = if scheme == Scheme::Fp8Block {
            let from = start + (overview.peak - start) / FP8_BLOCK * FP8_BLOCK;
            from..(from + FP8_BLOCK).min(start + block).min(x.len())
        } else {
            start..(start + block).min(x.len())
        };
        Self {
            scheme,
            block,
            double_quant: double_quant && scheme == Scheme::Nf4,
            x,
            part_len: quantizer.part_len(target),
            bytes: quantizer.header().len(),
            quantizer,
            pos: 0,
            pairs: PairMeasures::new(
                Bins::new(BINS, overview.lo, overview.hi),
                BINS,
                x.len(),
                block.max(32),
            ),
            first: Vec::with_capacity(FIRST_VALUES),
            peak_block,
            levels: HashSet::new(),
        }
    }

    /// Parts in all (for a progress bar).
    pub fn parts(&self) -> usize {
        self.x.len().div_ceil(self.part_len)
    }

    /// Parts processed so far.
    pub fn parts_done(&self) -> usize {
        self.pos.div_ceil(self.part_len)
    }

    /// Whether every part has been processed.
    pub fn done(&self) -> bool {
        self.pos >= self.x.len()
    }

    /// This run with NVFP4's and MXFP4's options (see [`PartQuantizer::with_options`]; other
    /// schemes ignore them). Call before the first part.
    pub fn with_options(mut self, opts: super::fp4_options::Fp4Options) -> Self {
        self.quantizer = self.quantizer.with_options(opts);
        self
    }

    /// Moves on to the part that starts at `end` (the quantizer's tensor index with it).
    fn advance(&mut self, end: usize) {
        self.pos = end;
        self.quantizer.at(end as u64);
    }

    /// The quantizer with this run's per-tensor parameters and the next part's tensor index
    /// (for a backend).
    pub fn quantizer(&self) -> &PartQuantizer {
        &self.quantizer
    }

    /// The range of values of the next part (`None` when done).
    pub fn next_part(&self) -> Option<Range<usize>> {
        (!self.done()).then(|| self.pos..(self.pos + self.part_len).min(self.x.len()))
    }

    /// The next part's values, zero-padded to whole blocks: what a backend quantizes (empty when
    /// done).
    pub fn padded_part(&self) -> Cow<'a, [f32]> {
        let Some(range) = self.next_part() else {
            return Cow::Borrowed(&[]);
        };
        let x: &'a [f32] = self.x;
        let part = &x[range];
        if part.len() % self.block == 0 {
            Cow::Borrowed(part)
        } else {
            let mut v = part.to_vec();
            v.resize(part.len().next_multiple_of(self.block), 0.0);
            Cow::Owned(v)
        }
    }

    /// Produces the next part on the CPU and measures it (nothing when done).
    pub fn step(&mut self) -> Result<(), QuantError> {
        self.step_with(&mut CpuBackend)
    }

    /// Produces the next part with `backend` and measures it (nothing when done).
    pub fn step_with(&mut self, backend: &mut impl PartBackend) -> Result<(), QuantError> {
        if self.done() {
            return Ok(());
        }
        let produced = backend.produce(&self.quantizer, &self.padded_part())?;
        self.measure(&produced)
    }

    /// Measures the next part from its produced bytes and values (from any backend), and moves
    /// on. Lengths that do not fit the part are a [`QuantError::PartLength`], and nothing is
    /// measured; when done, nothing happens.
    pub fn measure(&mut self, produced: &ProducedPart) -> Result<(), QuantError> {
        let Some(range) = self.next_part() else {
            return Ok(());
        };
        let (pos, end) = (range.start, range.end);
        let padded = self.check_bytes(&produced.bytes, end - pos)?;
        if produced.values.len() != padded {
            return Err(QuantError::PartLength {
                what: "values",
                got: produced.values.len(),
                expected: padded,
            });
        }
        let part = &self.x[range];
        let y = &produced.values[..part.len()];
        let bytes = &produced.bytes;
        self.bytes += bytes.len();
        self.pairs.add(part, y);
        self.collect_first(part, y, bytes);
        let (from, to) = (self.peak_block.start.max(pos), self.peak_block.end.min(end));
        if from < to {
            for v in &y[from - pos..to - pos] {
                if self.levels.len() < MAX_LEVELS {
                    self.levels.insert(v.to_bits());
                }
            }
        }
        self.advance(end);
        Ok(())
    }

    /// Checks that `bytes` are the quantized bytes of a part of `len` values; returns the
    /// part's zero-padded length.
    fn check_bytes(&self, bytes: &[u8], len: usize) -> Result<usize, QuantError> {
        let padded = len.next_multiple_of(self.block);
        let layout = self.quantizer.layout();
        let expected = layout.bytes_for(padded) - layout.header_bytes;
        if bytes.len() != expected {
            return Err(QuantError::PartLength {
                what: "bytes",
                got: bytes.len(),
                expected,
            });
        }
        Ok(padded)
    }

    fn collect_first(&mut self, part: &[f32], y: &[f32], bytes: &[u8]) {
        let k = (FIRST_VALUES - self.first.len()).min(part.len());
        if k == 0 {
            return;
        }
        let with_header = [self.quantizer.header().as_slice(), bytes].concat();
        let c = codes(self.scheme, &with_header, self.block, k);
        self.first.extend((0..k).map(|j| ValueRow {
            original: part[j],
            code: c[j],
            dequantized: y[j],
        }));
    }

    /// The scheme's row and detail.
    pub fn finish(self) -> (SchemeResult, SchemeDetail) {
        let padded = self.x.len().next_multiple_of(self.block);
        let (bits_per_weight, bytes) = if self.double_quant {
            // The byte layout stores each double-quantized absmax as an f32; the format stores 8 bits.
            let bits = nf4::bits_per_weight(self.block, true);
            (bits, (bits * padded as f64 / 8.0).ceil() as usize)
        } else {
            (self.scheme.bits_per_weight(self.block, padded), self.bytes)
        };
        let mut levels: Vec<f32> = self.levels.into_iter().map(f32::from_bits).collect();
        levels.sort_by(f32::total_cmp);
        let pairs = self.pairs;
        let result = SchemeResult {
            scheme: self.scheme,
            block: self.block,
            bits_per_weight,
            bytes,
            metrics: pairs.metrics.finish(),
        };
        let detail = SchemeDetail {
            dequantized: pairs.dequantized_counts(),
            errors: pairs.errors.finish(BINS),
            heat_block: pairs.heat.block,
            blocks_per_cell: pairs.heat.per_cell,
            heat: pairs.heat.finish(),
            first: self.first,
            levels,
        };
        (result, detail)
    }
}

/// Runs [`SchemeRun`] to the end on the CPU in parts of 2^18 values (for tests, benchmarks and
/// the CLI). Errors as [`SchemeRun::step`].
pub fn analyse(
    scheme: Scheme,
    x: &[f32],
    block: usize,
    double_quant: bool,
) -> Result<(SchemeResult, SchemeDetail), QuantError> {
    let overview = Overview::span(x);
    let mut run = SchemeRun::new(scheme, x, block, double_quant, &overview, 1 << 18);
    while !run.done() {
        run.step()?;
    }
    Ok(run.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::codec::{dequantize, nf4_double_quant_bytes, quantize};
    use crate::quant::generate::{generate, Distribution};
    use crate::quant::metrics::error_metrics;

    /// Whole-tensor reference: pad, quantize, dequantize, measure.
    fn whole(s: Scheme, x: &[f32], block: usize, dq: bool) -> (Vec<u8>, Vec<f32>) {
        let mut p = x.to_vec();
        p.resize(x.len().next_multiple_of(block), 0.0);
        let bytes = if dq {
            nf4_double_quant_bytes(&p, block).unwrap()
        } else {
            quantize(s, &p, block).unwrap()
        };
        let y = dequantize(s, &bytes, block).unwrap();
        (bytes, y)
    }

    /// Every scheme (NF4 also with double quantization) with the block size the part tests use.
    fn cases() -> Vec<(Scheme, bool, usize)> {
        let mut out = Vec::new();
        for s in Scheme::ALL {
            for dq in [false, s == Scheme::Nf4] {
                let block = if s == Scheme::Nf4 {
                    8
                } else {
                    s.default_block()
                };
                out.push((s, dq, block));
            }
        }
        out
    }

    /// A run of `s` over `x` in parts of 700, stepped on the CPU to the end.
    fn run_on_cpu<'a>(
        s: Scheme,
        x: &'a [f32],
        block: usize,
        dq: bool,
        overview: &'a Overview,
    ) -> SchemeRun<'a> {
        let mut run = SchemeRun::new(s, x, block, dq, overview, 700);
        while !run.done() {
            run.step().unwrap();
        }
        run
    }

    #[test]
    fn parts_measure_exactly_what_the_whole_tensor_gives() {
        // 3 000 values: not a whole number of blocks, parts of about 700.
        let x = generate(Distribution::Laplace, 3, 1000, 0.05, 9);
        let overview = Overview::new(&x);
        for (s, dq, block) in cases() {
            let (row, detail) = run_on_cpu(s, &x, block, dq, &overview).finish();
            let (bytes, y) = whole(s, &x, block, dq);
            let y = &y[..x.len()];
            assert_eq!(row.metrics, error_metrics(&x, y), "{s} dq={dq}");
            if !dq {
                assert_eq!(row.bytes, bytes.len(), "{s}");
            }
            assert_eq!(
                detail.dequantized,
                histogram(y, overview.lo, overview.hi, BINS)
            );
            let c = codes(s, &bytes, block, FIRST_VALUES);
            for (j, r) in detail.first.iter().enumerate() {
                assert_eq!(
                    (r.original, r.code, r.dequantized),
                    (x[j], c[j], y[j]),
                    "{s}"
                );
            }
            let errors: u32 = detail.errors.counts.iter().sum();
            assert_eq!(errors as usize, x.len(), "{s}: every error counted once");
        }
    }

    #[test]
    fn fp4_options_in_parts_measure_what_the_whole_tensor_gives() {
        use crate::quant::fp4_options::{self, Fp4Options, SCHEMES};
        let x = generate(Distribution::Laplace, 3, 1024, 0.05, 9);
        let overview = Overview::new(&x);
        for s in SCHEMES {
            for opts in [
                Fp4Options {
                    rht: Some(2),
                    sr: None,
                },
                Fp4Options {
                    rht: Some(2),
                    sr: Some(8),
                },
            ] {
                let mut run = SchemeRun::new(s, &x, s.default_block(), false, &overview, 700)
                    .with_options(opts);
                assert!(run.parts() > 2, "{s}");
                while !run.done() {
                    run.step().unwrap();
                }
                let (row, detail) = run.finish();
                let bytes = fp4_options::quantize(s, &x, opts, 0).unwrap();
                let y = fp4_options::dequantize(s, &bytes, opts).unwrap();
                assert_eq!(row.metrics, error_metrics(&x, &y), "{s} {opts:?}");
                assert_eq!(detail.first[3].dequantized, y[3], "{s} {opts:?}");
                let (plain, _) = run_on_cpu(s, &x, s.default_block(), false, &overview).finish();
                assert_ne!(plain.metrics, row.metrics, "{s} {opts:?}");
            }
        }
    }

    /// A backend that records the parts it was asked for and answers with the CPU's output,
    /// handed over later, as an async readback would.
    #[derive(Default)]
    struct Deferred {
        asked: Vec<usize>,
    }

    impl PartBackend for Deferred {
        fn produce(
            &mut self,
            quantizer: &PartQuantizer,
            padded: &[f32],
        ) -> Result<ProducedPart, QuantError> {
            self.asked.push(padded.len());
            CpuBackend.produce(quantizer, padded)
        }
    }

    #[test]
    fn producing_apart_from_measuring_gives_exactly_the_cpu_step_results() {
        // 3 000 values in parts of about 700: a ragged last part for every block size.
        let x = generate(Distribution::Laplace, 3, 1000, 0.05, 11);
        let overview = Overview::new(&x);
        for (s, dq, block) in cases() {
            let reference = run_on_cpu(s, &x, block, dq, &overview);
            let mut split = SchemeRun::new(s, &x, block, dq, &overview, 700);
            let mut backend = Deferred::default();
            let mut pending = Vec::new();
            while let Some(range) = split.next_part() {
                let padded = split.padded_part();
                assert_eq!(padded.len(), range.len().next_multiple_of(block), "{s}");
                pending.push(backend.produce(split.quantizer(), &padded).unwrap());
                split.measure(pending.last().unwrap()).unwrap();
            }
            assert_eq!(backend.asked.len(), reference.parts(), "{s}");
            assert_eq!(split.finish(), reference.finish(), "{s} dq={dq}");
        }
    }

    #[test]
    fn a_part_of_the_wrong_length_is_an_error_and_is_not_measured() {
        let x = generate(Distribution::Normal, 1, 256, 1.0, 1);
        let overview = Overview::new(&x);
        let mut run = SchemeRun::new(Scheme::AbsmaxInt8, &x, 64, false, &overview, 128);
        let good = CpuBackend
            .produce(run.quantizer(), &run.padded_part())
            .unwrap();
        let short = ProducedPart {
            bytes: good.bytes[1..].to_vec(),
            values: good.values.clone(),
        };
        assert_eq!(
            run.measure(&short),
            Err(QuantError::PartLength {
                what: "bytes",
                got: 135,
                expected: 136
            })
        );
        let few = ProducedPart {
            bytes: good.bytes.clone(),
            values: good.values[..100].to_vec(),
        };
        assert!(matches!(
            run.measure(&few),
            Err(QuantError::PartLength { what: "values", .. })
        ));
        assert_eq!(run.parts_done(), 0);
        run.measure(&good).unwrap();
        assert_eq!(run.parts_done(), 1);
    }

    #[test]
    fn heat_cells_are_block_rmse_and_the_worst_block_of_a_group() {
        let x = generate(Distribution::Normal, 1, 4096, 1.0, 2);
        let (_, detail) = analyse(Scheme::AbsmaxInt8, &x, 64, false).unwrap();
        assert_eq!((detail.heat_block, detail.blocks_per_cell), (64, 1));
        let (_, y) = whole(Scheme::AbsmaxInt8, &x, 64, false);
        for (i, cell) in detail.heat.iter().enumerate() {
            let r = error_metrics(&x[i * 64..][..64], &y[i * 64..][..64]).rmse as f32;
            assert_eq!(*cell, r);
        }
        // 2^20 values in blocks of 32 are 32 768 blocks: two per cell.
        let big = generate(Distribution::Normal, 1, 1 << 20, 1.0, 3);
        let (_, d) = analyse(
            Scheme::Ggml(crate::quant::ggml::GgmlType::Q8_0),
            &big,
            32,
            false,
        )
        .unwrap();
        assert_eq!((d.heat.len(), d.blocks_per_cell), (MAX_HEAT_CELLS, 2));
    }

    #[test]
    fn levels_are_those_of_the_block_with_the_largest_value() {
        let mut x = vec![0.01f32; 256];
        x[130] = -3.0;
        x[131] = 1.5;
        let (_, d) = analyse(Scheme::AbsmaxInt8, &x, 64, false).unwrap();
        // Block 2 (128..192): scale 3/127, levels -127, 64 and the code of 0.01 (0).
        assert_eq!(d.levels.len(), 3, "{:?}", d.levels);
        assert_eq!(d.levels[0], -3.0);
    }

    #[test]
    fn an_infinity_is_a_lost_block_in_the_map() {
        let mut x = vec![0.5f32; 128];
        x[40] = f32::INFINITY;
        let (row, d) = analyse(Scheme::AbsmaxInt8, &x, 64, false).unwrap();
        assert_eq!((row.metrics.skipped, row.metrics.lost), (1, 63));
        assert_eq!(d.heat, vec![f32::INFINITY, 0.0]);
        assert_eq!(
            d.errors.counts.iter().sum::<u32>(),
            64,
            "lost values are not in the histogram"
        );
    }

    #[test]
    fn empty_and_constant_tensors() {
        let (row, d) = analyse(Scheme::AbsmaxInt8, &[], 64, false).unwrap();
        assert_eq!((row.bytes, d.first.len(), d.heat.len()), (0, 0, 0));
        let o = Overview::new(&[2.0; 10]);
        assert_eq!((o.lo, o.hi), (1.0, 3.0));
        let o = Overview::new(&[f32::NAN]);
        assert_eq!((o.lo, o.hi, o.peak), (-1.0, 1.0, 0));
    }
}
