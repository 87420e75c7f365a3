//! The same setup under every sharding strategy, side by side, against the GPU's capacity.

use crate::error::ChartError;
use crate::palette::Theme;
use crate::style::{color, Scale};
use bitbudget_math::memory::plan::Strategy;
use bitbudget_math::memory::Breakdown;
use bitbudget_math::memory::Part;
use bitbudget_math::numbers::{format_bytes, Units};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Height in CSS pixels.
pub const HEIGHT: u32 = 320;

/// Short bar label for a strategy.
pub fn short_label(s: &Strategy) -> String {
    s.label()
        .replace("ZeRO-", "Z")
        .replace(" + opt offload", "+off")
        .replace(" + full offload", "+all")
}

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Each strategy's breakdown, or why the setup is invalid under it (as from
    /// `bitbudget_math::memory::plan::by_strategy`).
    pub bars: &'a [(Strategy, Result<Breakdown, String>)],
    /// GPU capacity in bytes, drawn as a line.
    pub capacity: Option<u64>,
    /// The strategy currently chosen (outlined, its label in the accent colour).
    pub current: Strategy,
    /// GB or GiB.
    pub units: Units,
}

/// Width of the SVG document in pixels.
pub const SVG_WIDTH: u32 = 720;

/// Draws one stacked bar per strategy (an invalid one is left empty under its label), totals above
/// the bars in `units` (in the danger colour when over capacity).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &Input,
    theme: &Theme,
    s: Scale,
) -> Result<(), ChartError> {
    let t = theme;
    let (bars, capacity, current, units) = (input.bars, input.capacity, input.current, input.units);
    root.fill(&color(t.surface))?;
    let max_total = bars
        .iter()
        .filter_map(|(_, b)| b.as_ref().ok().map(|b| b.total))
        .max()
        .unwrap_or(1);
    let top = (max_total.max(capacity.unwrap_or(0)) as f64 * 1.15).max(1.0) / units.bytes();
    let n = bars.len() as f64;
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(12.0))
        .x_label_area_size(s.px(24.0))
        .y_label_area_size(s.px(52.0))
        .build_cartesian_2d(0f64..n, 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(5)
        .y_desc(units.label())
        .y_label_formatter(&|v| format!("{v:.0}"))
        .max_light_lines(1)
        .light_line_style(color(t.muted).mix(0.1))
        .bold_line_style(color(t.muted).mix(0.25))
        .axis_style(color(t.muted))
        .label_style(s.font(11.0, t.muted))
        .axis_desc_style(s.font(11.0, t.muted))
        .draw()?;
    for (i, (strategy, result)) in bars.iter().enumerate() {
        let (x0, x1) = (i as f64 + 0.18, i as f64 + 0.82);
        let label_style = s
            .font(
                11.0,
                if *strategy == current {
                    t.accent
                } else {
                    t.text
                },
            )
            .pos(Pos::new(HPos::Center, VPos::Top));
        chart.draw_series(std::iter::once(Text::new(
            short_label(strategy),
            (i as f64 + 0.5, 0.0),
            label_style,
        )))?;
        let Ok(b) = result else { continue };
        let mut base = 0.0;
        for part in Part::ALL {
            let h = part.line(b).bytes as f64 / units.bytes();
            if h > 0.0 {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, base), (x1, base + h)],
                    color(t.part(part)).filled(),
                )))?;
                base += h;
            }
        }
        if *strategy == current {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0 - 0.06, 0.0), (x1 + 0.06, base)],
                color(t.accent).stroke_width(s.stroke(2.0)),
            )))?;
        }
        let over = capacity.is_some_and(|c| b.total > c);
        let total_style = s
            .font(10.5, if over { t.danger } else { t.text })
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        chart.draw_series(std::iter::once(Text::new(
            format_bytes(b.total, units).replace(' ', "\u{a0}"),
            (i as f64 + 0.5, base),
            total_style,
        )))?;
    }
    if let Some(c) = capacity {
        let y = c as f64 / units.bytes();
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, y), (n, y)],
            color(t.danger).stroke_width(s.stroke(2.0)),
        )))?;
    }
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
