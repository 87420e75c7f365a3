//! A legend of line charts, in rows below the plot (never over the data): a line swatch in the
//! series' colour, then its name; as many entries per row as fit the width.

use crate::palette::Theme;
use crate::style::Scale;
use crate::{Area, Drawn};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Legend text size in CSS pixels.
pub const LEGEND_PX: f64 = 12.0;

/// Draws `legend` (name and colour of each series) in rows at the bottom of `root` and returns
/// the area above it, for the plot.
pub fn legend_below<B: DrawingBackend>(
    root: &Area<B>,
    legend: &[(String, RGBColor)],
    s: Scale,
    t: &Theme,
) -> Drawn<Area<B>> {
    let (w, h) = root.dim_in_pixel();
    let rows = legend_rows(legend, w, s);
    let row_h = s.px(LEGEND_PX * 1.5);
    let legend_h = rows.len() as u32 * row_h as u32 + s.px(6.0) as u32;
    let (plot, below) = root.split_vertically(h.saturating_sub(legend_h));
    draw_rows(&below, legend, &rows, s, t)?;
    Ok(plot)
}

/// Width in device pixels of one legend entry: swatch, gap, text, gap to the next entry.
fn entry_width(text: &str, s: Scale) -> i32 {
    s.px(16.0 + 6.0) + s.text_width(text, LEGEND_PX) + s.px(18.0)
}

/// The legend's entries (indices into `legend`) row by row, as many per row as fit in `width`
/// device pixels less the margins.
fn legend_rows(legend: &[(String, RGBColor)], width: u32, s: Scale) -> Vec<Vec<usize>> {
    let room = width as i32 - 2 * s.px(12.0);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for (i, (text, _)) in legend.iter().enumerate() {
        let w = entry_width(text, s);
        match rows.last_mut() {
            Some(row) if used + w <= room => {
                row.push(i);
                used += w;
            }
            _ => {
                rows.push(vec![i]);
                used = w;
            }
        }
    }
    rows
}

/// Draws the legend's rows into `area` (below the plot): a line swatch, then the text.
fn draw_rows<B: DrawingBackend>(
    area: &Area<B>,
    legend: &[(String, RGBColor)],
    rows: &[Vec<usize>],
    s: Scale,
    t: &Theme,
) -> Drawn {
    let row_h = s.px(LEGEND_PX * 1.5);
    for (r, row) in rows.iter().enumerate() {
        let y = s.px(3.0) + r as i32 * row_h + row_h / 2;
        let mut x = s.px(12.0);
        for &i in row {
            let (text, c) = &legend[i];
            area.draw(&PathElement::new(
                vec![(x, y), (x + s.px(16.0), y)],
                c.stroke_width(s.stroke(3.0)),
            ))?;
            area.draw(&Text::new(
                text.clone(),
                (x + s.px(22.0), y),
                s.font(LEGEND_PX, t.text)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
            x += entry_width(text, s);
        }
    }
    Ok(())
}
