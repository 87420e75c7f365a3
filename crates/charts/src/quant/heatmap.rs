//! The error of each block as a heat map.

use crate::error::ChartError;
use crate::palette::Theme;
use crate::style::{color, title, Scale};
use bitbudget_math::numbers::short;
use bitbudget_math::quant::lab::SchemeDetail;
use plotters::coord::Shift;
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The selected scheme's per-block errors.
    pub detail: &'a SchemeDetail,
}

/// Per-block RMSE as a heat map, row by row from the top left, twice as many cells across as down
/// (darker = larger error; when there are more blocks than cells, each cell is its worst block).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    input: &Input,
    t: &Theme,
    s: Scale,
) -> Result<(), ChartError> {
    let detail = input.detail;
    root.fill(&color(t.surface))?;
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
    let caption = if rmse.iter().any(|e| e.is_infinite()) {
        format!("Error map ({what}; darkest = {darkest} or ∞)")
    } else {
        format!("Error map ({what}; darkest = {darkest})")
    };
    let font = s.caption_font(&caption, root.dim_in_pixel().0, 12.0, t.text);
    let plot = title(root, &caption, font, s)?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(s.px(10.0))
        // Rows run downwards, so the first block is at the top left.
        .build_cartesian_2d(0f64..per_row as f64, rows as f64..0f64)?;
    let hot = color(t.danger);
    let cold = color(t.surface);
    chart.draw_series(rmse.iter().enumerate().map(|(i, e)| {
        let (r, c) = ((i / per_row) as f64, (i % per_row) as f64);
        let k = if e.is_nan() {
            0.0
        } else {
            (e / max).clamp(0.0, 1.0) as f64
        };
        let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * k).round() as u8;
        let fill = RGBColor(mix(cold.0, hot.0), mix(cold.1, hot.1), mix(cold.2, hot.2));
        Rectangle::new([(c, r), (c + 1.0, r + 1.0)], fill.filled())
    }))?;
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
