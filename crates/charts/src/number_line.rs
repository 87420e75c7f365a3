//! The number line of a format: representable values near the input (linear), and how the spacing
//! between neighbours grows with magnitude across the whole range (log-log), with the underflow and
//! overflow regions marked.

use crate::palette::{Rgb, Theme};
use crate::style::plot_builder;
use crate::style::{color, log_ticks, title, wrap, Scale, CHAR_EM};
use crate::{Area, Drawn};
use bitbudget_math::format::neighbours::{representable_around, spacing_bands};
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::numbers::short;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input {
    /// The format whose values are drawn.
    pub id: FormatId,
    /// The input value (binary64; NaN draws a note instead of the top panel).
    pub x: f64,
    /// Overflow convention, for where x lands.
    pub overflow: Overflow,
}

/// Height of the chart in CSS pixels.
pub const HEIGHT: u32 = 340;

/// Draws both panels (values near `x` on top, spacing against magnitude below) onto `root`.
/// Captions shorten when the area is narrower than 560 CSS pixels.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let (_, h) = root.dim_in_pixel();
    let (top, bottom) = root.split_vertically(h / 2);
    draw_zoom(&top, input, t, s)?;
    draw_spacing(&bottom, input, t, s)
}

crate::chart_calls_draw!(Input);

fn draw_zoom<B: DrawingBackend>(area: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    let px = |v: f64| s.px(v);
    let font = |size: f64, c: Rgb| s.font(size, c);
    if input.x.is_nan() {
        area.draw_text(
            "NaN has no place on the number line.",
            &font(14.0, t.muted),
            (px(16.0), px(40.0)),
        )?;
        return Ok(());
    }
    let values = representable_around(input.id, input.x, 6);
    let stored = input.id.decode(input.id.encode(input.x, input.overflow));
    let (lo, hi) = (values[0], values[values.len() - 1]);
    let pad = (hi - lo).max(1e-300) * 0.06;
    let narrow = s.css(area.dim_in_pixel().0) < 560.0;
    let caption = zoom_caption(input, narrow);
    let plot = title(area, &caption, font(14.0, t.text), s)?;
    // Enough significant digits that neighbouring ticks read differently (0.09999, 0.1, 0.10001
    // rather than 0.1 three times), and as many ticks as such labels fit across.
    let span = hi + pad - (lo - pad);
    let magnitude = lo.abs().max(hi.abs()).max(f64::MIN_POSITIVE);
    let digits = ((magnitude / (span / 4.0)).log10().floor().max(0.0) as usize + 2).clamp(2, 12);
    let label_w = s.text_width(&short(-magnitude * 1.00001, digits), 12.0) + px(12.0);
    let ticks = ((plot.dim_in_pixel().0 as i32 - px(76.0)) / label_w.max(1)).clamp(2, 6) as usize;
    // Side margins of half the widest tick label ("-9.5699e-31"), so no label leaves the chart.
    let mut chart = ChartBuilder::on(&plot)
        .margin(px(10.0))
        .margin_left(label_w / 2)
        .margin_right(label_w / 2)
        .x_label_area_size(px(26.0))
        .build_cartesian_2d(lo - pad..hi + pad, 0f64..1f64)?;
    chart
        .configure_mesh()
        .disable_y_axis()
        .disable_mesh()
        .x_labels(ticks)
        .x_label_formatter(&|v| short(*v, digits))
        .axis_style(color(t.muted))
        .x_label_style(font(12.0, t.muted))
        .draw()?;
    if stored.is_finite() {
        let i = values.iter().position(|v| *v == stored).unwrap_or(0);
        let below = if i > 0 {
            (values[i - 1] + stored) / 2.0
        } else {
            stored
        };
        let above = if i + 1 < values.len() {
            (values[i + 1] + stored) / 2.0
        } else {
            stored
        };
        chart.draw_series(std::iter::once(Rectangle::new(
            [(below, 0.08), (above, 0.72)],
            color(t.accent).mix(0.15).filled(),
        )))?;
    }
    chart.draw_series(values.iter().map(|v| {
        PathElement::new(
            vec![(*v, 0.1), (*v, 0.6)],
            color(t.grid_value).stroke_width(s.stroke(2.0)),
        )
    }))?;
    if stored.is_finite() {
        chart.draw_series(std::iter::once(Circle::new(
            (stored, 0.6),
            px(5.0),
            color(t.grid_value).filled(),
        )))?;
    }
    if input.x.is_finite() && (lo - pad..=hi + pad).contains(&input.x) {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(input.x, 0.0), (input.x, 0.85)],
            color(t.accent).stroke_width(s.stroke(2.0)),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            format!("x = {}", short(input.x, 6)),
            (input.x, 0.97),
            font(12.0, t.accent),
        )))?;
    } else {
        let side = if input.x < 0.0 { "lowest" } else { "largest" };
        let text = format!(
            "x = {} is off this scale: beyond the {side} value",
            short(input.x, 4)
        );
        let (w, _) = area.dim_in_pixel();
        for (i, line) in wrap(&text, w.saturating_sub(px(32.0) as u32), 12.0, s)
            .iter()
            .enumerate()
        {
            area.draw_text(
                line,
                &font(12.0, t.danger),
                (px(16.0), px(34.0) + i as i32 * px(15.0)),
            )?;
        }
    }
    Ok(())
}

