//! The tensor's values: original (bars), dequantized (line) and the levels of the block holding
//! the largest |x| (ticks).

use super::{bars, draw_histogram, HistogramAxes};
use crate::palette::Theme;
use crate::style::{color, Scale};
use crate::{Area, Drawn};
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The tensor's histogram and range.
    pub overview: &'a Overview,
    /// The selected scheme's dequantized histogram (same bins) and levels.
    pub detail: &'a SchemeDetail,
}

/// Original values (bars), dequantized values (line) and the levels of the block holding the
/// largest |x| (ticks).
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    let (overview, detail) = (input.overview, input.detail);
    root.fill(&color(t.surface))?;
    let lo = overview.lo;
    let (h0, h1) = (&overview.histogram, &detail.dequantized);
    let levels = &detail.levels;
    let caption = "Values: original (bars), dequantized (line), one block's levels (ticks)";
    let axes = HistogramAxes::fitting(caption, (lo, overview.hi), &[h0, h1], 6, 3);
    let (top, width) = (axes.top, axes.bin_width(h0.len()));
    draw_histogram(root, axes, t, s, |chart| {
        chart.draw_series(bars(h0, lo, width, color(t.weights).mix(0.55).filled()))?;
        let line = h1
            .iter()
            .enumerate()
            .map(|(i, c)| (lo as f64 + (i as f64 + 0.5) * width, *c as f64));
        chart.draw_series(LineSeries::new(
            line,
            color(t.accent).stroke_width(s.stroke(2.0)),
        ))?;
        chart.draw_series(levels.iter().map(|l| {
            PathElement::new(
                vec![(*l as f64, 0.0), (*l as f64, top * 0.06)],
                color(t.text).stroke_width(s.stroke(1.5)),
            )
        }))?;
        Ok(())
    })
}

crate::chart_calls_draw!(Input<'_>);
