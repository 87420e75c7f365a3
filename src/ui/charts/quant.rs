//! Charts of the Quantize lab: value histograms with the quantization levels, the error
//! histogram, per-block error heat map and the error-vs-bits trade-off of every scheme.

use super::labels::{place_labels, LabelBox};
use super::style::{color, err, Scale};
use crate::ui::palette::Theme;
use bitbudget_math::numbers::format_count;
use bitbudget_math::numbers::short;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::histogram::Histogram;
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use bitbudget_math::quant::scheme::Scheme;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Height of each chart in CSS pixels.
pub const HEIGHT: u32 = 260;

/// Original values (bars), dequantized values (line) and the levels of the block holding the
/// largest |x| (ticks).
pub fn draw_histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    overview: &Overview,
    detail: &SchemeDetail,
    t: &Theme,
    s: Scale,
) -> Result<(), String> {
    root.fill(&color(t.surface)).map_err(err)?;
    let (lo, hi) = (overview.lo, overview.hi);
    let (h0, h1) = (&overview.histogram, &detail.dequantized);
    let levels = &detail.levels;
    let top = h0
        .iter()
        .chain(h1.iter())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1) as f64
        * 1.1;
    let width = (hi - lo) as f64 / h0.len().max(1) as f64;
    let title = "Values: original (bars), dequantized (line), one block's levels (ticks)";
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(10.0))
        .x_label_area_size(s.px(24.0))
        .y_label_area_size(s.px(44.0))
        .caption(
            title,
            s.caption_font(title, root.dim_in_pixel().0, 12.0, t.text),
        )
        .build_cartesian_2d(lo as f64..hi as f64, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(6)
        .y_labels(4)
        .x_label_formatter(&|v| tick(*v, (hi - lo) as f64, 3))
        .y_label_formatter(&|v| format_count(v.round().max(0.0) as u64))
        .axis_style(color(t.muted))
        .label_style(s.font(10.5, t.muted))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(h0.iter().enumerate().map(|(i, c)| {
            let x0 = lo as f64 + i as f64 * width;
            Rectangle::new(
                [(x0, 0.0), (x0 + width, *c as f64)],
                color(t.weights).mix(0.55).filled(),
            )
        }))
        .map_err(err)?;
    let line = h1
        .iter()
        .enumerate()
        .map(|(i, c)| (lo as f64 + (i as f64 + 0.5) * width, *c as f64));
    chart
        .draw_series(LineSeries::new(
            line,
            color(t.accent).stroke_width(s.stroke(2.0)),
        ))
        .map_err(err)?;
    chart
        .draw_series(levels.iter().map(|l| {
            PathElement::new(
                vec![(*l as f64, 0.0), (*l as f64, top * 0.06)],
                color(t.text).stroke_width(s.stroke(1.5)),
            )
        }))
        .map_err(err)?;
    root.present().map_err(err)
}

/// Histogram of dequantized − original.
pub fn draw_error_histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    errors: &Histogram,
    t: &Theme,
    s: Scale,
) -> Result<(), String> {
    root.fill(&color(t.surface)).map_err(err)?;
    let (lo, hi, h) = (errors.lo, errors.hi, &errors.counts);
    let top = h.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let width = (hi - lo) as f64 / h.len().max(1) as f64;
    let title = "Error (dequantized − original)";
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(10.0))
        .x_label_area_size(s.px(24.0))
        .y_label_area_size(s.px(44.0))
        .caption(
            title,
            s.caption_font(title, root.dim_in_pixel().0, 12.0, t.text),
        )
        .build_cartesian_2d(lo as f64..hi as f64, 0f64..top)
        .map_err(err)?;
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
        .label_style(s.font(10.5, t.muted))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(h.iter().enumerate().map(|(i, c)| {
            let x0 = lo as f64 + i as f64 * width;
            Rectangle::new(
                [(x0, 0.0), (x0 + width, *c as f64)],
                color(t.danger).mix(0.6).filled(),
            )
        }))
        .map_err(err)?;
    root.present().map_err(err)
}

/// An axis tick with `digits` significant digits; a tick within a millionth of the axis `span` of
/// zero (floating-point residue of the tick arithmetic, like -5.55e-17) reads 0.
fn tick(v: f64, span: f64, digits: usize) -> String {
    if v.abs() < span * 1e-6 {
        "0".into()
    } else {
        short(v, digits)
    }
}