/// The top panel's title. For a value the format holds: its neighbours and the gap between them
/// ("BF16 values near 0.1: neighbours 0.0004883 apart here"). For one it cannot hold, what
/// storing it does instead: "overflows to +inf", "becomes NaN" (formats without infinity),
/// "saturates to 448", or, for ±inf itself, which special it is stored as; so a title never reads
/// "inf apart" or "NaN apart". Shorter when `narrow`.
pub fn zoom_caption(input: &Input, narrow: bool) -> String {
    let id = input.id;
    let label = id.label();
    let x = input.x;
    let stored = id.decode(id.encode(x, input.overflow));
    let beyond = x.abs() > id.max_value().max(-id.lowest_value());
    if !x.is_nan() && (beyond || !stored.is_finite()) {
        let typed = short(x, if narrow { 5 } else { 6 });
        let shown = short(stored, 6);
        let what = match (stored.is_nan(), stored.is_infinite(), x.is_infinite()) {
            (true, ..) if narrow => "becomes NaN (no inf)".to_string(),
            (true, ..) => format!("becomes NaN: {label} has no infinity"),
            (_, true, true) if narrow => format!("is stored as {shown}"),
            (_, true, true) => format!("is stored as {shown}, beyond every finite value"),
            (_, true, false) => format!("overflows to {shown}"),
            _ if narrow => format!("saturates to {shown}"),
            _ => format!("is beyond the largest value: saturates to {shown}"),
        };
        return format!("{label}: {typed} {what}");
    }
    let values = representable_around(id, x, 6);
    let spacing = neighbour_gap(&values, stored);
    if narrow {
        format!("{label} near {}: gap {}", short(x, 5), short(spacing, 4))
    } else {
        format!(
            "{label} values near {}: neighbours {} apart here",
            short(x, 6),
            short(spacing, 4)
        )
    }
}

fn neighbour_gap(values: &[f64], stored: f64) -> f64 {
    let i = values.iter().position(|v| *v == stored).unwrap_or(0);
    match (
        values.get(i + 1),
        i.checked_sub(1).and_then(|j| values.get(j)),
    ) {
        (Some(up), _) => up - stored,
        (None, Some(down)) => stored - down,
        _ => 0.0,
    }
}

