//! Charts of the Quantize lab: value histograms with the quantization levels, the error
//! histogram, per-block error heat map and the error-vs-bits trade-off of every scheme.

use crate::palette::Theme;
use crate::style::{color, Scale};
use crate::style::{fitted_title, plot_builder};
use crate::{Area, Drawn};
use bitbudget_math::numbers::{format_count, short};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

pub mod errors;
pub mod heatmap;
pub mod tradeoff;
pub mod values;

/// Height of each chart in CSS pixels.
pub const HEIGHT: u32 = 260;

/// An axis tick with `digits` significant digits; a tick within a millionth of the axis `span` of
/// zero (floating-point residue of the tick arithmetic, like -5.55e-17) reads 0.
pub(crate) fn tick(v: f64, span: f64, digits: usize) -> String {
    if v.abs() < span * 1e-6 {
        "0".into()
    } else {
        short(v, digits)
    }
}

impl<'a> HistogramAxes<'a> {
    /// Axes over `lo..hi` tall enough for every series of bin counts in `series`, with 10 %
    /// headroom above the tallest bar (a count axis of at least 1.1 when every count is 0).
    pub fn fitting(
        caption: &'a str,
        (lo, hi): (f32, f32),
        series: &[&[u32]],
        x_labels: usize,
        digits: usize,
    ) -> Self {
        let tallest = series.iter().flat_map(|h| h.iter()).copied().max();
        let top = tallest.unwrap_or(1).max(1) as f64 * 1.1;
        HistogramAxes {
            caption,
            lo,
            hi,
            top,
            x_labels,
            digits,
        }
    }

    /// The width of one of `bins` equal bins spanning the axes' value range.
    pub fn bin_width(&self, bins: usize) -> f64 {
        (self.hi - self.lo) as f64 / bins.max(1) as f64
    }
}

/// A histogram plot's axes: x over the bins' value range `lo..hi` (as the histograms store it),
/// y over bin counts `0..top`.
pub(crate) struct HistogramAxes<'a> {
    /// The caption above the plot, shrunk to fit the width (never below the minimum font size).
    pub caption: &'a str,
    /// Lowest value of the first bin.
    pub lo: f32,
    /// Highest value of the last bin.
    pub hi: f32,
    /// Top of the count axis (the caller leaves headroom above the tallest bar).
    pub top: f64,
    /// About how many x ticks to label.
    pub x_labels: usize,
    /// Significant digits of each x tick (see [`tick`]).
    pub digits: usize,
}

/// A cartesian plot with `f64` value and count axes.
pub(crate) type HistogramChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Titles `root`, draws the value and count axes of `axes` (counts labelled with thousands
/// separators, no grid) and hands the plot to `series` to draw the data.
pub(crate) fn draw_histogram<B: DrawingBackend>(
    root: &Area<B>,
    axes: HistogramAxes,
    t: &Theme,
    s: Scale,
    series: impl FnOnce(&mut HistogramChart<'_, B>) -> Drawn,
) -> Drawn {
    let (caption, lo, hi, digits) = (axes.caption, axes.lo, axes.hi, axes.digits);
    let plot = fitted_title(root, caption, 12.0, t, s)?;
    let mut chart = plot_builder(&plot, s, 10.0, 10.0, 24.0, 44.0)
        .build_cartesian_2d(lo as f64..hi as f64, 0f64..axes.top)?;
    let span = (hi - lo) as f64;
    let fmt = move |v: &f64| tick(*v, span, digits);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(axes.x_labels)
        .y_labels(4)
        .x_label_formatter(&fmt)
        .y_label_formatter(&|v| format_count(v.round().max(0.0) as u64))
        .axis_style(color(t.muted))
        .label_style(s.font(12.0, t.muted))
        .draw()?;
    series(&mut chart)
}

/// One bar per bin of `counts`, each `width` wide, the first starting at `lo`.
pub(crate) fn bars(
    counts: &[u32],
    lo: f32,
    width: f64,
    style: ShapeStyle,
) -> impl Iterator<Item = Rectangle<(f64, f64)>> + '_ {
    counts.iter().enumerate().map(move |(i, c)| {
        let x0 = lo as f64 + i as f64 * width;
        Rectangle::new([(x0, 0.0), (x0 + width, *c as f64)], style)
    })
}
