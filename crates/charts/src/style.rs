//! Helpers shared by the charts: palette colours as plotters colours, the font stack, fonts and
//! lengths scaled for the device pixel ratio, titles and hatching.

use crate::palette::{Rgb, Theme};
use crate::{Area, Drawn};
use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::Ranged;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::TextStyle;

/// The system font stack of the charts (the same as the page's CSS, without quotes so that it can
/// stand in an SVG attribute); no web font is ever loaded.
pub const FONT_STACK: &str =
    "system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif";

/// The smallest text of any chart, in CSS pixels.
pub const MIN_FONT_PX: f64 = 12.0;

/// Average advance of a sans-serif character in em, for estimating text widths without measuring
/// a font (digits and lower case are about 0.5 to 0.55 em).
pub const CHAR_EM: f64 = 0.55;

/// plotters' SVG backend writes `font-size` as the font's size divided by this (plotters-svg
/// 0.3, `svg.rs`), while its canvas backend uses the size as is.
const PLOTTERS_SVG_FONT_DIVISOR: f64 = 1.24;

/// Undoes plotters' SVG font shrinking in a document it wrote: every `font-size="x"` becomes
/// `x × 1.24`, rounded to 0.01 px, so that a font of 12 CSS pixels is 12 px in the SVG as on the
/// canvas. Text without such an attribute is left as is.
pub fn restore_font_sizes(svg: &str) -> String {
    const KEY: &str = "font-size=\"";
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(i) = rest.find(KEY) {
        let start = i + KEY.len();
        out.push_str(&rest[..start]);
        let len = rest[start..].find('"').unwrap_or(0);
        let value = &rest[start..start + len];
        match value.parse::<f64>() {
            Ok(v) => {
                let size = (v * PLOTTERS_SVG_FONT_DIVISOR * 100.0).round() / 100.0;
                out.push_str(&size.to_string());
            }
            Err(_) => out.push_str(value),
        }
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

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
    /// pixels (about [`CHAR_EM`] per character of a sans-serif face), but never below
    /// [`MIN_FONT_PX`]: a caption that does not fit at that size must be shortened by its chart.
    pub fn caption_font(self, text: &str, width: u32, size: f64, c: Rgb) -> TextStyle<'static> {
        self.font(size.min(self.fitting_size(text, width)).max(MIN_FONT_PX), c)
    }

    /// The font size in CSS pixels at which `text` is `width` device pixels wide (estimated at
    /// [`CHAR_EM`] per character).
    pub fn fitting_size(self, text: &str, width: u32) -> f64 {
        self.css(width) / (CHAR_EM * text.chars().count().max(1) as f64)
    }

    /// The first of `texts` (longest first, shortest last) that fits in `width` device pixels at
    /// `size` CSS pixels; the last one when none does.
    pub fn first_fitting<'a>(self, texts: &[&'a str], width: u32, size: f64) -> &'a str {
        texts
            .iter()
            .find(|t| self.fitting_size(t, width) >= size)
            .or(texts.last())
            .copied()
            .unwrap_or("")
    }

    /// Estimated width in device pixels of `text` at `size` CSS pixels.
    pub fn text_width(self, text: &str, size: f64) -> i32 {
        (text.chars().count() as f64 * CHAR_EM * size * self.ratio()).ceil() as i32
    }

    /// A bold [`FONT_STACK`] font of `size` CSS pixels in colour `c`.
    pub fn bold(self, size: f64, c: Rgb) -> TextStyle<'static> {
        (FONT_STACK, size * self.ratio(), FontStyle::Bold)
            .into_font()
            .color(&color(c))
    }

    /// A [`FONT_STACK`] font of `size` CSS pixels in colour `c`.
    pub fn font(self, size: f64, c: Rgb) -> TextStyle<'static> {
        (FONT_STACK, size * self.ratio())
            .into_font()
            .color(&color(c))
    }
}

