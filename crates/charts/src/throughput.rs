//! Throughput against tensor size (log-log): one line per measured series, such as "CPU
//! quantize" or "GPU whole lab", in GB/s of f32 input.

use crate::legend::{legend_below, LEGEND_PX};
use crate::palette::{Rgb, Theme};
use crate::style::{color, fitted_title, log_ticks, muted_mesh, plot_builder, Scale, CHAR_EM};
use crate::{Area, Drawn};
use bitbudget_math::numbers::short;
use plotters::prelude::*;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 300;

/// One measured series.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Its name in the legend.
    pub label: String,
    /// (values in the tensor, GB/s) points; non-positive or non-finite rates are left out.
    pub points: Vec<(f64, f64)>,
}

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The series, in legend order.
    pub series: &'a [Series],
}

/// Line colour of the i-th series.
fn line_color(i: usize, t: &Theme) -> Rgb {
    [t.weights, t.accent, t.optimizer, t.activations][i % 4]
}

/// A tensor size on the x axis: "1M", "64M" (powers of two written as M = 2^20 values).
fn size_label(values: f64) -> String {
    let m = values / (1u64 << 20) as f64;
    if m >= 1.0 {
        format!("{}M", short(m, 3))
    } else {
        format!("{}K", short(values / 1024.0, 3))
    }
}

/// Draws every series with at least one positive point against tensor size on log-log axes,
/// the legend below; only the title when nothing was measured yet.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let caption = "Throughput (GB/s of f32 input) against tensor size";
    let area = fitted_title(root, caption, 12.0, t, s)?;
    let good = |p: &&(f64, f64)| p.0 > 0.0 && p.1 > 0.0 && p.1.is_finite();
    let all: Vec<(f64, f64)> = input
        .series
        .iter()
        .flat_map(|x| x.points.iter().filter(good).copied())
        .collect();
    if all.is_empty() {
        return Ok(());
    }
    let fold = |f: fn(f64, f64) -> f64, start: f64, pick: fn(&(f64, f64)) -> f64| {
        all.iter().map(pick).fold(start, f)
    };
    let (x_lo, x_hi) = (
        fold(f64::min, f64::MAX, |p| p.0),
        fold(f64::max, 0.0, |p| p.0),
    );
    let (y_lo, y_hi) = (
        fold(f64::min, f64::MAX, |p| p.1),
        fold(f64::max, 0.0, |p| p.1),
    );
    let (x_lo, x_hi) = (x_lo / 1.3, x_hi * 1.3);
    let (y_lo, y_hi) = (y_lo / 1.6, y_hi * 1.6);
    let legend: Vec<(String, RGBColor)> = input
        .series
        .iter()
        .enumerate()
        .map(|(i, x)| (x.label.clone(), color(line_color(i, t))))
        .collect();
    let plot = legend_below(&area, &legend, s, t)?;
    let (w, h) = plot.dim_in_pixel();
    let mut x_ticks: Vec<f64> = all.iter().map(|p| p.0).collect();
    x_ticks.sort_by(f64::total_cmp);
    x_ticks.dedup();
    let y_ticks = log_ticks(
        y_lo,
        y_hi,
        ((h as i32 - s.px(60.0)) / s.px(2.0 * LEGEND_PX)).max(2) as usize,
    );
    let x_room = (w as i32 - s.px(90.0)) / s.px(5.0 * LEGEND_PX * CHAR_EM);
    let step = x_ticks.len().div_ceil(x_room.max(1) as usize).max(1);
    let x_ticks: Vec<f64> = x_ticks.into_iter().step_by(step).collect();
    let mut chart = plot_builder(&plot, s, 10.0, 20.0, 34.0, 56.0).build_cartesian_2d(
        (x_lo..x_hi).log_scale().with_key_points(x_ticks),
        (y_lo..y_hi).log_scale().with_key_points(y_ticks),
    )?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.2, 12.0)
        .x_desc("values in the tensor")
        .y_desc("GB/s")
        .x_label_formatter(&|v| size_label(*v))
        .y_label_formatter(&|v| short(*v, 2))
        .draw()?;
    for (i, x) in input.series.iter().enumerate() {
        let c = color(line_color(i, t));
        let data: Vec<(f64, f64)> = x.points.iter().filter(good).copied().collect();
        chart.draw_series(LineSeries::new(data.clone(), c.stroke_width(s.stroke(2.0))))?;
        chart.draw_series(data.iter().map(|p| Circle::new(*p, s.px(3.0), c.filled())))?;
    }
    Ok(())
}

crate::chart_calls_draw!(Input<'_>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_millions() {
        assert_eq!(size_label((1u64 << 20) as f64), "1M");
        assert_eq!(size_label((1u64 << 26) as f64), "64M");
        assert_eq!(size_label(512.0 * 1024.0), "512K");
    }

    #[test]
    fn an_empty_chart_and_a_measured_one_both_render() {
        let empty = crate::svg(&Input { series: &[] }, 720, HEIGHT, &crate::LIGHT).unwrap();
        assert!(empty.contains("Throughput"));
        let series = [Series {
            label: "CPU quantize".into(),
            points: vec![(1048576.0, 1.5), (4194304.0, 1.7), (16777216.0, f64::NAN)],
        }];
        let doc = crate::svg(&Input { series: &series }, 720, HEIGHT, &crate::LIGHT).unwrap();
        assert!(doc.contains("CPU quantize") && doc.contains("4M"), "{doc}");
    }
}
