//! Helpers shared by the charts: palette colours as plotters colours, the font stack, fonts and
//! lengths scaled for the device pixel ratio, titles and hatching.

use crate::error::ChartError;
use crate::palette::Rgb;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::TextStyle;

/// The system font stack of the charts (the same as the page's CSS, without quotes so that it can
/// stand in an SVG attribute); no web font is ever loaded.
pub const FONT_STACK: &str =
    "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif";

/// A palette colour for plotters.
pub fn color(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// Lengths and fonts for a device pixel ratio (1 for SVG export). A ratio that is not a finite
/// positive number counts as 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale(pub f64);

impl Scale {
    fn ratio(self) -> f64 {
        if self.0.is_finite() && self.0 > 0.0 {
            self.0
        } else {
            1.0
        }
    }

    /// `css` CSS pixels in device pixels, rounded to the nearest pixel.
    pub fn px(self, css: f64) -> i32 {
        (css * self.ratio()).round() as i32
    }

    /// A stroke width of `css` CSS pixels, rounded, at least 1 device pixel.
    pub fn stroke(self, css: f64) -> u32 {
        (css * self.ratio()).round().max(1.0) as u32
    }

    /// `device` pixels in CSS pixels.
    pub fn css(self, device: u32) -> f64 {
        device as f64 / self.ratio()
    }

    /// A chart caption's font: `size` CSS pixels, or smaller so that `text` fits in `width` device
    /// pixels (about 0.55 em per character of a sans-serif face), but never below 9 CSS pixels.
    pub fn caption_font(self, text: &str, width: u32, size: f64, c: Rgb) -> TextStyle<'static> {
        let fits = self.css(width) / (0.55 * text.chars().count().max(1) as f64);
        self.font(size.min(fits).max(9.0), c)
    }

    /// A [`FONT_STACK`] font of `size` CSS pixels in colour `c`.
    pub fn font(self, size: f64, c: Rgb) -> TextStyle<'static> {
        (FONT_STACK, size * self.ratio())
            .into_font()
            .color(&color(c))
    }
}

/// Writes `text` centred at the top of `area` and returns the area below it. Unlike plotters'
/// `caption`, the title's height is its font size plus fixed padding, never a measured text box,
/// so a canvas in the browser and an SVG written natively lay out identically.
pub fn title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: TextStyle<'static>,
    s: Scale,
) -> Result<DrawingArea<DB, Shift>, ChartError> {
    let (w, _) = area.dim_in_pixel();
    let size = font.font.get_size();
    let pad = s.px(6.0);
    area.draw_text(
        text,
        &font.pos(Pos::new(HPos::Center, VPos::Top)),
        (w as i32 / 2, pad),
    )?;
    let used = (size.round() as i32 + 2 * pad).max(0) as u32;
    Ok(area.split_vertically(used).1)
}

/// Diagonal hatch lines filling the rectangle (x0, y0)–(x1, y1) in backend pixels, `gap` apart.
pub fn hatch_lines(x0: i32, y0: i32, x1: i32, y1: i32, gap: i32) -> Vec<[(i32, i32); 2]> {
    let (w, h) = (x1 - x0, y1 - y0);
    let gap = gap.max(2);
    let mut lines = Vec::new();
    let mut k = -h;
    while k < w {
        // The line x - x0 = k + (y - y0), clipped to the rectangle.
        let start = (x0 + k.max(0), y0 + (-k).max(0));
        let end_y = (y0 + h).min(y0 + (w - k));
        let end = (x0 + k + (end_y - y0), end_y);
        if end.0 > start.0 {
            lines.push([start, end]);
        }
        k += gap;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hatch_lines_stay_inside_the_rectangle() {
        for [a, b] in hatch_lines(10, 20, 110, 60, 8) {
            for (x, y) in [a, b] {
                assert!(
                    (10..=110).contains(&x) && (20..=60).contains(&y),
                    "({x}, {y})"
                );
            }
            assert_eq!(b.0 - a.0, b.1 - a.1, "45° lines");
        }
        assert!(!hatch_lines(0, 0, 50, 50, 5).is_empty());
    }

    #[test]
    fn a_scale_that_is_not_a_positive_number_counts_as_one() {
        for bad in [f64::NAN, 0.0, -2.0, f64::INFINITY] {
            assert_eq!(Scale(bad).px(10.0), 10);
        }
        assert_eq!(Scale(2.0).px(10.0), 20);
        assert_eq!(Scale(2.0).stroke(0.2), 1);
    }
}
