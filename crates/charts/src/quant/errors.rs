//! The histogram of the quantization error.

use super::tick;
use crate::error::ChartError;
use crate::palette::Theme;
use crate::style::{color, title, Scale};
use bitbudget_math::numbers::format_count;
use bitbudget_math::quant::histogram::Histogram;
use plotters::coord::Shift;
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Histogram of dequantized − original.
    pub errors: &'a Histogram,
}

/// Histogram of dequantized − original.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &Input,
    t: &Theme,
    s: Scale,
) -> Result<(), ChartError> {
    let errors = input.errors;
    root.fill(&color(t.surface))?;
    let (lo, hi, h) = (errors.lo, errors.hi, &errors.counts);
    let top = h.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let width = (hi - lo) as f64 / h.len().max(1) as f64;
    let caption = "Error (dequantized − original)";
    let font = s.caption_font(caption, root.dim_in_pixel().0, 12.0, t.text);
    let plot = title(root, caption, font, s)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(s.px(10.0))
        .x_label_area_size(s.px(24.0))
        .y_label_area_size(s.px(44.0))
        .build_cartesian_2d(lo as f64..hi as f64, 0f64..top)?;
    let span = (hi - lo) as f64;
    let fmt = move |v: &f64| tick(*v, span, 2);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(5)
        .y_labels(4)
        .x_label_formatter(&fmt)
        .y_label_formatter(&|v| format_count(v.round().max(0.0) as u64))
        .axis_style(color(t.muted))
        .label_style(s.font(12.0, t.muted))
        .draw()?;
    chart.draw_series(h.iter().enumerate().map(|(i, c)| {
        let x0 = lo as f64 + i as f64 * width;
        Rectangle::new(
            [(x0, 0.0), (x0 + width, *c as f64)],
            color(t.danger).mix(0.6).filled(),
        )
    }))?;
    Ok(())
}

crate::chart_calls_draw!(Input<'_>);
