//! One K-quant super-block taken apart: its FP16 super-block scale `d` (and `dmin`) with their
//! bits, the integer scales (and mins) of its sub-blocks as bars, its 256 codes as a grid (one
//! row per sub-block), and how one weight is rebuilt from the nested scales, with the actual
//! numbers: `value = (d·sc)·q − dmin·m`.

use crate::palette::Theme;
use crate::style::{color, title, wrap, Scale};
use crate::{Area, Drawn};
use bitbudget_math::numbers::short;
use bitbudget_math::quant::kquants::{KType, Rebuild, QK_K};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The K-quant.
    pub kind: KType,
    /// Which super-block of the tensor this is (for the caption).
    pub index: usize,
    /// The super-block's bytes ([`KType::block_bytes`] long; otherwise an error is drawn).
    pub bytes: &'a [u8],
    /// The weight to rebuild, 0..256 within the super-block.
    pub weight: usize,
}

/// Height of the diagram in CSS pixels.
pub const HEIGHT: u32 = 420;

/// Font size of the explanation lines in CSS pixels.
const TEXT_PX: f64 = 12.0;

/// `v` in `bits` binary digits with a subscript 2 (`100101₂`).
fn binary(v: u32, bits: u32) -> String {
    format!("{:0w$b}₂", v, w = bits as usize)
}

/// An FP16 pattern as hex, its sign | exponent | mantissa bits and its value.
fn half(name: &str, bits: u16, value: f32) -> String {
    format!(
        "{name} = 0x{bits:04X} = {}|{:05b}|{:010b}₂ (FP16) = {}",
        bits >> 15,
        (bits >> 10) & 0x1F,
        bits & 0x3FF,
        short(value as f64, 6)
    )
}

/// The explanation of how `r` was rebuilt, one sentence per line: the super-block scales and
/// their bits, the sub-block's scale (and min) and its bits, the code and its bits, then the
/// formula with names, with the stored numbers, and with the two f32 products. The page prints
/// the same lines under the diagram.
pub fn rebuild_lines(kind: KType, r: &Rebuild) -> Vec<String> {
    let mut lines = Vec::with_capacity(6);
    let mut scales = half("d", r.d_bits, r.d);
    if let Some(bits) = r.dmin_bits {
        scales += &format!(" · {}", half("dmin", bits, r.dmin));
    }
    lines.push(scales);
    let sb = format!("sub-block {} of {}:", r.sub_block + 1, kind.sub_blocks());
    let sc_bits = binary(r.sc_stored, kind.scale_bits());
    let scale = match kind {
        KType::Q3K => format!("sc = {sc_bits} − 32 = {}", r.sc),
        KType::Q6K => format!("sc = {sc_bits} (signed) = {}", r.sc),
        _ => format!("sc = {sc_bits} = {}", r.sc),
    };
    let min = if kind.has_min() {
        format!(" · m = {} = {}", binary(r.m, kind.scale_bits()), r.m)
    } else {
        String::new()
    };
    lines.push(format!("{sb} {scale}{min}"));
    lines.push(format!(
        "weight {}: q = {} = {}",
        r.index,
        binary(r.q, kind.code_bits()),
        r.q
    ));
    let code = if r.offset == 0 {
        "q".to_string()
    } else {
        format!("(q − {})", r.offset)
    };
    let numbers = if r.offset == 0 {
        r.q.to_string()
    } else {
        format!("({} − {})", r.q, r.offset)
    };
    let g = |v: f32| short(v as f64, 6);
    if kind.has_min() {
        lines.push(format!("value = (d·sc)·{code} − dmin·m"));
        lines.push(format!(
            "= ({} × {}) × {numbers} − {} × {}",
            g(r.d),
            r.sc,
            g(r.dmin),
            r.m
        ));
        lines.push(format!(
            "= {} × {numbers} − {} = {}",
            g(r.scale),
            g(r.min),
            g(r.value)
        ));
    } else {
        lines.push(format!("value = (d·sc)·{code}"));
        lines.push(format!("= ({} × {}) × {numbers}", g(r.d), r.sc));
        lines.push(format!("= {} × {numbers} = {}", g(r.scale), g(r.value)));
    }
    lines
}

