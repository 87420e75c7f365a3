//! The same setup under every sharding strategy, side by side, against the GPU's capacity.

use crate::palette::Theme;
use crate::style::{color, muted_mesh, vertical_line, Scale};
use crate::{Area, Drawn};
use bitbudget_math::memory::plan::Strategy;
use bitbudget_math::memory::Part;
use bitbudget_math::memory::{Breakdown, MemoryError};
use bitbudget_math::numbers::{format_bytes, Units};
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
    pub bars: &'a [(Strategy, Result<Breakdown, MemoryError>)],
    /// GPU capacity in bytes, drawn as a line.
    pub capacity: Option<u64>,
    /// The strategy currently chosen (outlined, its label in the accent colour).
    pub current: Strategy,
    /// GB or GiB.
    pub units: Units,
    /// Indices into `bars`, top to bottom (as from
    /// `bitbudget_math::memory::step::order::strategy_order`); empty draws `bars` in their order.
    /// Indices out of range are skipped.
    pub order: &'a [usize],
}

/// Width of the SVG document in pixels.
pub const SVG_WIDTH: u32 = 720;

/// Label and total text size in CSS pixels.
const TEXT_PX: f64 = 12.0;

/// Draws one horizontal stacked bar per strategy, top to bottom, its name on the left (the full
/// name when every name fits in a third of the width, else on two lines, else the short one) and its total at its
/// end in `units` (in the danger colour when over capacity; moved past the capacity line when it
/// would cross it). An invalid strategy is left empty after its name. Horizontal bars keep every
/// label on its own row at any width.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    let (capacity, current, units) = (input.capacity, input.current, input.units);
    let ordered: Vec<(Strategy, Result<Breakdown, MemoryError>)> = if input.order.is_empty() {
        input.bars.to_vec()
    } else {
        input
            .order
            .iter()
            .filter_map(|&i| input.bars.get(i).cloned())
            .collect()
    };
    let bars = &ordered[..];
    root.fill(&color(t.surface))?;
    let (w, _) = root.dim_in_pixel();
    // Full names on one line ("ZeRO-3 + full offload") when they fit in a third of the width,
    // else on two lines ("ZeRO-3" over "+ full offload"), else the short names ("Z3+all").
    let full: Vec<Vec<String>> = bars.iter().map(|(st, _)| vec![st.label()]).collect();
    let two_lines: Vec<Vec<String>> = bars
        .iter()
        .map(|(st, _)| match st.label().split_once(" + ") {
            Some((base, rest)) => vec![base.to_string(), format!("+ {rest}")],
            None => vec![st.label()],
        })
        .collect();
    let longest = |names: &[Vec<String>]| {
        names
            .iter()
            .flatten()
            .map(|n| s.text_width(n, TEXT_PX))
            .max()
            .unwrap_or(0)
    };
    let row_h = s.px(HEIGHT as f64 - 54.0) as f64 / bars.len().max(1) as f64;
    let names = if longest(&full) <= w as i32 / 3 {
        full
    } else if longest(&two_lines) <= w as i32 / 3 && row_h >= s.px(2.4 * TEXT_PX) as f64 {
        two_lines
    } else {
        bars.iter().map(|(st, _)| vec![short_label(st)]).collect()
    };
    let max_total = bars
        .iter()
        .filter_map(|(_, b)| b.as_ref().ok().map(|b| b.total))
        .max()
        .unwrap_or(1);
    let widest_total = bars
        .iter()
        .filter_map(|(_, b)| b.as_ref().ok())
        .map(|b| s.text_width(&format_bytes(b.total, units), TEXT_PX))
        .max()
        .unwrap_or(0);
    let n = bars.len() as f64;
    let label_area = longest(&names) + s.px(10.0);
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(12.0))
        // Room after the longest bar or the capacity line for a total.
        .margin_right(widest_total + s.px(16.0))
        .x_label_area_size(s.px(36.0))
        .y_label_area_size(label_area)
        .build_cartesian_2d(
            0f64..(max_total.max(capacity.unwrap_or(0)) as f64 * 1.02).max(1.0) / units.bytes(),
            n..0f64,
        )?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.25, TEXT_PX)
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(5)
        .x_desc(units.label())
        .x_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    let cap_x = capacity.map(|c| chart.backend_coord(&(c as f64 / units.bytes(), 0.0)).0);
    // Backend pixels; `root` may be part of a larger backend.
    let (bx, by) = root.get_base_pixel();
    for (i, ((strategy, result), name)) in bars.iter().zip(&names).enumerate() {
        let (y0, y1) = (i as f64 + 0.2, i as f64 + 0.8);
        let is_current = *strategy == current;
        let (lx, ly) = chart.backend_coord(&(0.0, i as f64 + 0.5));
        let step = s.px(TEXT_PX * 1.2);
        let first = ly - step * (name.len() as i32 - 1) / 2;
        for (k, line) in name.iter().enumerate() {
            root.draw(&Text::new(
                line.clone(),
                (lx - bx - s.px(6.0), first + k as i32 * step - by),
                s.font(TEXT_PX, if is_current { t.accent } else { t.text })
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        let Ok(b) = result else { continue };
        let mut base = 0.0;
        for part in Part::ALL {
            let v = part.line(b).bytes as f64 / units.bytes();
            if v > 0.0 {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(base, y0), (base + v, y1)],
                    color(t.part(part)).filled(),
                )))?;
                base += v;
            }
        }
        if is_current {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(0.0, y0 - 0.08), (base, y1 + 0.08)],
                color(t.accent).stroke_width(s.stroke(2.0)),
            )))?;
        }
        let over = capacity.is_some_and(|c| b.total > c);
        let text = format_bytes(b.total, units).replace(' ', "\u{a0}");
        let (end, y) = chart.backend_coord(&(base, i as f64 + 0.5));
        let mut x = end + s.px(6.0);
        if let Some(c) = cap_x {
            if x <= c + s.px(2.0) && x + s.text_width(&text, TEXT_PX) >= c - s.px(2.0) {
                x = c + s.px(6.0);
            }
        }
        root.draw(&Text::new(
            text,
            (x - bx, y - by),
            s.font(TEXT_PX, if over { t.danger } else { t.text })
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    if let Some(c) = capacity {
        let x = c as f64 / units.bytes();
        let line = vertical_line(x, (0.0, n), t.danger, 2.0, s);
        chart.draw_series(std::iter::once(line))?;
    }
    Ok(())
}

crate::chart_calls_draw!(Input<'_>);