/// Per-block RMSE as a heat map, row by row from the top left, twice as many cells across as down
/// (darker = larger error; when there are more blocks than cells, each cell is its worst block).
pub fn draw_heatmap<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    detail: &SchemeDetail,
    t: &Theme,
    s: Scale,
) -> Result<(), String> {
    root.fill(&color(t.surface)).map_err(err)?;
    let rmse = &detail.heat;
    let per_row = ((rmse.len() as f64).sqrt().ceil() as usize * 2).max(1);
    let rows = rmse.len().div_ceil(per_row).max(1);
    // The scale comes from the finite errors; an infinite one (a lost block) is drawn darkest.
    let max = rmse
        .iter()
        .copied()
        .filter(|e| e.is_finite())
        .fold(0f32, f32::max)
        .max(f32::MIN_POSITIVE);
    let darkest = short(max as f64, 3);
    let what = match detail.blocks_per_cell {
        1 => format!("RMSE per {}-value block", detail.heat_block),
        k => format!("worst RMSE of {k} blocks of {}", detail.heat_block),
    };
    let title = if rmse.iter().any(|e| e.is_infinite()) {
        format!("Error map ({what}; darkest = {darkest} or ∞)")
    } else {
        format!("Error map ({what}; darkest = {darkest})")
    };
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(10.0))
        .caption(
            &title,
            s.caption_font(&title, root.dim_in_pixel().0, 12.0, t.text),
        )
        // Rows run downwards, so the first block is at the top left.
        .build_cartesian_2d(0f64..per_row as f64, rows as f64..0f64)
        .map_err(err)?;
    let hot = color(t.danger);
    let cold = color(t.surface);
    chart
        .draw_series(rmse.iter().enumerate().map(|(i, e)| {
            let (r, c) = ((i / per_row) as f64, (i % per_row) as f64);
            let k = if e.is_nan() {
                0.0
            } else {
                (e / max).clamp(0.0, 1.0) as f64
            };
            let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * k).round() as u8;
            let fill = RGBColor(mix(cold.0, hot.0), mix(cold.1, hot.1), mix(cold.2, hot.2));
            Rectangle::new([(c, r), (c + 1.0, r + 1.0)], fill.filled())
        }))
        .map_err(err)?;
    root.present().map_err(err)
}

/// How far above the best scheme under 12 bits the trade-off chart's axis goes, in dB.
const CLIP_DB: f64 = 35.0;

/// SQNR against storage bits per weight for every scheme; the selected one ringed.
pub fn draw_tradeoff<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[SchemeResult],
    selected: Scheme,
    t: &Theme,
    s: Scale,
) -> Result<(), String> {
    root.fill(&color(t.surface)).map_err(err)?;
    let finite: Vec<&SchemeResult> = rows
        .iter()
        .filter(|r| r.metrics.sqnr_db.is_finite())
        .collect();
    // A 16-bit cast of a 16-bit tensor can sit 100 dB above everything else; the axis stops
    // CLIP_DB above the best sub-12-bit scheme and such points are drawn on its top edge.
    let limit = finite
        .iter()
        .filter(|r| r.bits_per_weight < 12.0)
        .map(|r| r.metrics.sqnr_db)
        .fold(10.0, f64::max)
        + CLIP_DB;
    let highest = finite
        .iter()
        .map(|r| r.metrics.sqnr_db)
        .fold(10.0, f64::max);
    let top = if highest > limit {
        limit
    } else {
        highest * 1.15
    };
    let bottom = finite
        .iter()
        .map(|r| r.metrics.sqnr_db)
        .fold(top, f64::min)
        .min(0.0);
    let title = "Accuracy vs storage: SQNR (dB, higher is better) vs bits per weight";
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(10.0))
        .margin_right(s.px(24.0))
        .x_label_area_size(s.px(30.0))
        .y_label_area_size(s.px(44.0))
        .caption(
            title,
            s.caption_font(title, root.dim_in_pixel().0, 12.0, t.text),
        )
        .build_cartesian_2d(
            (3.5f64..18.0)
                .log_scale()
                .with_key_points(vec![4.0, 5.0, 6.0, 8.0, 12.0, 16.0]),
            bottom..top,
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("bits per weight (scales included, log scale)")
        .y_desc("SQNR dB")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .max_light_lines(1)
        .light_line_style(color(t.muted).mix(0.1))
        .bold_line_style(color(t.muted).mix(0.2))
        .axis_style(color(t.muted))
        .label_style(s.font(10.5, t.muted))
        .axis_desc_style(s.font(10.5, t.muted))
        .draw()
        .map_err(err)?;
    let mut named: Vec<((i32, i32), String)> = Vec::new();
    for r in &finite {
        let clipped = r.metrics.sqnr_db > top;
        let edge = top - (top - bottom) * 0.03;
        let p = (
            r.bits_per_weight.clamp(3.6, 17.5),
            if clipped { edge } else { r.metrics.sqnr_db },
        );
        let c = if r.scheme == selected {
            color(t.accent)
        } else {
            color(t.grid_value)
        };
        chart
            .draw_series(std::iter::once(Circle::new(p, s.px(4.0), c.filled())))
            .map_err(err)?;
        if r.scheme == selected {
            chart
                .draw_series(std::iter::once(Circle::new(
                    p,
                    s.px(8.0),
                    c.stroke_width(s.stroke(2.0)),
                )))
                .map_err(err)?;
        }
        let name = if clipped {
            format!("{} ↑ {:.0} dB", r.scheme.name(), r.metrics.sqnr_db)
        } else {
            r.scheme.name().to_string()
        };
        named.push((chart.backend_coord(&p), name));
    }
    let named: Vec<((i32, i32), &str)> = named.iter().map(|(p, n)| (*p, n.as_str())).collect();
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let area = LabelBox {
        x: xs.start,
        y: ys.start,
        w: xs.end - xs.start,
        h: ys.end - ys.start,
    };
    let labels = place_labels(&named, s.px(5.0), 5.9 * s.0, s.px(12.0), area);
    for label in labels {
        if let Some(line) = label.leader {
            root.draw(&PathElement::new(
                line.to_vec(),
                color(t.muted).stroke_width(s.stroke(1.0)),
            ))
            .map_err(err)?;
        }
        root.draw(&Text::new(
            label.text,
            (label.at.x, label.at.y),
            s.font(10.5, t.text),
        ))
        .map_err(err)?;
    }
    root.present().map_err(err)
}
