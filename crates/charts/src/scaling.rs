//! Per-GPU memory against the number of GPUs (log-log), one line per strategy, with the GPU's
//! capacity: where each strategy starts to fit.

use crate::legend::{legend_below, LEGEND_PX};
use crate::palette::{Rgb, Theme};
use crate::style::plot_builder;
use crate::style::{color, log_ticks, muted_mesh, Scale, CHAR_EM};
use crate::{Area, Drawn};
use bitbudget_math::memory::plan::SweepLine;
use bitbudget_math::numbers::{format_bytes, Units};
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

/// Draws the lines on log-log axes (ticks at 1, 2, 5 per decade where they fit) with a legend
/// below the plot, never over it; a triangle on the capacity line marks where each line first
/// fits (stacked where several first fit at the same GPU count). Draws only the background when there is no positive point.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
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
    let mut legend: Vec<(String, RGBColor)> = Vec::new();
    if let Some((c, name)) = capacity {
        legend.push((
            format!("{name} ({})", format_bytes(c, units)),
            color(t.danger),
        ));
    }
    for (i, (strategy, pts)) in lines.iter().enumerate() {
        let first_fit =
            capacity.and_then(|(cap, _)| pts.iter().find(|(_, b)| *b <= cap).map(|(g, _)| *g));
        let label = match (capacity, first_fit) {
            (Some(_), Some(g)) => format!("{}: fits from {g} GPUs", strategy.label()),
            (Some(_), None) => format!("{}: never fits", strategy.label()),
            _ => strategy.label(),
        };
        legend.push((label, color(line_color(i, t))));
    }
    let (w, h) = root.dim_in_pixel();
    let plot = legend_below(root, &legend, s, t)?;
    let legend_h = h - plot.dim_in_pixel().1;
    let (x_range, y_range) = (g_lo as f64..g_hi as f64, lo..hi);
    let plot_w = w as i32 - s.px(12.0 + 20.0 + 56.0);
    let plot_h = h as i32 - legend_h as i32 - s.px(24.0 + 34.0);
    // A tick label is at most 5 characters ("1000", "0.50") plus a gap; rows need 2 line heights.
    let x_ticks = log_ticks(
        x_range.start,
        x_range.end,
        (plot_w / s.px(6.0 * LEGEND_PX * CHAR_EM)).max(2) as usize,
    );
    let y_ticks = log_ticks(lo, hi, (plot_h / s.px(2.0 * LEGEND_PX)).max(2) as usize);
    let mut chart = plot_builder(&plot, s, 12.0, 20.0, 34.0, 56.0).build_cartesian_2d(
        x_range.log_scale().with_key_points(x_ticks),
        y_range.log_scale().with_key_points(y_ticks),
    )?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.2, 12.0)
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
        .draw()?;
    if let Some((c, _)) = capacity {
        let y = c as f64 / units.bytes();
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(g_lo as f64, y), (g_hi as f64, y)],
            color(t.danger).stroke_width(s.stroke(2.0)),
        )))?;
    }
    let first_fits: Vec<Option<u64>> = lines
        .iter()
        .map(|(_, pts)| {
            capacity.and_then(|(cap, _)| pts.iter().find(|(_, b)| *b <= cap).map(|(g, _)| *g))
        })
        .collect();
    for (i, (_, pts)) in lines.iter().enumerate() {
        let c = color(line_color(i, t));
        let data: Vec<(f64, f64)> = pts
            .iter()
            .map(|&(g, b)| (g as f64, (b as f64 / units.bytes()).max(lo)))
            .collect();
        chart.draw_series(LineSeries::new(data.clone(), c.stroke_width(s.stroke(2.0))))?;
        chart.draw_series(data.iter().map(|p| Circle::new(*p, s.px(2.5), c.filled())))?;
    }
    // Where each line first fits: a triangle on the GPU's line, stacked upwards where several
    // strategies first fit at the same count (never over one another).
    if let Some((cap, _)) = capacity {
        let y = cap as f64 / units.bytes();
        let (half, tall) = (s.px(6.0), s.px(10.0));
        for (i, (fit, level)) in first_fits.iter().zip(stack_levels(&first_fits)).enumerate() {
            let Some(g) = fit else { continue };
            let base = -(level as i32) * (tall + s.px(2.0)) - s.px(1.0);
            let marker = EmptyElement::at((*g as f64, y))
                + Polygon::new(
                    vec![(-half, base - tall), (half, base - tall), (0, base)],
                    color(line_color(i, t)).filled(),
                );
            chart.plotting_area().draw(&marker)?;
        }
    }
    Ok(())
}

/// For each line's first fitting GPU count (`None`: never fits), how many lines before it first
/// fit at the same count: the level its marker is stacked at.
pub fn stack_levels(first_fits: &[Option<u64>]) -> Vec<usize> {
    first_fits
        .iter()
        .enumerate()
        .map(|(i, fit)| match fit {
            Some(g) => first_fits[..i].iter().filter(|f| **f == Some(*g)).count(),
            None => 0,
        })
        .collect()
}

crate::chart_calls_draw!(Input<'_>);

#[cfg(test)]
mod tests {
    use super::stack_levels;

    #[test]
    fn strategies_that_first_fit_at_the_same_count_stack_their_markers() {
        // DDP never fits; ZeRO-1 and ZeRO-2 from 3 GPUs; ZeRO-3 from 2.
        let levels = stack_levels(&[None, Some(3), Some(3), Some(2)]);
        assert_eq!(levels, vec![0, 0, 1, 0]);
        assert_eq!(stack_levels(&[Some(8), Some(8), Some(8)]), vec![0, 1, 2]);
    }
}
