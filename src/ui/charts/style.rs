//! Helpers shared by the charts: palette colours as plotters colours, fonts and lengths scaled for
//! the device pixel ratio, and error conversion.

use crate::ui::palette::Rgb;
use plotters::prelude::*;
use plotters::style::TextStyle;

/// A palette colour for plotters.
pub fn color(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// Lengths and fonts for a device pixel ratio (1 for SVG export).
#[derive(Clone, Copy, Debug)]
pub struct Scale(pub f64);

impl Scale {
    /// `css` CSS pixels in device pixels.
    pub fn px(self, css: f64) -> i32 {
        (css * self.0).round() as i32
    }

    /// A stroke width of `css` CSS pixels.
    pub fn stroke(self, css: f64) -> u32 {
        (css * self.0).round().max(1.0) as u32
    }

    /// A chart caption's font: `size` CSS pixels, or smaller so that `text` fits in `width` device
    /// pixels (about 0.55 em per character of a sans-serif face), but never below 9 CSS pixels.
    pub fn caption_font(self, text: &str, width: u32, size: f64, c: Rgb) -> TextStyle<'static> {
        let fits = width as f64 / self.0 / (0.55 * text.chars().count().max(1) as f64);
        self.font(size.min(fits).max(9.0), c)
    }

    /// A sans-serif font of `size` CSS pixels in colour `c`.
    pub fn font(self, size: f64, c: Rgb) -> TextStyle<'static> {
        ("sans-serif", size * self.0).into_font().color(&color(c))
    }
}

/// Any displayable error as a `String`.
pub fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
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
}
