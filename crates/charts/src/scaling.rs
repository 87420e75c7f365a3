//! Per-GPU memory against the number of GPUs (log-log), one line per strategy, with the GPU's
//! capacity: where each strategy starts to fit.

use crate::error::ChartError;
use crate::palette::{Rgb, Theme};
use crate::style::{color, Scale};
use bitbudget_math::memory::plan::SweepLine;
use bitbudget_math::numbers::{format_bytes, Units};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 320;

/// Line colour of the i-th strategy (DDP, ZeRO-1, ZeRO-2, ZeRO-3).
pub fn line_color(i: usize, t: &Theme) -> Rgb {
    [t.muted, t.grid_value, t.mantissa, t.integer][i % 4]
}

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// (strategy, [(GPUs, bytes per GPU)]) lines, as from `bitbudget_math::memory::plan::sweep`.
    pub lines: &'a [SweepLine],
    /// GPU capacity in bytes and the GPU's name, drawn as a line.
    pub capacity: Option<(u64, &'a str)>,
    /// GB or GiB.
    pub units: Units,
}

/// Width of the SVG document in pixels.
pub const SVG_WIDTH: u32 = 720;

/// Draws the lines on log-log axes with a legend; a ring marks the first point of each line at or
/// under the capacity. Draws only the background when there is no positive point.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &Input,
    theme: &Theme,
    s: Scale,
) -> Result<(), ChartError> {
    let t = theme;
    let (lines, capacity, units) = (input.lines, input.capacity, input.units);
    root.fill(&color(t.surface))?;
    let points = lines.iter().flat_map(|(_, p)| p.iter());
    let (mut lo, mut hi, mut g_lo, mut g_hi) = (f64::MAX, 0f64, u64::MAX, 1u64);
    for &(g, b) in points {
        lo = lo.min(b as f64);
        hi = hi.max(b as f64);
        g_lo = g_lo.min(g);
        g_hi = g_hi.max(g);
    }
    if let Some((c, _)) = capacity {
        lo = lo.min(c as f64);
        hi = hi.max(c as f64);
    }
    if hi <= 0.0 || g_lo == u64::MAX {
        return Ok(());
    }
    let (lo, hi) = (
        (lo / 1.6).max(1.0) / units.bytes(),
        hi * 1.6 / units.bytes(),
    );
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(12.0))
        .margin_right(s.px(20.0))
        .x_label_area_size(s.px(34.0))
        .y_label_area_size(s.px(56.0))
        .build_cartesian_2d((g_lo as f64..g_hi as f64).log_scale(), (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("GPUs")
        .y_desc(format!("per GPU ({})", units.label()))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| {
            if *v >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.2}")
            }
        })
        .max_light_lines(1)
        .light_line_style(color(t.muted).mix(0.1))
        .bold_line_style(color(t.muted).mix(0.2))
        .axis_style(color(t.muted))
        .label_style(s.font(11.0, t.muted))
        .axis_desc_style(s.font(11.0, t.muted))
        .draw()?;
    if let Some((c, name)) = capacity {
        let y = c as f64 / units.bytes();
        let danger = color(t.danger);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(g_lo as f64, y), (g_hi as f64, y)],
                color(t.danger).stroke_width(s.stroke(2.0)),
            )))?
            .label(format!("{name} ({})", format_bytes(c, units)))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], danger.stroke_width(3))
            });
    }
    for (i, (strategy, pts)) in lines.iter().enumerate() {
        let c = color(line_color(i, t));
        let data: Vec<(f64, f64)> = pts
            .iter()
            .map(|&(g, b)| (g as f64, (b as f64 / units.bytes()).max(lo)))
            .collect();
        let first_fit =
            capacity.and_then(|(cap, _)| pts.iter().find(|(_, b)| *b <= cap).map(|(g, _)| *g));
        let label = match (capacity, first_fit) {
            (Some(_), Some(g)) => format!("{}: fits from {g} GPUs", strategy.label()),
            (Some(_), None) => format!("{}: never fits", strategy.label()),
            _ => strategy.label(),
        };
        chart
            .draw_series(LineSeries::new(data.clone(), c.stroke_width(s.stroke(2.0))))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(3)));
        chart.draw_series(data.iter().map(|p| Circle::new(*p, s.px(2.5), c.filled())))?;
        if let Some(g) = first_fit {
            let b = pts
                .iter()
                .find(|(x, _)| *x == g)
                .map(|(_, b)| *b as f64 / units.bytes())
                .unwrap_or(lo);
            chart.draw_series(std::iter::once(Circle::new(
                (g as f64, b),
                s.px(6.0),
                c.stroke_width(s.stroke(2.0)),
            )))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(color(t.surface).mix(0.85))
        .border_style(color(t.muted).mix(0.4))
        .label_font(s.font(11.0, t.text))
        .draw()?;
    Ok(())
}

impl crate::Chart for Input<'_> {
    type Output = ();
    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        theme: &Theme,
        scale: Scale,
    ) -> Result<(), ChartError> {
        draw(area, self, theme, scale)
    }
}
