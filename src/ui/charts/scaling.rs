//! Per-GPU memory against the number of GPUs (log-log), one line per strategy, with the GPU's
//! capacity: where each strategy starts to fit.

use super::style::{color, err, Scale};
use crate::ui::palette::{Rgb, Theme};
use bitbudget_math::memory::plan::Strategy;
use bitbudget_math::numbers::{format_bytes, Units};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 320;

/// Line colour of the i-th strategy (DDP, ZeRO-1, ZeRO-2, ZeRO-3).
pub fn line_color(i: usize, t: &Theme) -> Rgb {
    [t.muted, t.grid_value, t.mantissa, t.integer][i % 4]
}

/// Draws the lines; `lines` holds (strategy, [(GPUs, bytes per GPU)]).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    lines: &[(Strategy, Vec<(u64, u64)>)],
    capacity: Option<(u64, &str)>,
    units: Units,
    theme: &Theme,
    s: Scale,
) -> Result<(), String> {
    let t = theme;
    root.fill(&color(t.surface)).map_err(err)?;
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
        return root.present().map_err(err);
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
        .build_cartesian_2d((g_lo as f64..g_hi as f64).log_scale(), (lo..hi).log_scale())
        .map_err(err)?;
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
        .draw()
        .map_err(err)?;
    if let Some((c, name)) = capacity {
        let y = c as f64 / units.bytes();
        let danger = color(t.danger);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(g_lo as f64, y), (g_hi as f64, y)],
                color(t.danger).stroke_width(s.stroke(2.0)),
            )))
            .map_err(err)?
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
            .draw_series(LineSeries::new(data.clone(), c.stroke_width(s.stroke(2.0))))
            .map_err(err)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(3)));
        chart
            .draw_series(data.iter().map(|p| Circle::new(*p, s.px(2.5), c.filled())))
            .map_err(err)?;
        if let Some(g) = first_fit {
            let b = pts
                .iter()
                .find(|(x, _)| *x == g)
                .map(|(_, b)| *b as f64 / units.bytes())
                .unwrap_or(lo);
            chart
                .draw_series(std::iter::once(Circle::new(
                    (g as f64, b),
                    s.px(6.0),
                    c.stroke_width(s.stroke(2.0)),
                )))
                .map_err(err)?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(color(t.surface).mix(0.85))
        .border_style(color(t.muted).mix(0.4))
        .label_font(s.font(11.0, t.text))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}
