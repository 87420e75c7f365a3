//! One GPU's memory as a stacked bar: each part labelled with its size, the GPU's capacity as a
//! line, and whatever does not fit hatched. A bar many times the GPU (eager attention at a long
//! sequence) is cut at [`OFF_SCALE`] × the capacity with a break across it, so that the capacity
//! and the smaller parts stay readable.

use crate::palette::Theme;
use crate::style::{color, hatch_lines, muted_mesh, Scale};
use crate::{Area, Drawn};
use bitbudget_math::memory::Breakdown;
use bitbudget_math::memory::Part;
use bitbudget_math::numbers::{format_bytes, Units};
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The breakdown of one GPU's memory.
    pub breakdown: &'a Breakdown,
    /// GPU capacity in bytes and the GPU's name, drawn as a line (what exceeds it is hatched).
    pub capacity: Option<(u64, &'a str)>,
    /// GB or GiB, for the axis and the labels.
    pub units: Units,
    /// The part to emphasise (the others are drawn faded); `None` draws all alike.
    pub highlight: Option<Part>,
}

/// Every part's [`Hit`], bottom to top, as [`draw`] returns them.
pub type Hits = Vec<Hit>;

/// Where a part was drawn, in backend pixels (for pointer hit-testing).
pub type Hit = crate::SegmentHit<Part>;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 420;

/// Width of the SVG document in pixels.
pub const SVG_WIDTH: u32 = 720;

/// A bar taller than this many times the GPU's capacity is cut at that height (its total is still
/// written, "off the scale").
pub const OFF_SCALE: u64 = 4;

