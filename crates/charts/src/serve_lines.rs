//! The Serve page's line charts: any [`Curve`]s against one x axis (linear or in powers of two,
//! for context lengths and concurrency) and one y axis (linear or log), the legend below the plot,
//! with an optional vertical marker ("compute-bound from 96") and horizontal reference line
//! ("one request"), each named beside its line where no curve runs.

use crate::legend::{legend_below, LEGEND_PX};
use crate::palette::{Rgb, Theme};
use crate::style::{color, log_ticks, muted_mesh, plot_builder, Scale, CHAR_EM};
use crate::{Area, Drawn};
use bitbudget_math::numbers::short;
use bitbudget_math::serve::curves::Curve;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 320;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The curves, in legend order.
    pub curves: &'a [Curve],
    /// The x axis's title.
    pub x_title: &'a str,
    /// The y axis's title.
    pub y_title: &'a str,
    /// The x axis in powers of two (1, 2, 4, … or 1K, 2K, … 128K), else linear.
    pub log_x: bool,
    /// The y axis in powers of ten (1, 2, 5 per decade), else linear from 0.
    pub log_y: bool,
    /// A vertical marker at x with its name.
    pub vline: Option<(f64, &'a str)>,
    /// A horizontal reference line at y with its name.
    pub hline: Option<(f64, &'a str)>,
}

/// Line colour of the i-th curve.
pub fn line_color(i: usize, t: &Theme) -> Rgb {
    [t.weights, t.accent, t.optimizer, t.activations][i % 4]
}

/// Label text size in CSS pixels.
const TEXT_PX: f64 = 12.0;

/// One axis: linear, or drawn as log₂ (x) or log₁₀ (y) of the value.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    log: bool,
    base: f64,
}

impl Axis {
    /// Whether `v` can be drawn on this axis.
    fn takes(self, v: f64) -> bool {
        v.is_finite() && (!self.log || v > 0.0)
    }

    /// A value's position on the drawn (linear) scale.
    fn place_of(self, v: f64) -> f64 {
        if self.log {
            v.log(self.base)
        } else {
            v
        }
    }

    /// The value at a position of the drawn scale.
    fn value_at(self, p: f64) -> f64 {
        if self.log {
            self.base.powf(p)
        } else {
            p
        }
    }

    /// The drawn range for values from `lo` to `hi`, with room around them (`from_zero`: a linear
    /// range starts at 0 when every value is positive).
    fn range(self, lo: f64, hi: f64, from_zero: bool) -> (f64, f64) {
        let (a, b) = (self.place_of(lo), self.place_of(hi));
        let span = b - a;
        if self.log {
            let pad = if self.base == 2.0 { 0.25 } else { 0.2 };
            (a - pad, b + pad)
        } else if span <= 0.0 {
            let r = a.abs().max(1.0) * 0.5;
            (if from_zero && a >= 0.0 { 0.0 } else { a - r }, b + r)
        } else if from_zero && a >= 0.0 {
            (0.0, b + span * 0.12)
        } else {
            (a - span * 0.05, b + span * 0.05)
        }
    }

    /// Tick positions on the drawn scale from `lo` to `hi` (drawn positions), at most `max`.
    fn ticks(self, lo: f64, hi: f64, max: usize) -> Vec<f64> {
        let max = max.max(2);
        if !self.log {
            return linear_ticks(lo, hi, max);
        }
        if self.base == 2.0 {
            let (first, last) = (lo.ceil() as i64, hi.floor() as i64);
            let count = (last - first + 1).max(0) as usize;
            let stride = count.div_ceil(max).max(1);
            return (first..=last).step_by(stride).map(|k| k as f64).collect();
        }
        log_ticks(self.value_at(lo), self.value_at(hi), max)
            .into_iter()
            .map(|v| self.place_of(v))
            .collect()
    }

    /// A tick's text.
    fn label(self, p: f64) -> String {
        let v = self.value_at(p);
        if self.log && self.base == 2.0 {
            return power_of_two(v);
        }
        compact(v)
    }
}

/// A power of two as a context length or count reads: 1, 2, … 512, 1K, 2K, … 512K, 1M.
pub fn power_of_two(v: f64) -> String {
    let v = v.round();
    if v >= (1u64 << 20) as f64 {
        format!("{}M", short(v / (1u64 << 20) as f64, 3))
    } else if v >= 1024.0 {
        format!("{}K", short(v / 1024.0, 3))
    } else {
        short(v, 3)
    }
}

