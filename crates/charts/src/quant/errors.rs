//! The histogram of the quantization error.

use super::{bars, draw_histogram, HistogramAxes};
use crate::palette::Theme;
use crate::style::{color, Scale};
use crate::{Area, Drawn};
use bitbudget_math::quant::histogram::Histogram;
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Histogram of dequantized − original.
    pub errors: &'a Histogram,
}

/// Histogram of dequantized − original.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let (range, h) = ((input.errors.lo, input.errors.hi), &input.errors.counts);
    let axes = HistogramAxes::fitting("Error (dequantized − original)", range, &[h], 5, 2);
    let width = axes.bin_width(h.len());
    draw_histogram(root, axes, t, s, |chart| {
        chart.draw_series(bars(h, range.0, width, color(t.danger).mix(0.6).filled()))?;
        Ok(())
    })
}

crate::chart_calls_draw!(Input<'_>);