/// Draws the bar, axis in `input.units`, parts in [`Part::ALL`] order from the bottom (a part of
/// 0 bytes is skipped; a label is written only where the segment is at least 13 CSS pixels tall;
/// above [`OFF_SCALE`] × the capacity the bar is cut, and a part entirely above the cut is not
/// drawn); returns where each drawn part landed, in backend pixels.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn<Hits> {
    let u = input.units;
    root.fill(&color(t.surface))?;
    let b = input.breakdown;
    let cap = input.capacity.map(|c| c.0).unwrap_or(0);
    let off_scale = cap > 0 && b.total > OFF_SCALE.saturating_mul(cap);
    let shown_bytes = if off_scale { OFF_SCALE * cap } else { b.total };
    let ceiling = shown_bytes as f64 / u.bytes();
    let top = (shown_bytes.max(cap) as f64 * 1.12).max(1.0) / u.bytes();
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(12.0))
        .y_label_area_size(s.px(52.0))
        .build_cartesian_2d(0f64..1f64, 0f64..top)?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.25, 12.0)
        .disable_x_axis()
        .disable_x_mesh()
        .y_labels(6)
        .y_desc(u.label())
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    // On a phone the bar is narrower so that the labels beside it fit.
    let narrow = s.css(root.dim_in_pixel().0) < 560.0;
    let (x0, x1) = (0.04, if narrow { 0.3 } else { 0.42 });
    let mut hits = Vec::new();
    // Boxes of the labels drawn so far (left, top, right, bottom in backend pixels).
    let mut taken: Vec<(i32, i32, i32, i32)> = Vec::new();
    let mut base = 0f64;
    for part in Part::ALL {
        let bytes = part.line(b).bytes;
        if bytes == 0 {
            continue;
        }
        let full_h = bytes as f64 / u.bytes();
        if base >= ceiling {
            break;
        }
        // Cut at the ceiling; `base` still moves by the whole part below.
        let h = full_h.min(ceiling - base);
        let alpha = match input.highlight {
            Some(p) if p != part => 0.45,
            _ => 1.0,
        };
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x0, base), (x1, base + h)],
            color(t.part(part)).mix(alpha).filled(),
        )))?;
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
            let (lx, ly) = chart.backend_coord(&(x1 + 0.03, base + h / 2.0));
            let half = s.px(weight / 2.0);
            taken.push((lx, ly - half, lx + s.text_width(&label, weight), ly + half));
            chart.draw_series(std::iter::once(Text::new(
                label,
                (x1 + 0.03, base + h / 2.0),
                s.font(weight, t.text)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Center,
                    )),
            )))?;
        }
        base += full_h;
    }
    let drawn_top = base.min(ceiling);
    if off_scale {
        let (left, y) = chart.backend_coord(&(x0, ceiling));
        let (right, _) = chart.backend_coord(&(x1, ceiling));
        draw_break(root, (left, right), y, t, s)?;
    }
    if let Some((capacity, name)) = input.capacity {
        let c = capacity as f64 / u.bytes();
        if b.total > capacity {
            let (px0, py0) = chart.backend_coord(&(x0, drawn_top));
            let (px1, py1) = chart.backend_coord(&(x1, c));
            // Backend pixels; `root` may be part of a larger backend.
            let (bx, by) = root.get_base_pixel();
            for [a, z] in hatch_lines(px0, py0, px1, py1, s.px(7.0)) {
                root.draw(&PathElement::new(
                    vec![(a.0 - bx, a.1 - by), (z.0 - bx, z.1 - by)],
                    color(t.danger).stroke_width(s.stroke(1.5)),
                ))?;
            }
        }
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, c), (1.0, c)],
            color(t.danger).stroke_width(s.stroke(2.0)),
        )))?;
        // Right-aligned at the plot's right edge, just above the line, or below it, or a row
        // further away, whichever first clears the parts' labels and the total. Where the one
        // line would reach the bar (a long GPU name on a phone), the name goes above the size.
        let (right, line_y) = chart.backend_coord(&(1.0, c));
        let (bar_right, _) = chart.backend_coord(&(x1, c));
        let (th, gap) = (s.px(12.0), s.px(2.0));
        let size = format_bytes(capacity, u);
        let one_line = format!("{name}: {size}");
        let lines = if s.text_width(&one_line, 12.0) <= right - bar_right - 2 * gap {
            vec![one_line]
        } else {
            vec![format!("{name}:"), size]
        };
        let tw = lines
            .iter()
            .map(|l| s.text_width(l, 12.0))
            .max()
            .unwrap_or(0);
        let row = th + gap;
        let height = lines.len() as i32 * row - gap;
        let (_, total_y) = chart.backend_coord(&(x0, drawn_top));
        let total_box = (
            chart.backend_coord(&(x0, drawn_top)).0,
            total_y - th - gap,
            chart.backend_coord(&(x0, drawn_top)).0
                + s.text_width("total 0000.00 GB, off the scale", 12.0),
            total_y,
        );
        taken.push(total_box);
        let free = |top: i32| {
            let b = (right - tw, top, right, top + height);
            !taken
                .iter()
                .any(|o| b.0 < o.2 && o.0 < b.2 && b.1 < o.3 && o.1 < b.3)
        };
        let above = line_y - gap - height;
        let below = line_y + 2 * gap;
        let step = height + gap;
        let top = [
            above,
            below,
            above - step,
            below + step,
            above - 2 * step,
            below + 2 * step,
        ]
        .into_iter()
        .find(|&y| free(y) && y >= 0 && y + height <= root.dim_in_pixel().1 as i32)
        .unwrap_or(above);
        let (bx, by) = root.get_base_pixel();
        for (i, line) in lines.into_iter().enumerate() {
            root.draw(&Text::new(
                line,
                (right - bx, top + i as i32 * row - by),
                s.font(12.0, t.danger)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Right,
                        plotters::style::text_anchor::VPos::Top,
                    )),
            ))?;
        }
    }
    let total = format!(
        "total {}{}",
        format_bytes(b.total, u),
        if off_scale { ", off the scale" } else { "" }
    );
    chart.draw_series(std::iter::once(Text::new(
        total,
        (x0, drawn_top),
        s.font(12.0, t.text)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Bottom,
            )),
    )))?;
    Ok(hits)
}

/// The break across a cut bar (its left and right edges and its top, in backend pixels): a band
/// of the background, zigzagged, a little below the top.
fn draw_break<B: DrawingBackend>(
    root: &Area<B>,
    (left, right): (i32, i32),
    y: i32,
    t: &Theme,
    s: Scale,
) -> Drawn {
    let (bx, by) = root.get_base_pixel();
    let (step, amp) = (s.px(8.0).max(2), s.px(3.0));
    let y = y + s.px(12.0);
    let zigzag: Vec<(i32, i32)> = (0..)
        .map(|i| left - s.px(2.0) + i * step)
        .take_while(|x| *x <= right + step)
        .enumerate()
        .map(|(i, x)| {
            (
                x.min(right + s.px(2.0)) - bx,
                y + if i % 2 == 0 { -amp } else { amp } - by,
            )
        })
        .collect();
    root.draw(&PathElement::new(
        zigzag,
        color(t.surface).stroke_width(s.stroke(5.0)),
    ))?;
    Ok(())
}

crate::chart_calls_draw!(Input<'_> => Vec<Hit>);
