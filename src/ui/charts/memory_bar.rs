//! One GPU's memory as a stacked bar: each part labelled with its size, the GPU's capacity as a
//! line, and whatever does not fit hatched.

use super::style::{color, err, hatch_lines, Scale};
use crate::ui::palette::Theme;
use bitbudget_math::memory::Breakdown;
use bitbudget_math::memory::Part;
use bitbudget_math::numbers::{format_bytes, Units};
use plotters::coord::Shift;
use plotters::prelude::*;

/// What to draw.
pub struct BarInput<'a> {
    /// The breakdown.
    pub breakdown: &'a Breakdown,
    /// GPU capacity in bytes and the GPU's name.
    pub capacity: Option<(u64, &'a str)>,
    /// GB or GiB.
    pub units: Units,
    /// Colours.
    pub theme: Theme,
    /// Device pixel ratio.
    pub scale: Scale,
    /// The part to emphasise.
    pub highlight: Option<Part>,
}

/// Where a part was drawn, in backend pixels (for pointer hit-testing).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// The part.
    pub part: Part,
    /// Top edge.
    pub top: i32,
    /// Bottom edge.
    pub bottom: i32,
}

/// Height in CSS pixels.
pub const HEIGHT: u32 = 420;

/// Draws the bar; returns where each part landed.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &BarInput,
) -> Result<Vec<Hit>, String> {
    let (t, s, u) = (&input.theme, input.scale, input.units);
    root.fill(&color(t.surface)).map_err(err)?;
    let b = input.breakdown;
    let cap = input.capacity.map(|c| c.0).unwrap_or(0);
    let top = (b.total.max(cap) as f64 * 1.12).max(1.0) / u.bytes();
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(12.0))
        .y_label_area_size(s.px(52.0))
        .build_cartesian_2d(0f64..1f64, 0f64..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_axis()
        .disable_x_mesh()
        .y_labels(6)
        .y_desc(u.label())
        .y_label_formatter(&|v| format!("{v:.0}"))
        .max_light_lines(1)
        .light_line_style(color(t.muted).mix(0.1))
        .bold_line_style(color(t.muted).mix(0.25))
        .axis_style(color(t.muted))
        .label_style(s.font(11.0, t.muted))
        .axis_desc_style(s.font(11.0, t.muted))
        .draw()
        .map_err(err)?;
    let (x0, x1) = (0.04, 0.42);
    let mut hits = Vec::new();
    let mut base = 0f64;
    for part in Part::ALL {
        let bytes = part.line(b).bytes;
        if bytes == 0 {
            continue;
        }
        let h = bytes as f64 / u.bytes();
        let alpha = match input.highlight {
            Some(p) if p != part => 0.45,
            _ => 1.0,
        };
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, base), (x1, base + h)],
                color(t.part(part)).mix(alpha).filled(),
            )))
            .map_err(err)?;
        let (_, y_top) = chart.backend_coord(&(x0, base + h));
        let (_, y_bottom) = chart.backend_coord(&(x0, base));
        hits.push(Hit {
            part,
            top: y_top,
            bottom: y_bottom,
        });
        if y_bottom - y_top >= s.px(13.0) {
            let label = format!("{} {}", part.label(), format_bytes(bytes, u));
            let weight = if input.highlight == Some(part) {
                13.0
            } else {
                12.0
            };
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (x1 + 0.03, base + h / 2.0),
                    s.font(weight, t.text)
                        .pos(plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Left,
                            plotters::style::text_anchor::VPos::Center,
                        )),
                )))
                .map_err(err)?;
        }
        base += h;
    }
    if let Some((capacity, name)) = input.capacity {
        let c = capacity as f64 / u.bytes();
        if b.total > capacity {
            let (px0, py0) = chart.backend_coord(&(x0, base));
            let (px1, py1) = chart.backend_coord(&(x1, c));
            for [a, z] in hatch_lines(px0, py0, px1, py1, s.px(7.0)) {
                root.draw(&PathElement::new(
                    vec![a, z],
                    color(t.danger).stroke_width(s.stroke(1.5)),
                ))
                .map_err(err)?;
            }
        }
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, c), (1.0, c)],
                color(t.danger).stroke_width(s.stroke(2.0)),
            )))
            .map_err(err)?;
        let text = format!("{name}: {}", format_bytes(capacity, u));
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (0.5, c),
                s.font(11.0, t.danger)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Bottom,
                    )),
            )))
            .map_err(err)?;
    }
    let total = format!("total {}", format_bytes(b.total, u));
    chart
        .draw_series(std::iter::once(Text::new(
            total,
            (x0, base),
            s.font(12.0, t.text)
                .pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Bottom,
                )),
        )))
        .map_err(err)?;
    root.present().map_err(err)?;
    Ok(hits)
}
