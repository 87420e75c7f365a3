//! Gradient magnitudes on a log₂ axis against what FP16 can hold under a loss scale: the
//! smallest subnormal and the largest finite value, divided by the scale.

use crate::palette::Theme;
use crate::quant::{bars, draw_histogram, HistogramAxes};
use crate::style::{color, vertical_line, Scale};
use crate::{Area, Drawn};
use plotters::prelude::*;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 260;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Counts per one-unit bin of log₂|g| (as from `bitbudget_math::learn::loss_scale::log2_histogram`).
    pub counts: &'a [u32],
    /// log₂ of the first bin's lower edge.
    pub lo: i32,
    /// log₂ of the smallest magnitude FP16 keeps under the loss scale.
    pub keep_from: f64,
    /// log₂ of the largest magnitude FP16 keeps under the loss scale.
    pub keep_to: f64,
}

/// Bars of the gradient magnitudes, and two danger-coloured lines where FP16 (scaled) starts
/// and stops keeping them.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let (lo, hi) = (
        input.lo as f32,
        (input.lo + input.counts.len() as i32) as f32,
    );
    let caption = "log₂ |gradient|: bars; FP16's range under the loss scale: lines";
    let axes = HistogramAxes::fitting(caption, (lo, hi), &[input.counts], 8, 3);
    let top = axes.top;
    draw_histogram(root, axes, t, s, |chart| {
        chart.draw_series(bars(
            input.counts,
            lo,
            1.0,
            color(t.gradients).mix(0.7).filled(),
        ))?;
        for x in [input.keep_from, input.keep_to] {
            if (lo as f64..=hi as f64).contains(&x) {
                let line = vertical_line(x, (0.0, top), t.danger, 2.0, s);
                chart.draw_series(std::iter::once(line))?;
            }
        }
        Ok(())
    })
}

crate::chart_calls_draw!(Input<'_>);
