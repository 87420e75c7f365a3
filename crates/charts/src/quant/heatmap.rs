//! The error of each block as a heat map.

use crate::palette::Theme;
use crate::style::fitted_title;
use crate::style::{color, Scale};
use crate::{Area, Drawn};
use bitbudget_math::numbers::short;
use bitbudget_math::quant::lab::SchemeDetail;
use plotters::prelude::*;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The selected scheme's per-block errors.
    pub detail: &'a SchemeDetail,
}

/// Per-block RMSE as a heat map, row by row from the top left, twice as many cells across as down
/// (from the background colour at 0 to full orange at the largest error, in light and dark themes
/// alike; when there are more blocks than cells, each cell is its worst block).
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    let detail = input.detail;
    root.fill(&color(t.surface))?;
    let rmse = &detail.heat;
    let per_row = ((rmse.len() as f64).sqrt().ceil() as usize * 2).max(1);
    let rows = rmse.len().div_ceil(per_row).max(1);
    let max = scale_max(rmse);
    let caption = caption(rmse, detail.heat_block, detail.blocks_per_cell);
    let plot = fitted_title(root, &caption, 12.0, t, s)?;
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

/// The error at full colour: the largest finite block error (an infinite one, a lost block, is
/// drawn at full colour too).
fn scale_max(rmse: &[f32]) -> f32 {
    rmse.iter()
        .copied()
        .filter(|e| e.is_finite())
        .fold(0f32, f32::max)
        .max(f32::MIN_POSITIVE)
}

/// The chart's title. The ramp runs from the chart's background to the theme's orange, which is
/// dark-to-light in the dark theme and light-to-dark in the light one, so the title names the
/// colour and the worst block, never "darkest" or "lightest".
/// `heat`, `heat_block` and `blocks_per_cell` are [`SchemeDetail`]'s fields of the same names.
pub fn caption(heat: &[f32], heat_block: usize, blocks_per_cell: usize) -> String {
    let rmse = heat;
    let worst = short(scale_max(rmse) as f64, 3);
    let what = match blocks_per_cell {
        1 => format!("RMSE per {heat_block}-value block"),
        k => format!("worst RMSE of {k} blocks of {heat_block}"),
    };
    let infinite = if rmse.iter().any(|e| e.is_infinite()) {
        " or ∞"
    } else {
        ""
    };
    format!("Error map ({what}; full orange = worst, {worst}{infinite})")
}

crate::chart_calls_draw!(Input<'_>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caption_names_the_colour_and_the_worst_error_in_both_themes() {
        let c = caption(&[0.01, 0.0264, 0.002], 32, 1);
        assert_eq!(
            c,
            "Error map (RMSE per 32-value block; full orange = worst, 0.0264)"
        );
        for word in ["dark", "light"] {
            assert!(!c.contains(word), "{c}");
        }
        assert!(caption(&[0.5, f32::INFINITY], 64, 4)
            .ends_with("blocks of 64; full orange = worst, 0.5 or ∞)"));
    }

    #[test]
    fn the_ramp_ends_in_the_themes_orange_in_light_and_dark() {
        for t in [crate::palette::LIGHT, crate::palette::DARK] {
            let (r, g, b) = (t.danger.0 as i32, t.danger.1 as i32, t.danger.2 as i32);
            assert!(r > g && g > b, "the full colour is orange-ish: {r} {g} {b}");
        }
    }
}