/// Draws the diagram: a caption, the sub-block scales as bars (the weight's sub-block in the
/// accent colour), the codes as a grid of one row per sub-block (shade by code, the weight
/// ringed), and the explanation lines of [`rebuild_lines`] under them.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let kind = input.kind;
    let name = kind.name().to_uppercase();
    let Some(r) = kind.rebuild(input.bytes, input.weight) else {
        let caption = format!("{name}: no super-block to show");
        title(
            root,
            &caption,
            s.caption_font(&caption, root.dim_in_pixel().0, 14.0, t.text),
            s,
        )?;
        return Ok(());
    };
    let caption = format!(
        "{name} super-block {}: {} bytes for {QK_K} weights",
        input.index,
        kind.block_bytes()
    );
    let w = root.dim_in_pixel().0;
    let area = title(root, &caption, s.caption_font(&caption, w, 14.0, t.text), s)?;
    let h = area.dim_in_pixel().1 as i32;
    let margin = s.px(10.0);
    let room = (w as i32 - 2 * margin).max(1) as u32;
    let lines: Vec<String> = rebuild_lines(kind, &r)
        .iter()
        .flat_map(|l| wrap(l, room, TEXT_PX, s))
        .collect();
    let line_h = s.px(TEXT_PX * 1.35);
    let text_h = line_h * lines.len() as i32 + s.px(6.0);
    let graphics_h = (h - text_h - s.px(8.0)).max(s.px(60.0));
    let label = s.font(TEXT_PX, t.muted);
    let left = Pos::new(HPos::Left, VPos::Top);
    // Sub-block scales: one bar each, height ∝ |sc|.
    let subs = kind.sub_blocks();
    let bars_top = s.px(2.0);
    area.draw(&Text::new(
        format!(
            "{} sub-block scales{} ({} bits each)",
            subs,
            if kind.has_min() {
                " and mins (grey)"
            } else {
                ""
            },
            kind.scale_bits()
        ),
        (margin, bars_top),
        label.pos(left),
    ))?;
    let bars_y = bars_top + line_h;
    let bars_h = (graphics_h / 4).max(s.px(20.0));
    let cell_w = (w as i32 - 2 * margin) / subs as i32;
    // (|sc|, m) per sub-block; a scheme without mins has m = 0 and draws no min bar.
    let stored: Vec<(i32, i32)> = (0..subs)
        .map(|j| {
            let (sc, m) = kind.stored_scale(input.bytes, j);
            (kind.scale_used(sc).abs(), m as i32)
        })
        .collect();
    let most = stored
        .iter()
        .map(|(a, b)| *a.max(b))
        .max()
        .unwrap_or(1)
        .max(1);
    let height = |v: i32| (bars_h as i64 * v as i64 / most as i64) as i32;
    let bottom = bars_y + bars_h;
    for (j, (sc, m)) in stored.iter().enumerate() {
        let x = margin + cell_w * j as i32;
        let fill = if j == r.sub_block {
            t.accent
        } else {
            t.integer
        };
        let split = if kind.has_min() {
            x + cell_w * 2 / 3
        } else {
            x + cell_w - 1
        };
        area.draw(&Rectangle::new(
            [(x + 1, bottom - height(*sc)), (split, bottom)],
            color(fill).filled(),
        ))?;
        if kind.has_min() {
            area.draw(&Rectangle::new(
                [(split + 1, bottom - height(*m)), (x + cell_w - 1, bottom)],
                color(t.muted).mix(0.6).filled(),
            ))?;
        }
    }
    // Codes: one row per sub-block, shade by code value.
    let grid_top = bars_y + bars_h + s.px(6.0);
    area.draw(&Text::new(
        format!(
            "{QK_K} codes of {} bits (a row per sub-block)",
            kind.code_bits()
        ),
        (margin, grid_top),
        label.pos(left),
    ))?;
    let grid_y = grid_top + line_h;
    let per_row = QK_K / subs;
    let grid_h = (graphics_h - (grid_y - bars_top)).max(s.px(16.0));
    let (cw, ch) = (
        (w as i32 - 2 * margin) / per_row as i32,
        (grid_h / subs as i32).max(1),
    );
    let top_code = ((1u32 << kind.code_bits()) - 1).max(1);
    let region = &input.bytes[kind.code_offset()..kind.code_offset() + kind.code_bytes()];
    for i in 0..QK_K {
        let (row, col) = ((i / per_row) as i32, (i % per_row) as i32);
        let (x, y) = (margin + col * cw, grid_y + row * ch);
        let shade = kind.code(region, i) as f64 / top_code as f64;
        area.draw(&Rectangle::new(
            [(x, y), (x + cw, y + ch)],
            color(t.grid_value).mix(0.15 + 0.85 * shade).filled(),
        ))?;
        if i == r.index {
            area.draw(&Rectangle::new(
                [(x, y), (x + cw, y + ch)],
                color(t.accent).filled(),
            ))?;
            area.draw(&Rectangle::new(
                [(x - 2, y - 2), (x + cw + 2, y + ch + 2)],
                color(t.text).stroke_width(s.stroke(1.5)),
            ))?;
        }
    }
    // The explanation under the graphics.
    let text_y = grid_y + subs as i32 * ch + s.px(8.0);
    for (k, line) in lines.iter().enumerate() {
        area.draw(&Text::new(
            line.clone(),
            (margin, text_y + k as i32 * line_h),
            s.font(TEXT_PX, t.text).pos(left),
        ))?;
    }
    Ok(())
}