/// A y value in at most about 5 characters: 0.5, 12, 2500, 25K, 1.2M.
fn compact(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", short(v / 1e6, 3))
    } else if a >= 1e4 {
        format!("{}K", short(v / 1e3, 3))
    } else {
        short(v, 3)
    }
}

/// Round ticks (1, 2 or 5 times a power of ten apart) from `lo` to `hi`, at most `max`.
fn linear_ticks(lo: f64, hi: f64, max: usize) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return vec![lo];
    }
    let raw = span / max as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&st| st >= raw)
        .unwrap_or(10.0 * magnitude);
    let (first, last) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A linear plotters axis over `range` with grid lines and labels at `ticks` only (plotters'
/// own `with_key_points` on an `f64` range has no label formatter).
struct Ticked {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        RangedCoordf64::from(self.range.clone()).map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// The smallest and largest of `values`.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// A text box in root pixels: left, top, right, bottom.
type Box4 = (i32, i32, i32, i32);

/// Whether `b` clears every point of `marks` (sampled lines and dots) by `pad` pixels and every
/// box in `taken`.
fn clear(b: Box4, marks: &[(i32, i32)], taken: &[Box4], pad: i32) -> bool {
    let hit =
        |&(x, y): &(i32, i32)| b.0 - pad < x && x < b.2 + pad && b.1 - pad < y && y < b.3 + pad;
    let overlaps = |o: &Box4| b.0 < o.2 && o.0 < b.2 && b.1 < o.3 && o.1 < b.3;
    !marks.iter().any(hit) && !taken.iter().any(overlaps)
}

/// Points every 2 pixels along the polyline `pts`.
fn sample(pts: &[(i32, i32)], out: &mut Vec<(i32, i32)>) {
    out.extend(pts.first());
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
        let n = (dx.hypot(dy) / 2.0).ceil().max(1.0) as i32;
        for k in 1..=n {
            let f = f64::from(k) / f64::from(n);
            out.push((a.0 + (dx * f).round() as i32, a.1 + (dy * f).round() as i32));
        }
    }
}

/// Draws every curve's drawable points (finite, and x positive on a log x axis) as a line with
/// dots, the legend below, the markers with their names where no curve runs. On a log y axis a y
/// of 0 or below sits on the axis's floor, the range set by the positive values and the
/// horizontal line. Only the background when no point is drawable or nothing sets the y range.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let (ax, ay) = (
        Axis {
            log: input.log_x,
            base: 2.0,
        },
        Axis {
            log: input.log_y,
            base: 10.0,
        },
    );
    // Points with a drawable x and a finite y; on a log y axis a y of 0 or below is drawn at
    // the axis's floor ("none fit" under the line at one request).
    let good = |&(x, y): &(f64, f64)| ax.takes(x) && y.is_finite();
    let curves: Vec<Vec<(f64, f64)>> = input
        .curves
        .iter()
        .map(|c| c.points.iter().copied().filter(good).collect())
        .collect();
    let all: Vec<(f64, f64)> = curves.iter().flatten().copied().collect();
    let vline = input.vline.filter(|(x, _)| ax.takes(*x));
    let hline = input.hline.filter(|(y, _)| ay.takes(*y));
    let ys: Vec<f64> = all
        .iter()
        .map(|p| p.1)
        .chain(hline.map(|h| h.0))
        .filter(|&y| ay.takes(y))
        .collect();
    if all.is_empty() || ys.is_empty() {
        return Ok(());
    }
    let (x_lo, x_hi) = bounds(all.iter().map(|p| p.0).chain(vline.map(|v| v.0)));
    let (y_lo, y_hi) = bounds(ys.into_iter());
    let (x0, x1) = ax.range(x_lo, x_hi, false);
    let (y0, y1) = ay.range(y_lo, y_hi, true);
    // A value's place on the drawn scales.
    let place_of = |(x, y): (f64, f64)| {
        let y = if ay.takes(y) { ay.place_of(y) } else { y0 };
        (ax.place_of(x), y)
    };
    let legend: Vec<(String, RGBColor)> = input
        .curves
        .iter()
        .enumerate()
        .map(|(i, c)| (c.label.clone(), color(line_color(i, t))))
        .collect();
    let plot = legend_below(root, &legend, s, t)?;
    let (w, h) = plot.dim_in_pixel();
    let plot_w = w as i32 - s.px(12.0 + 20.0 + 56.0);
    let plot_h = h as i32 - s.px(12.0 * 2.0 + 34.0);
    // A tick label is at most 5 characters plus a gap; rows need 2 line heights.
    let x_max = (plot_w / s.px(6.0 * LEGEND_PX * CHAR_EM)).max(2) as usize;
    let y_max = (plot_h / s.px(2.0 * LEGEND_PX)).max(2) as usize;
    let mut chart = plot_builder(&plot, s, 12.0, 20.0, 34.0, 56.0).build_cartesian_2d(
        Ticked {
            range: x0..x1,
            ticks: ax.ticks(x0, x1, x_max),
        },
        Ticked {
            range: y0..y1,
            ticks: ay.ticks(y0, y1, y_max),
        },
    )?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.2, 12.0)
        .x_desc(input.x_title)
        .y_desc(input.y_title)
        .x_label_formatter(&|v| ax.label(*v))
        .y_label_formatter(&|v| ay.label(*v))
        .draw()?;
    let plotted: Vec<Vec<(f64, f64)>> = curves
        .iter()
        .map(|pts| pts.iter().map(|&p| place_of(p)).collect())
        .collect();
    // The reference lines first, under the curves.
    let v_at = vline.map(|(x, _)| ax.place_of(x));
    let h_at = hline.map(|(y, _)| ay.place_of(y));
    if let Some(x) = v_at {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x, y0), (x, y1)],
            color(t.muted).stroke_width(s.stroke(1.5)),
        )))?;
    }
    if let Some(y) = h_at {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x0, y), (x1, y)],
            color(t.danger).stroke_width(s.stroke(1.5)),
        )))?;
    }
    for (i, data) in plotted.iter().enumerate() {
        let c = color(line_color(i, t));
        chart.draw_series(LineSeries::new(data.clone(), c.stroke_width(s.stroke(2.0))))?;
        chart.draw_series(data.iter().map(|p| Circle::new(*p, s.px(2.5), c.filled())))?;
    }
    // Drawn positions to root pixels (`root` may be part of a larger backend).
    let (bx, by) = root.get_base_pixel();
    let at = |px: f64, py: f64| {
        let (x, y) = chart.backend_coord(&(px, py));
        (x - bx, y - by)
    };
    // Where data is drawn, in root pixels: the names keep off it.
    let mut marks: Vec<(i32, i32)> = Vec::new();
    for data in &plotted {
        let px: Vec<(i32, i32)> = data.iter().map(|&(x, y)| at(x, y)).collect();
        sample(&px, &mut marks);
    }
    let (left, top) = at(x0, y1);
    let (right, bottom) = at(x1, y0);
    let (th, gap, pad) = (s.px(TEXT_PX), s.px(4.0), s.px(2.0));
    let inside = |b: Box4| b.0 >= left && b.2 <= right && b.1 >= top && b.3 <= bottom;
    let mut taken: Vec<Box4> = Vec::new();
    let mut names: Vec<(String, Box4, Rgb)> = Vec::new();
    let v_line = v_at.map(|x| [at(x, y0), at(x, y1)]);
    let h_line = h_at.map(|y| [at(x0, y), at(x1, y)]);
    let mut line_marks = marks.clone();
    for line in v_line.iter().chain(h_line.iter()) {
        sample(line, &mut line_marks);
    }
    if let (Some((_, name)), Some([(lx, _), _])) = (vline, v_line) {
        // Beside the line, right of it then left of it, from the top down.
        let tw = s.text_width(name, TEXT_PX);
        let rows = ((bottom - top - th) / (th + gap)).max(0);
        let spot = (0..=rows)
            .flat_map(|r| {
                let y = top + gap + r * (th + gap);
                [(lx + gap, y), (lx - gap - tw, y)]
            })
            .map(|(x, y)| (x, y, x + tw, y + th))
            .find(|&b| inside(b) && clear(b, &line_marks, &taken, pad));
        let b = spot.unwrap_or((lx + gap, top + gap, lx + gap + tw, top + gap + th));
        taken.push(b);
        names.push((name.to_string(), b, t.muted));
    }
    if let (Some((_, name)), Some([(_, ly), _])) = (hline, h_line) {
        // Above the line, then below it, from the right end to the left.
        let tw = s.text_width(name, TEXT_PX);
        let columns = ((right - left - tw - 2 * gap) / (tw / 2).max(1)).max(0);
        let spot = (0..=columns)
            .flat_map(|k| {
                let x = right - gap - tw - k * (tw / 2).max(1);
                [(x, ly - gap - th), (x, ly + gap)]
            })
            .map(|(x, y)| (x, y, x + tw, y + th))
            .find(|&b| inside(b) && clear(b, &line_marks, &taken, pad));
        let b = spot.unwrap_or((right - gap - tw, ly - gap - th, right - gap, ly - gap));
        taken.push(b);
        names.push((name.to_string(), b, t.danger));
    }
    for (name, b, c) in names {
        root.draw(&Text::new(
            name,
            (b.0, b.1),
            s.font(TEXT_PX, c).pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    Ok(())
}

crate::chart_calls_draw!(Input<'_>);

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `doc` writes `text` as a whole text element.
    fn shows(doc: &str, text: &str) -> bool {
        doc.contains(&format!(">\n{text}\n</text>"))
    }

    fn input(curves: &[Curve]) -> Input<'_> {
        Input {
            curves,
            x_title: "context length (tokens)",
            y_title: "requests at once",
            log_x: true,
            log_y: true,
            vline: None,
            hline: Some((1.0, "one request")),
        }
    }

    #[test]
    fn powers_of_two_read_as_counts_and_context_lengths() {
        assert_eq!(power_of_two(1.0), "1");
        assert_eq!(power_of_two(512.0), "512");
        assert_eq!(power_of_two(1024.0), "1K");
        assert_eq!(power_of_two(131072.0), "128K");
        assert_eq!(power_of_two((1u64 << 20) as f64), "1M");
    }

    #[test]
    fn log_x_ticks_are_powers_of_two_thinned_to_fit() {
        let ax = Axis {
            log: true,
            base: 2.0,
        };
        let (lo, hi) = (ax.place_of(1024.0), ax.place_of(131072.0));
        let ticks: Vec<String> = ax.ticks(lo, hi, 10).iter().map(|&p| ax.label(p)).collect();
        assert_eq!(ticks, ["1K", "2K", "4K", "8K", "16K", "32K", "64K", "128K"]);
        let ticks: Vec<String> = ax.ticks(lo, hi, 4).iter().map(|&p| ax.label(p)).collect();
        assert_eq!(ticks, ["1K", "4K", "16K", "64K"]);
    }

    #[test]
    fn linear_ticks_are_round() {
        assert_eq!(linear_ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear_ticks(3.0, 3.0, 5), [3.0]);
    }

    #[test]
    fn nothing_drawable_draws_only_the_background() {
        let empty = crate::svg(&input(&[]), 720, HEIGHT, &crate::LIGHT).unwrap();
        assert!(!empty.contains("<text"), "{empty}");
        let bad = [Curve {
            label: "bf16 KV".into(),
            points: vec![
                (0.0, 5.0),
                (f64::NAN, 1.0),
                (1024.0, 0.0),
                (2048.0, f64::INFINITY),
            ],
        }];
        // Nothing sets a log y range: no positive y and no horizontal line.
        let unmarked = Input {
            hline: None,
            ..input(&bad)
        };
        let doc = crate::svg(&unmarked, 720, HEIGHT, &crate::LIGHT).unwrap();
        assert!(!doc.contains("<text"), "{doc}");
    }

    #[test]
    fn zero_values_sit_on_a_log_axis_floor_and_draw_on_linear_axes() {
        let zeros = [Curve {
            label: "bf16 KV".into(),
            points: vec![(1024.0, 0.0), (2048.0, 0.0)],
        }];
        let doc = crate::svg(&input(&zeros), 350, HEIGHT, &crate::DARK).unwrap();
        assert!(
            shows(&doc, "one request") && shows(&doc, "bf16 KV"),
            "{doc}"
        );
        let one = [Curve {
            label: "all sequences".into(),
            points: vec![(1.0, 0.0)],
        }];
        let linear = Input {
            log_x: false,
            log_y: false,
            vline: Some((1.0, "compute-bound from 1")),
            hline: None,
            ..input(&one)
        };
        let doc = crate::svg(&linear, 720, HEIGHT, &crate::LIGHT).unwrap();
        assert!(shows(&doc, "all sequences") && shows(&doc, "compute-bound from 1"));
    }

    #[test]
    fn markers_are_named() {
        let curves = [Curve {
            label: "bf16 KV".into(),
            points: vec![(1024.0, 400.0), (2048.0, 200.0), (8192.0, 50.0)],
        }];
        let marked = Input {
            vline: Some((4096.0, "here")),
            ..input(&curves)
        };
        let doc = crate::svg(&marked, 720, HEIGHT, &crate::LIGHT).unwrap();
        for text in [
            "one request",
            "here",
            "bf16 KV",
            "1K",
            "8K",
            "requests at once",
        ] {
            assert!(shows(&doc, text), "{text} missing:\n{doc}");
        }
    }
}
