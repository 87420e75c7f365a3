//! A part measured somewhere else (a GPU's reductions and atomics) and merged into a
//! [`SchemeRun`]: the backend reads [`SchemeRun::measure_setup`], measures the part's
//! (original, dequantized) pairs on its own, and hands back the part's bytes and a
//! [`PartSummary`] to [`SchemeRun::measure_summary`]. The dequantized values never come back.
//!
//! What is exact and what is not: the counts (skipped, lost, counted), both histograms and the
//! error map's block boundaries are exact, given bins computed as [`Bins::index_or_past_end`] and
//! [`GrowingHistogram::add_fine`] say; the sums (and so MSE, SQNR, cosine and each block's RMSE)
//! and the largest error are within the backend's stated tolerance.

use super::{SchemeRun, ValueRow, FIRST_VALUES, MAX_LEVELS};
use crate::quant::analysis::codes;
use crate::quant::error::QuantError;
use crate::quant::histogram::{Bins, GrowingHistogram};
use crate::quant::metrics::MetricSums;

/// What a backend needs to measure the next part exactly as the CPU would.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeasureSetup {
    /// The value histogram's bins (the [`super::Overview`]'s range, [`super::BINS`] bins).
    pub bins: Bins,
    /// Number of value bins; NaN goes one past the last.
    pub bin_count: usize,
    /// Values per block of the error map.
    pub heat_block: usize,
    /// Where the part's first value sits within its error-map block (0 at a block start).
    pub heat_offset: usize,
    /// The error histogram's [`GrowingHistogram::exponent`] before this part.
    pub error_exponent: Option<i32>,
}

/// The error-map sums of a run of consecutive values within one error-map block.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeatRun {
    /// Values in the run (all of them, skipped ones included).
    pub len: usize,
    /// Σ (x − x̂)² over its finite pairs.
    pub se: f64,
    /// Its finite pairs.
    pub count: usize,
    /// Whether a finite value came back NaN or ±inf.
    pub lost: bool,
}

/// One part measured by a backend, to merge with [`SchemeRun::measure_summary`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartSummary {
    /// The metric sums and counts.
    pub sums: MetricSums,
    /// Counts of the dequantized values per bin of [`MeasureSetup::bins`], then NaN.
    pub dequantized: Vec<u32>,
    /// The errors (x̂ − x in f32), binned as the CPU bins them (see
    /// [`GrowingHistogram::add_fine`]).
    pub errors: GrowingHistogram,
    /// The part's values in runs, in order; a run never crosses an error-map block's end, and
    /// the lengths add up to the part's length.
    pub heat: Vec<HeatRun>,
}

impl<'a> SchemeRun<'a> {
    /// What a backend needs to measure the next part (see [`MeasureSetup`]).
    pub fn measure_setup(&self) -> MeasureSetup {
        let pairs = &self.pairs;
        MeasureSetup {
            bins: pairs.bins,
            bin_count: pairs.dequantized.len() - 1,
            heat_block: pairs.heat.block,
            heat_offset: pairs.heat.in_block(),
            error_exponent: pairs.errors.exponent(),
        }
    }