crate::chart_calls_draw!(Input<'_>);

#[cfg(test)]
mod tests {
    use super::*;

    fn block(kind: KType) -> Vec<u8> {
        let x: Vec<f32> = (0..QK_K).map(|i| (i as f32 * 0.37).sin() * 0.05).collect();
        let mut b = vec![0u8; kind.block_bytes()];
        kind.quantize(&x, &mut b).unwrap();
        b
    }

    #[test]
    fn the_explanation_carries_the_stored_numbers_and_the_result() {
        for kind in KType::ALL {
            let b = block(kind);
            let r = kind.rebuild(&b, 77).unwrap();
            let lines = rebuild_lines(kind, &r);
            let all = lines.join("\n");
            assert!(all.contains(&format!("0x{:04X}", r.d_bits)), "{all}");
            assert!(all.contains(&binary(r.q, kind.code_bits())), "{all}");
            assert!(
                all.contains(&binary(r.sc_stored, kind.scale_bits())),
                "{all}"
            );
            assert!(
                lines.last().unwrap().ends_with(&short(r.value as f64, 6)),
                "{all}"
            );
            assert_eq!(all.contains("dmin"), kind.has_min(), "{all}");
        }
    }

    #[test]
    fn fp16_bits_are_split_into_sign_exponent_and_mantissa() {
        assert_eq!(
            half("d", 0x3C00, 1.0),
            "d = 0x3C00 = 0|01111|0000000000₂ (FP16) = 1"
        );
        assert_eq!(binary(5, 6), "000101₂");
    }

    #[test]
    fn a_block_of_the_wrong_length_draws_a_message_not_a_panic() {
        let input = Input {
            kind: KType::Q4K,
            index: 0,
            bytes: &[0; 10],
            weight: 0,
        };
        let svg = crate::svg(&input, 350, HEIGHT, &crate::LIGHT).unwrap();
        assert!(svg.contains("no super-block"), "{svg}");
    }
}
