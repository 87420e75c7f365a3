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
    let errors = input.errors;
    root.fill(&color(t.surface))?;
    let (lo, hi, h) = (errors.lo, errors.hi, &errors.counts);
    let top = h.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let width = (hi - lo) as f64 / h.len().max(1) as f64;
    let axes = HistogramAxes {
        caption: "Error (dequantized − original)",
        lo,
        hi,
        top,
        x_labels: 5,
        digits: 2,
    };
    draw_histogram(root, axes, t, s, |chart| {
        chart.draw_series(bars(h, lo, width, color(t.danger).mix(0.6).filled()))?;
        Ok(())
    })
}

crate::chart_calls_draw!(Input<'_>);