    /// The next part's values, without padding (empty when done): the originals a backend
    /// measures against.
    pub fn part_values(&self) -> &'a [f32] {
        let x: &'a [f32] = self.x;
        self.next_part().map_or(&[], |r| &x[r])
    }

    /// Merges the next part as measured by a backend from `bytes` (its quantized bytes, as
    /// [`super::ProducedPart::bytes`]) and `summary`. The first values and the peak block's
    /// levels are read by dequantizing just their blocks of `bytes` on the CPU (bytes identical
    /// to the CPU's dequantize to identical values). Wrong lengths are a
    /// [`QuantError::PartLength`] and nothing is merged; when done, nothing happens.
    pub fn measure_summary(
        &mut self,
        bytes: &[u8],
        summary: &PartSummary,
    ) -> Result<(), QuantError> {
        let Some(range) = self.next_part() else {
            return Ok(());
        };
        let (pos, end) = (range.start, range.end);
        self.check_bytes(bytes, end - pos)?;
        let runs: usize = summary.heat.iter().map(|r| r.len).sum();
        if runs != end - pos {
            return Err(QuantError::PartLength {
                what: "error-map runs",
                got: runs,
                expected: end - pos,
            });
        }
        let bins = self.pairs.dequantized.len();
        if summary.dequantized.len() != bins {
            return Err(QuantError::PartLength {
                what: "value bins",
                got: summary.dequantized.len(),
                expected: bins,
            });
        }
        let pairs = &mut self.pairs;
        pairs.metrics.add_sums(&summary.sums);
        for (lanes, c) in pairs.dequantized.iter_mut().zip(&summary.dequantized) {
            lanes[0] += c;
        }
        pairs.errors.merge(&summary.errors);
        for r in &summary.heat {
            pairs.heat.add_run(r.len, r.se, r.count, r.lost);
        }
        self.bytes += bytes.len();
        self.first_and_levels_from_bytes(pos, end, bytes)?;
        self.advance(end);
        Ok(())
    }

    /// The first values' rows and the peak block's levels, from the part's `bytes`.
    fn first_and_levels_from_bytes(
        &mut self,
        pos: usize,
        end: usize,
        bytes: &[u8],
    ) -> Result<(), QuantError> {
        let layout = self.quantizer.layout();
        let per = layout.values.max(1);
        // The values of blocks [from, to) of the part (indices relative to the part).
        let values_of = |from: usize, to: usize| -> Result<Vec<f32>, QuantError> {
            // A short last block (an fp8-128x128 band of fewer rows) ends with the bytes.
            let end = (to.div_ceil(per) * layout.block_bytes).min(bytes.len());
            let slice = &bytes[(from / per * layout.block_bytes).min(end)..end];
            Ok(self.quantizer.dequantize_part(slice)?[from % per..][..to - from].to_vec())
        };
        let k = (FIRST_VALUES - self.first.len()).min(end - pos);
        if k > 0 {
            let y = values_of(0, k)?;
            let with_header = [self.quantizer.header().as_slice(), bytes].concat();
            let c = codes(self.scheme, &with_header, self.block, k);
            let part = &self.x[pos..end];
            self.first.extend((0..k).map(|j| ValueRow {
                original: part[j],
                code: c[j],
                dequantized: y[j],
            }));
        }
        let (from, to) = (self.peak_block.start.max(pos), self.peak_block.end.min(end));
        if from < to {
            for v in values_of(from - pos, to - pos)? {
                if self.levels.len() < MAX_LEVELS {
                    self.levels.insert(v.to_bits());
                }
            }
        }
        Ok(())
    }
}