/// `text` broken at spaces into lines of at most `width` device pixels at `size` CSS pixels
/// (estimated at [`CHAR_EM`] per character); a word longer than a line stands on its own line,
/// and a lone separator (`·`, `=`, `×`, `+`) ends a line rather than starting the next.
pub fn wrap(text: &str, width: u32, size: f64, s: Scale) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    // A separator (" · ", " = ", " × ") stays at the end of a line, never starts one.
    let mut words: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match words.last_mut() {
            Some(prev) if matches!(word, "·" | "=" | "×" | "+") => {
                prev.push(' ');
                prev.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    for word in words {
        match lines.last_mut() {
            Some(line) if s.text_width(&format!("{line} {word}"), size) <= width as i32 => {
                line.push(' ');
                line.push_str(&word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Writes `text` centred at the top of `area`, on as many lines as it needs to fit the width
/// (see [`wrap`]), and returns the area below it. Unlike plotters' `caption`, the title's height
/// is its lines' font size plus fixed padding, never a measured text box, so a canvas in the
/// browser and an SVG written natively lay out identically.
pub fn title<B: DrawingBackend>(
    area: &Area<B>,
    text: &str,
    font: TextStyle<'static>,
    s: Scale,
) -> Drawn<Area<B>> {
    let (w, _) = area.dim_in_pixel();
    let size = font.font.get_size();
    let pad = s.px(6.0);
    let room = (w as i32 - 2 * s.px(8.0)).max(1) as u32;
    let lines = wrap(text, room, s.css(size.round() as u32), s);
    let line_h = (size * 1.2).round() as i32;
    for (i, line) in lines.iter().enumerate() {
        area.draw_text(
            line,
            &font.pos(Pos::new(HPos::Center, VPos::Top)),
            (w as i32 / 2, pad + i as i32 * line_h),
        )?;
    }
    let used = (size.round() as i32 + (lines.len() as i32 - 1) * line_h + 2 * pad).max(0) as u32;
    Ok(area.split_vertically(used).1)
}

/// Tick values for a log axis from `lo` to `hi` (both positive) with at most `max_ticks` ticks:
/// the densest of 1, 1.5, 2, 3, 4, 5, 6, 8 / 1, 2, 3, 5 / 1, 2, 5 / 1, 3 per decade that fits, else
/// each power of ten, else every 2nd, 5th, 10th, ... power of ten. Empty for a range that is not positive and finite.
pub fn log_ticks(lo: f64, hi: f64, max_ticks: usize) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Vec::new();
    }
    let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let within = |v: f64| v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9);
    let decade = |d: i32| 10f64.powi(d);
    let sets: [&[f64]; 5] = [
        &[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0],
        &[1.0, 2.0, 3.0, 5.0],
        &[1.0, 2.0, 5.0],
        &[1.0, 3.0],
        &[1.0],
    ];
    // The densest set that fits, so an axis spanning less than a decade still gets ticks.
    for mantissas in sets {
        let ticks: Vec<f64> = (d0..=d1)
            .flat_map(|d| mantissas.iter().map(move |m| m * decade(d)))
            .filter(|v| within(*v))
            .collect();
        if ticks.len() <= max_ticks.max(2) && ticks.len() >= 2 {
            return ticks;
        }
    }
    for step in [2, 5, 10, 20, 50, 100] {
        let ticks: Vec<f64> = (d0..=d1)
            .filter(|d| d.rem_euclid(step) == 0)
            .map(decade)
            .filter(|v| within(*v))
            .collect();
        if ticks.len() <= max_ticks.max(2) {
            return ticks;
        }
    }
    vec![lo, hi]
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

/// Gives `mesh` the house look shared by the charts with grid lines: at most one light line
/// between labelled ones, light lines at 10 % and labelled ones at `bold` (0 to 1) opacity of the
/// theme's muted colour, and the axis, tick labels and axis descriptions in that colour, text at
/// `text_px` CSS pixels. Returns `mesh` for more settings and `.draw()`.
pub fn muted_mesh<'m, 'a, 'b, X: Ranged, Y: Ranged, B: DrawingBackend>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, B>,
    t: &Theme,
    s: Scale,
    bold: f64,
    text_px: f64,
) -> &'m mut MeshStyle<'a, 'b, X, Y, B> {
    mesh.max_light_lines(1)
        .light_line_style(color(t.muted).mix(0.1))
        .bold_line_style(color(t.muted).mix(bold))
        .axis_style(color(t.muted))
        .label_style(s.font(text_px, t.muted))
        .axis_desc_style(s.font(text_px, t.muted))
}

/// [`title`] with the caption font fitted to `area`'s width ([`Scale::caption_font`], at most
/// `size` CSS pixels) in the theme's text colour.
pub fn fitted_title<B: DrawingBackend>(
    area: &Area<B>,
    text: &str,
    size: f64,
    t: &Theme,
    s: Scale,
) -> Drawn<Area<B>> {
    let font = s.caption_font(text, area.dim_in_pixel().0, size, t.text);
    title(area, text, font, s)
}

/// A chart builder on `area` with its spacing in CSS pixels: `margin` on the top, bottom and
/// left, `right` on the right, `x_axis` below the plot for the x labels and `y_axis` left of it
/// for the y labels.
pub fn plot_builder<'a, 'b, B: DrawingBackend>(
    area: &'a Area<B>,
    s: Scale,
    margin: f64,
    right: f64,
    x_axis: f64,
    y_axis: f64,
) -> ChartBuilder<'a, 'b, B> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(s.px(margin))
        .margin_right(s.px(right))
        .x_label_area_size(s.px(x_axis))
        .y_label_area_size(s.px(y_axis));
    builder
}

/// A vertical line at `x` from `y0` to `y1` (data coordinates), `width` CSS pixels wide in the
/// colour `c`: capacity lines and thresholds.
pub fn vertical_line(
    x: f64,
    (y0, y1): (f64, f64),
    c: Rgb,
    width: f64,
    s: Scale,
) -> PathElement<(f64, f64)> {
    PathElement::new(
        vec![(x, y0), (x, y1)],
        color(c).stroke_width(s.stroke(width)),
    )
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
    fn svg_font_sizes_are_restored_to_the_fonts_size() {
        let svg = format!(
            "<text font-size=\"{}\">a</text><text font-size=\"{}\">b</text>",
            12.0 / PLOTTERS_SVG_FONT_DIVISOR,
            14.5 / PLOTTERS_SVG_FONT_DIVISOR
        );
        assert_eq!(
            restore_font_sizes(&svg),
            "<text font-size=\"12\">a</text><text font-size=\"14.5\">b</text>"
        );
        assert_eq!(restore_font_sizes("<rect/>"), "<rect/>");
    }

    #[test]
    fn log_ticks_are_one_two_five_per_decade_when_they_fit() {
        assert_eq!(
            log_ticks(1.0, 1024.0, 12),
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0]
        );
        assert_eq!(
            log_ticks(60.0, 300.0, 6),
            [60.0, 80.0, 100.0, 150.0, 200.0, 300.0]
        );
        assert_eq!(log_ticks(1.0, 1024.0, 5), [1.0, 10.0, 100.0, 1000.0]);
        let wide = log_ticks(1e-45, 3e38, 6);
        assert!(wide.len() <= 6 && wide.len() >= 3, "{wide:?}");
        assert!(log_ticks(f64::NAN, 1.0, 5).is_empty());
        assert!(log_ticks(0.0, 1.0, 5).is_empty());
    }

    #[test]
    fn a_long_title_wraps_at_spaces_to_fit() {
        let lines = wrap("aaaa bbbb cccc", 60, 12.0, Scale(1.0));
        assert_eq!(lines, ["aaaa bbbb", "cccc"]);
        assert_eq!(wrap("one", 10, 12.0, Scale(1.0)), ["one"]);
        assert_eq!(
            wrap("aaaa · bbbbbb", 60, 12.0, Scale(1.0)),
            ["aaaa ·", "bbbbbb"]
        );
    }

    #[test]
    fn the_first_fitting_text_is_the_longest_that_fits() {
        let s = Scale(1.0);
        // 100 px at 12 px × 0.55 em fits 15 characters.
        assert_eq!(
            s.first_fitting(&["a".repeat(16).as_str(), "short"], 100, 12.0),
            "short"
        );
        assert_eq!(s.first_fitting(&["fits"], 10, 12.0), "fits");
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
