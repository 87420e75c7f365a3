//! The lab's measuring pass over (original, dequantized) pairs: metrics, the histogram of the
//! dequantized values, the histogram of the errors and the per-block error map, in one loop.
//!
//! The part is taken in runs of 256 pairs that stay in the L1 cache: each histogram is a loop of
//! its own over the run; the sums walk the error map's blocks, so the end of a block is one check
//! per block rather than one per value, a block of finite pairs takes a loop without branches,
//! and the squared error the metrics compute is the one the map adds. Every sum takes its pairs
//! in the order and the two partial sums that [`MetricsAccumulator`] defines, so the results are
//! exactly those of pushing the pairs one by one (`lab`'s tests and `tests/lab_one_pass.rs`, in
//! the browser too, compare them with `error_metrics` and the whole-tensor histograms).

use crate::quant::histogram::{add_in_lanes, Bins, GrowingHistogram, FINE};
use crate::quant::metrics::{total, Lanes, MetricsAccumulator};

use super::MAX_HEAT_CELLS;

/// Per-block RMSE, folded into cells of `per_cell` blocks (each the largest of its blocks).
pub(super) struct HeatCells {
    /// Values per block.
    pub(super) block: usize,
    /// Blocks per cell.
    pub(super) per_cell: usize,
    cells: Vec<f32>,
    /// The current block's squared errors, in the metrics' two partial sums (see
    /// [`MetricsAccumulator`]).
    se: Lanes,
    count: usize,
    lost: bool,
    in_block: usize,
    in_cell: usize,
    cell_max: f32,
    /// The largest squared-error sum of the cell's whole blocks of finite pairs, whose RMSE is
    /// taken once per cell (see [`HeatCells::end_block`]).
    cell_max_se: f64,
}

impl HeatCells {
    /// Cells for `n` values in blocks of `block`.
    pub(super) fn new(n: usize, block: usize) -> Self {
        let blocks = n.div_ceil(block).max(1);
        Self {
            block,
            per_cell: blocks.div_ceil(MAX_HEAT_CELLS),
            cells: Vec::with_capacity(blocks.min(MAX_HEAT_CELLS)),
            se: [0.0; 2],
            count: 0,
            lost: false,
            in_block: 0,
            in_cell: 0,
            cell_max: 0.0,
            cell_max_se: 0.0,
        }
    }

    /// Folds the block's RMSE into its cell. A whole block of finite pairs only keeps the
    /// largest sum: for one count, a larger sum has a larger or equal RMSE (division, square
    /// root and rounding to f32 are all monotonic), so the cell's largest RMSE among them is
    /// that of the largest sum, and the division and square root run once per cell, not once
    /// per block. Other blocks (partial, with NaN left out, or lost) take their own RMSE.
    fn end_block(&mut self) {
        let se = total(self.se);
        if !self.lost && self.count == self.block {
            self.cell_max_se = self.cell_max_se.max(se);
        } else {
            let rmse = if self.lost {
                f32::INFINITY
            } else if self.count == 0 {
                0.0
            } else {
                (se / self.count as f64).sqrt() as f32
            };
            self.cell_max = self.cell_max.max(rmse);
        }
        (self.se, self.count, self.lost, self.in_block) = ([0.0; 2], 0, false, 0);
        self.in_cell += 1;
        if self.in_cell == self.per_cell {
            self.end_cell();
        }
    }

    /// Pushes the cell's largest RMSE and starts the next cell.
    fn end_cell(&mut self) {
        let whole = (self.cell_max_se / self.block as f64).sqrt() as f32;
        self.cells.push(self.cell_max.max(whole));
        (self.cell_max, self.cell_max_se, self.in_cell) = (0.0, 0.0, 0);
    }

    /// Adds the sums of a run of `len` values that stays within the current block (measured
    /// elsewhere): `se` over its `count` finite pairs, `lost` when a finite value came back
    /// non-finite. A run that would cross the block's end is cut at it (the caller keeps runs
    /// within blocks; see [`super::summary::HeatRun`]).
    pub(super) fn add_run(&mut self, len: usize, se: f64, count: usize, lost: bool) {
        self.lost |= lost;
        let se = [self.se[0] + se, self.se[1]];
        self.add_pairs(se, count, len.min(self.block - self.in_block));
    }

    /// Moves `len` values on within the current block (at most what is left of it), `counted`
    /// of them finite pairs whose squared errors make the block's sums `se` now; ends the
    /// block when it is full.
    fn add_pairs(&mut self, se: Lanes, counted: usize, len: usize) {
        self.se = se;
        self.count += counted;
        self.in_block += len;
        if self.in_block == self.block {
            self.end_block();
        }
    }

    /// Values already in the current block (where the next value sits within its block).
    pub(super) fn in_block(&self) -> usize {
        self.in_block
    }

    /// The cells, the last partial block and cell included.
    pub(super) fn finish(mut self) -> Vec<f32> {
        if self.in_block > 0 {
            self.end_block();
        }
        if self.in_cell > 0 {
            self.end_cell();
        }
        self.cells
    }
}