/// The CPU reference of a [`PartSummary`]: what a backend must give for the pairs of `original`
/// and `approx` (the part's values, padding left out) under `setup`, with the sums in f64 and one
/// [`HeatRun`] per error-map block the part touches. Backends are tested against it.
pub fn summarize(setup: &MeasureSetup, original: &[f32], approx: &[f32]) -> PartSummary {
    let mut sums = MetricSums::default();
    let mut errors = GrowingHistogram::starting_at(setup.error_exponent);
    let mut dequantized = vec![0u32; setup.bin_count + 1];
    let mut heat: Vec<HeatRun> = Vec::new();
    let mut in_block = setup.heat_offset;
    for (a, b) in original.iter().zip(approx) {
        dequantized[setup.bins.index_or_past_end(*b)] += 1;
        errors.push(b - a);
        if heat.is_empty() || in_block == 0 {
            heat.push(HeatRun::default());
        }
        let run = heat.last_mut().expect("pushed above");
        run.len += 1;
        in_block = (in_block + 1) % setup.heat_block.max(1);
        if !a.is_finite() {
            sums.skipped += 1;
        } else if !b.is_finite() {
            sums.lost += 1;
            run.lost = true;
        } else {
            let (x, y) = (*a as f64, *b as f64);
            let e = x - y;
            sums.se += e * e;
            sums.sx += x * x;
            sums.sy += y * y;
            sums.sxy += x * y;
            sums.sd += e;
            sums.max_abs_error = sums.max_abs_error.max(e.abs());
            sums.counted += 1;
            run.se += e * e;
            run.count += 1;
        }
    }
    PartSummary {
        sums,
        dequantized,
        errors,
        heat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::generate::{generate, Distribution};
    use crate::quant::lab::{Overview, PartBackend, ProducedPart, BINS};
    use crate::quant::scheme::Scheme;

    /// Runs `scheme` over `x` in parts of about `target`, merging each part through
    /// [`summarize`] (as a backend would) instead of measuring it.
    fn through_summaries(scheme: Scheme, x: &[f32], block: usize, target: usize) -> SchemeRun<'_> {
        let overview = Box::leak(Box::new(Overview::new(x)));
        let mut run = SchemeRun::new(scheme, x, block, false, overview, target);
        while let Some(range) = run.next_part() {
            let produced: ProducedPart = super::super::CpuBackend
                .produce(run.quantizer(), &run.padded_part())
                .unwrap();
            let summary = summarize(
                &run.measure_setup(),
                &x[range.clone()],
                &produced.values[..range.len()],
            );
            run.measure_summary(&produced.bytes, &summary).unwrap();
        }
        run
    }

    #[test]
    fn merged_summaries_give_the_cpu_counts_exactly_and_its_sums_closely() {
        let mut x = generate(Distribution::Laplace, 3, 1000, 0.05, 5);
        // Errors that land on the range's edge (a power of two equal to R), tiny ones, and
        // non-finite values: the cases where binning depends on the range at the time.
        x[10] = f32::NAN;
        x[700] = f32::INFINITY;
        x[1500] = 1e-30;
        x[2999] = -1e-38;
        for (scheme, block, target) in [
            (Scheme::AbsmaxInt8, 64, 700),
            (Scheme::Nf4, 8, 300),
            (Scheme::Bf16, 1, 333),
            (Scheme::F8E4M3, 1, 1000),
        ] {
            let (row, detail) = super::super::analyse(scheme, &x, block, false).unwrap();
            let (grow, gdetail) = through_summaries(scheme, &x, block, target).finish();
            assert_eq!(gdetail.dequantized, detail.dequantized, "{scheme}");
            assert_eq!(gdetail.errors, detail.errors, "{scheme}");
            let bits = |rows: &[ValueRow]| -> Vec<(u32, i32, u32)> {
                let b = |r: &ValueRow| (r.original.to_bits(), r.code, r.dequantized.to_bits());
                rows.iter().map(b).collect()
            };
            assert_eq!(bits(&gdetail.first), bits(&detail.first), "{scheme}");
            let level_bits = |l: &[f32]| l.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                level_bits(&gdetail.levels),
                level_bits(&detail.levels),
                "{scheme}"
            );
            assert_eq!(gdetail.heat.len(), detail.heat.len(), "{scheme}");
            for (g, c) in gdetail.heat.iter().zip(&detail.heat) {
                assert!(g == c || (g - c).abs() <= 1e-6 * c, "{scheme}: {g} vs {c}");
            }
            let (m, gm) = (row.metrics, grow.metrics);
            assert_eq!(
                (gm.skipped, gm.lost, grow.bytes),
                (m.skipped, m.lost, row.bytes)
            );
            assert_eq!(gm.max_abs_error, m.max_abs_error, "{scheme}");
            for (g, c) in [(gm.mse, m.mse), (gm.cosine, m.cosine)] {
                let close = g == c || (g - c).abs() <= 1e-12 * c.abs();
                assert!(close || (g.is_nan() && c.is_nan()), "{scheme}: {g} vs {c}");
            }
        }
    }

    #[test]
    fn a_histogram_merged_at_a_later_range_equals_pushing_in_order() {
        // 0.5 arrives when the range is exactly 0.5 (top bin), then 4.0 doubles it three times;
        // -2^-60 rounds onto 0's bin at R = 1 but not at R = 2^-5.
        let values = [0.5f32, -2f32.powi(-60), 0.25, 4.0, -1.0, 0.0];
        let mut whole = GrowingHistogram::default();
        whole.add(&values);
        for cut in 0..values.len() {
            let mut first = GrowingHistogram::default();
            first.add(&values[..cut]);
            let mut second = GrowingHistogram::starting_at(first.exponent());
            second.add(&values[cut..]);
            first.merge(&second);
            assert_eq!(first, whole, "cut at {cut}");
        }
    }

    #[test]
    fn a_summary_of_the_wrong_shape_is_an_error_and_is_not_merged() {
        let x = generate(Distribution::Normal, 1, 256, 1.0, 1);
        let overview = Overview::new(&x);
        let mut run = SchemeRun::new(Scheme::AbsmaxInt8, &x, 64, false, &overview, 128);
        let produced = super::super::CpuBackend
            .produce(run.quantizer(), &run.padded_part())
            .unwrap();
        let mut summary = summarize(&run.measure_setup(), &x[..128], &produced.values);
        summary.heat.pop();
        assert!(matches!(
            run.measure_summary(&produced.bytes, &summary),
            Err(QuantError::PartLength {
                what: "error-map runs",
                ..
            })
        ));
        assert_eq!((run.parts_done(), BINS), (0, summary.dequantized.len() - 1));
    }
}
