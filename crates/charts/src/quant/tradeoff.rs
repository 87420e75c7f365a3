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

/// How far above the best scheme under 12 bits the trade-off chart's axis goes, in dB.
const CLIP_DB: f64 = 35.0;

/// SQNR against storage bits per weight for every scheme; the selected one ringed.
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
        (3.5f64..18.0)
            .log_scale()
            .with_key_points(vec![4.0, 5.0, 6.0, 8.0, 12.0, 16.0]),
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
            r.bits_per_weight.clamp(3.6, 17.5),
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
    let char_w = CHAR_EM * 12.0 * s.px(100.0) as f64 / 100.0;
    let labels = place_labels(&named, s.px(5.0), char_w, s.px(14.0), area);
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