/// Everything measured pair by pair.
pub(super) struct PairMeasures {
    /// Error metrics.
    pub(super) metrics: MetricsAccumulator,
    /// The value histogram's bins.
    pub(super) bins: Bins,
    /// Histogram of the dequantized values: four interleaved counts per bin, and a last bin
    /// for NaN (see [`Bins::count`]).
    pub(super) dequantized: Vec<[u32; 4]>,
    /// Histogram of dequantized − original.
    pub(super) errors: GrowingHistogram,
    /// The error map.
    pub(super) heat: HeatCells,
}

impl PairMeasures {
    /// Measures the pairs of `original` and `approx` (the same length), continuing where the
    /// previous call ended. One pass over the part in runs of [`RUN`] pairs: each run's
    /// histograms and sums are taken while its values are still in the L1 cache.
    pub(super) fn add(&mut self, original: &[f32], approx: &[f32]) {
        let (mut values_at, mut errors_at) = ([0u32; RUN], [0u32; RUN]);
        for (a, b) in original.chunks(RUN).zip(approx.chunks(RUN)) {
            let (values_at, errors_at) = (&mut values_at[..a.len()], &mut errors_at[..a.len()]);
            self.bins.indices(b, values_at);
            if self.errors.fine_bins(a, b, errors_at) {
                self.add_counted_run(a, b, values_at, errors_at);
            } else {
                add_in_lanes(values_at, &mut self.dequantized);
                self.errors.add_differences(a, b);
                let mut at = 0;
                while at < a.len() {
                    let take = (self.heat.block - self.heat.in_block).min(a.len() - at);
                    self.add_in_block(&a[at..at + take], &b[at..at + take]);
                    at += take;
                }
            }
        }
    }

    /// A run whose pairs are all finite and whose errors fit the error histogram's range (see
    /// [`GrowingHistogram::fine_bins`]), with its values' bins and its errors' fine bins. The
    /// values' bins are counted first, four lanes at a time; then one loop over the run counts
    /// the errors and takes the sums, ending the error map's blocks as it goes, so that counting
    /// fills the time the sums spend waiting on their own additions (in wasm this split
    /// measured 7 % faster than counting both in the sums' loop, and 10 % faster than counting
    /// both apart).
    fn add_counted_run(&mut self, a: &[f32], b: &[f32], values_at: &[u32], errors_at: &[u32]) {
        let recent = self.errors.recent_for(a.len());
        add_in_lanes(values_at, &mut self.dequantized);
        let heat = &mut self.heat;
        let (first, block) = (heat.block - heat.in_block, heat.block);
        let mut ended = 0;
        let open = self.metrics.add_finite_blocks(
            a,
            b,
            heat.se,
            (first, block),
            |j| recent[errors_at[j] as usize & (FINE - 1)] += 1,
            |se| {
                let pairs = heat.block - heat.in_block;
                ended += pairs;
                heat.add_pairs(se, pairs, pairs);
            },
        );
        heat.add_pairs(open, a.len() - ended, a.len() - ended);
    }

    /// Empty measures: `bins` for the value histogram, an error map for `n` values in blocks of
    /// `block`.
    pub(super) fn new(bins: Bins, count: usize, n: usize, block: usize) -> Self {
        Self {
            metrics: MetricsAccumulator::default(),
            bins,
            dequantized: vec![[0; 4]; count + 1],
            errors: GrowingHistogram::default(),
            heat: HeatCells::new(n, block),
        }
    }

    /// The value histogram's counts (NaN left out).
    pub(super) fn dequantized_counts(&self) -> Vec<u32> {
        let bins = self.dequantized.len() - 1;
        self.dequantized[..bins]
            .iter()
            .map(|c| c.iter().sum())
            .collect()
    }

    /// The sums of a run that stays within one block of the error map, in order.
    #[inline]
    fn add_in_block(&mut self, original: &[f32], approx: &[f32]) {
        let heat = &mut self.heat;
        if all_finite(original, approx) {
            // The caller keeps the pairs within the block: no block ends inside the call.
            let se = self.metrics.add_finite_blocks(
                original,
                approx,
                heat.se,
                (usize::MAX, usize::MAX),
                |_| {},
                |_| {},
            );
            heat.add_pairs(se, original.len(), original.len());
        } else {
            let (mut se, mut counted) = (heat.se, 0);
            for (a, b) in original.iter().zip(approx) {
                let lane = self.metrics.lane();
                match self.metrics.push_measured(*a, *b) {
                    Some(squared) => {
                        se[lane] += squared;
                        counted += 1;
                    }
                    None => heat.lost |= a.is_finite(),
                }
            }
            heat.add_pairs(se, counted, original.len());
        }
    }
}

/// Pairs per run of [`PairMeasures::add`]: two runs of f32 values fit the L1 cache many times
/// over, and [`Bins::count`] and [`GrowingHistogram::add_differences`] work in runs of this size.
const RUN: usize = 256;

/// Whether every value of both slices is finite, without branching per value (so it
/// vectorizes): the exponent bits of each are not all ones.
#[inline]
fn all_finite(a: &[f32], b: &[f32]) -> bool {
    const EXP: u32 = 0x7f80_0000;
    let finite = |v: &f32| (v.to_bits() & EXP != EXP) as u32;
    a.iter()
        .zip(b)
        .fold(1u32, |all, (a, b)| all & finite(a) & finite(b))
        == 1
}