fn draw_spacing<B: DrawingBackend>(area: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    let px = |v: f64| s.px(v);
    let font = |size: f64, c: Rgb| s.font(size, c);
    let narrow = s.css(area.dim_in_pixel().0) < 560.0;
    let bands = spacing_bands(input.id);
    let smallest = bands[0].lo;
    let max = input.id.max_value();
    let underflow = smallest / 2.0;
    let (x_lo, x_hi) = (smallest / 8.0, max * 8.0);
    let (s_lo, s_hi) = (bands[0].spacing / 2.0, bands[bands.len() - 1].spacing * 2.0);
    let caption = if narrow {
        "Gap vs magnitude (log-log)"
    } else {
        "Gap between neighbours vs magnitude (both axes log scale)"
    };
    let plot = title(area, caption, font(13.0, t.text), s)?;
    // Log ticks: 1, 2, 5 per decade where they fit, else every k-th power of ten; a label is
    // at most 6 characters ("1e-40") plus a gap across, two line heights apart vertically.
    let (pw, ph) = plot.dim_in_pixel();
    let across = (pw as i32 - px(10.0 + 24.0 + 58.0)) / px(7.0 * 12.0 * CHAR_EM);
    let down = (ph as i32 - px(20.0 + 26.0)) / px(24.0);
    let x_ticks = log_ticks(x_lo, x_hi, across.max(2) as usize);
    let y_ticks = log_ticks(s_lo, s_hi, down.max(2) as usize);
    let mut chart = plot_builder(&plot, s, 10.0, 24.0, 26.0, 58.0).build_cartesian_2d(
        (x_lo..x_hi).log_scale().with_key_points(x_ticks),
        (s_lo..s_hi).log_scale().with_key_points(y_ticks),
    )?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_label_formatter(&|v| short(*v, 2))
        .y_label_formatter(&|v| short(*v, 2))
        .axis_style(color(t.muted))
        .label_style(font(12.0, t.muted))
        .draw()?;
    let band_rect = |a: f64, b: f64, c: Rgb, alpha: f64| {
        Rectangle::new([(a, s_lo), (b, s_hi)], color(c).mix(alpha).filled())
    };
    chart.draw_series([
        band_rect(x_lo, underflow, t.muted, 0.18),
        band_rect(max, x_hi, t.danger, 0.18),
    ])?;
    if bands[0].subnormal {
        chart.draw_series(std::iter::once(band_rect(
            bands[0].lo,
            bands[0].hi,
            t.caution,
            0.25,
        )))?;
    }
    let steps = bands
        .iter()
        .flat_map(|b| [(b.lo, b.spacing), (b.hi, b.spacing)]);
    chart.draw_series(LineSeries::new(
        steps,
        color(t.grid_value).stroke_width(s.stroke(2.0)),
    ))?;
    // "→ 0" and "subnormal" stand in the plot's top left, rows below its top edge, where the
    // step line (lowest at the left) never is; "overflow" at the bottom right, under the line
    // (highest at the right).
    let (bx, by) = area.get_base_pixel();
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let (mut left, top) = (xs.start - bx + px(4.0), ys.start - by + px(3.0));
    // ... and right of the orange line of x when it would cross them.
    let a = input.x.abs();
    if a.is_finite() && a > x_lo && a < x_hi {
        let mx = chart.backend_coord(&(a, s_lo)).0 - bx;
        if (left - px(2.0)..=left + s.text_width("subnormal", 12.0)).contains(&mx) {
            left = mx + px(5.0);
        }
    }
    let corner = |text: &str, row: i32, c: Rgb| {
        Text::new(
            text.to_string(),
            (left, top + row * px(15.0)),
            font(12.0, c).pos(Pos::new(HPos::Left, VPos::Top)),
        )
    };
    area.draw(&corner("→ 0", 0, t.muted))?;
    if bands[0].subnormal {
        area.draw(&corner("subnormal", 1, t.text))?;
    }
    area.draw(&Text::new(
        "overflow".to_string(),
        (xs.end - bx - px(4.0), ys.end - by - px(3.0)),
        font(12.0, t.danger).pos(Pos::new(HPos::Right, VPos::Bottom)),
    ))?;
    let a = input.x.abs();
    if a.is_finite() && a > x_lo && a < x_hi {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(a, s_lo), (a, s_hi)],
            color(t.accent).stroke_width(s.stroke(2.0)),
        )))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caption(id: FormatId, x: f64, overflow: Overflow, narrow: bool) -> String {
        zoom_caption(&Input { id, x, overflow }, narrow)
    }

    #[test]
    fn a_value_beyond_the_range_says_what_happens_not_inf_apart() {
        let inf = f64::INFINITY;
        let native = Overflow::Native;
        assert_eq!(
            caption(FormatId::F32, inf, native, false),
            "FP32: +inf is stored as +inf, beyond every finite value"
        );
        assert_eq!(
            caption(FormatId::F16, 1e6, native, false),
            "FP16: 1000000 overflows to +inf"
        );
        assert_eq!(
            caption(FormatId::F8E4M3, -inf, native, false),
            "FP8 E4M3: -inf becomes NaN: FP8 E4M3 has no infinity"
        );
        assert_eq!(
            caption(FormatId::F8E4M3, 1000.0, Overflow::Saturate, true),
            "FP8 E4M3: 1000 saturates to 448"
        );
    }

    #[test]
    fn no_caption_reads_inf_apart_or_nan_apart() {
        let inf = f64::INFINITY;
        let values = [0.1, -2.5, 1e-8, 65504.0, 1e6, 1e40, inf, -inf, 0.0];
        for id in FormatId::ALL {
            for x in values {
                for overflow in [Overflow::Native, Overflow::Saturate] {
                    for narrow in [false, true] {
                        let c = caption(id, x, overflow, narrow);
                        let bad = ["inf apart", "NaN apart", "gap +inf", "gap NaN", "gap -inf"];
                        assert!(!bad.iter().any(|b| c.contains(b)), "{id} {x}: {c}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_value_in_range_names_the_gap_between_neighbours() {
        assert_eq!(
            caption(FormatId::Bf16, 0.1, Overflow::Native, false),
            "BF16 values near 0.1: neighbours 0.0004883 apart here"
        );
    }
}
