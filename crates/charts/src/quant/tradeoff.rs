//! Accuracy against storage: every scheme's SQNR against its bits per weight.

use crate::labels::{place_labels, LabelBox};
use crate::palette::Theme;
use crate::style::{color, muted_mesh, Scale, CHAR_EM};
use crate::style::{fitted_title, plot_builder};
use crate::{Area, Drawn};
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::scheme::Scheme;
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Every scheme's result.
    pub rows: &'a [SchemeResult],
    /// The scheme to ring.
    pub selected: Scheme,
}

/// Left end of the bits-per-weight axis: room for Q2_K's 2.625 bits.
const X_MIN: f64 = 2.4;

/// How far above the best scheme under 12 bits the trade-off chart's axis goes, in dB.
const CLIP_DB: f64 = 35.0;

/// Whether no other scheme stores at most as many bits per weight with a higher SQNR (a point
/// on the trade-off's frontier). Only those and the selected scheme are named: with two dozen
/// schemes, naming every point would bury the chart in labels (the table names them all).
fn on_frontier(r: &SchemeResult, all: &[&SchemeResult]) -> bool {
    !all.iter().any(|o| {
        o.bits_per_weight <= r.bits_per_weight
            && o.metrics.sqnr_db > r.metrics.sqnr_db
            && o.scheme != r.scheme
    })
}

/// SQNR against storage bits per weight for every scheme; the selected one ringed, the frontier
/// and the selected one named.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    let (rows, selected) = (input.rows, input.selected);
    root.fill(&color(t.surface))?;
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
    let caption = "Accuracy vs storage: SQNR (dB, higher is better) vs bits per weight";
    let plot = fitted_title(root, caption, 12.0, t, s)?;
    let mut chart = plot_builder(&plot, s, 10.0, 24.0, 44.0, 44.0).build_cartesian_2d(
        (X_MIN..18.0)
            .log_scale()
            .with_key_points(vec![2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0]),
        bottom..top,
    )?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.2, 12.0)
        .x_desc("bits per weight (scales included, log scale)")
        .y_desc("SQNR dB")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    let mut named: Vec<((i32, i32), String)> = Vec::new();
    for r in &finite {
        let clipped = r.metrics.sqnr_db > top;
        let edge = top - (top - bottom) * 0.03;
        let p = (
            r.bits_per_weight.clamp(X_MIN * 1.02, 17.5),
            if clipped { edge } else { r.metrics.sqnr_db },
        );
        let c = if r.scheme == selected {
            color(t.accent)
        } else {
            color(t.grid_value)
        };
        chart.draw_series(std::iter::once(Circle::new(p, s.px(4.0), c.filled())))?;
        if r.scheme == selected {
            chart.draw_series(std::iter::once(Circle::new(
                p,
                s.px(8.0),
                c.stroke_width(s.stroke(2.0)),
            )))?;
        }
        let name = if clipped {
            format!("{} ↑ {:.0} dB", r.scheme.name(), r.metrics.sqnr_db)
        } else {
            r.scheme.name().to_string()
        };
        let keep = r.scheme == selected || on_frontier(r, &finite);
        named.push((
            chart.backend_coord(&p),
            if keep { name } else { String::new() },
        ));
    }
    // The selected scheme's neighbours within a few pixels go unnamed: its label stands for
    // that spot, and a merged list of names would not fit a narrow chart.
    let merge = s.px(5.0);
    if let Some(at) = finite.iter().position(|r| r.scheme == selected) {
        let (sx, sy) = named[at].0;
        for (k, ((x, y), name)) in named.iter_mut().enumerate() {
            if k != at && (*x - sx).abs() <= 3 * merge && (*y - sy).abs() <= 3 * merge {
                name.clear();
            }
        }
    }
    let named: Vec<((i32, i32), &str)> = named.iter().map(|(p, n)| (*p, n.as_str())).collect();
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let area = LabelBox {
        x: xs.start,
        y: ys.start,
        w: xs.end - xs.start,
        h: ys.end - ys.start,
    };
    let char_w = CHAR_EM * 12.0 * s.px(100.0) as f64 / 100.0;
    let labels = place_labels(&named, merge, char_w, s.px(14.0), area);
    // Label boxes are in backend pixels; `root` may be part of a larger backend (a composed SVG).
    let (bx, by) = root.get_base_pixel();
    for label in labels {
        if let Some(line) = label.leader {
            root.draw(&PathElement::new(
                line.iter()
                    .map(|(x, y)| (x - bx, y - by))
                    .collect::<Vec<_>>(),
                color(t.muted).stroke_width(s.stroke(1.0)),
            ))?;
        }
        root.draw(&Text::new(
            label.text,
            (label.at.x - bx, label.at.y - by),
            s.font(12.0, t.text),
        ))?;
    }
    Ok(())
}

crate::chart_calls_draw!(Input<'_>);
