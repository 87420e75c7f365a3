//! A value's bit pattern as a diagram: one box per bit, coloured by field (sign, exponent,
//! mantissa; or the bits of an integer), the field names with their values under them, and the
//! decoding written out. The Bits page's bit row groups its cells with the same [`fields`].

use crate::palette::{Rgb, Theme};
use crate::style::fitted_title;
use crate::style::{color, wrap, Scale};
use crate::{Area, Drawn};
use bitbudget_math::format::integer::IntFormat;
use bitbudget_math::format::{describe, FormatId, Overflow, Spec};
use bitbudget_math::numbers::short;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::ops::Range;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input {
    /// The format.
    pub id: FormatId,
    /// The value to store (binary64; NaN and ±inf are stored as the format's specials).
    pub x: f64,
    /// Overflow convention used to store `x`.
    pub overflow: Overflow,
}

/// Height of the diagram in CSS pixels.
pub const HEIGHT: u32 = 176;

/// Widest bit box in CSS pixels (narrow formats do not stretch across the whole width).
const MAX_CELL: f64 = 40.0;

/// What a group of bits is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A float's sign bit.
    Sign,
    /// A float's biased exponent.
    Exponent,
    /// A float's stored mantissa (fraction).
    Mantissa,
    /// All bits of a two's complement or unsigned integer.
    Integer(IntFormat),
}

impl FieldKind {
    /// Lower-case name, also the CSS class suffix of the page's bit row (`field-sign`, ...).
    pub const fn class(self) -> &'static str {
        match self {
            FieldKind::Sign => "sign",
            FieldKind::Exponent => "exponent",
            FieldKind::Mantissa => "mantissa",
            FieldKind::Integer(_) => "integer",
        }
    }

    /// What the field is called under its bits.
    pub const fn name(self) -> &'static str {
        match self {
            FieldKind::Integer(i) => i.encoding(),
            k => k.class(),
        }
    }

    /// The field's colour in `theme`.
    pub const fn color(self, theme: &Theme) -> Rgb {
        match self {
            FieldKind::Sign => theme.sign,
            FieldKind::Exponent => theme.exponent,
            FieldKind::Mantissa => theme.mantissa,
            FieldKind::Integer(_) => theme.integer,
        }
    }

    /// Whether the field's unsigned value is worth showing (exponent and mantissa).
    pub const fn shows_value(self) -> bool {
        matches!(self, FieldKind::Exponent | FieldKind::Mantissa)
    }
}

/// One group of consecutive bits with the same role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// What the bits are.
    pub kind: FieldKind,
    /// Bit positions counted from the most significant (0) bit.
    pub positions: Range<u32>,
}

impl Field {
    /// The field's bits of the pattern `bits` (of a `width`-bit format) as an unsigned number.
    pub fn value(&self, bits: u32, width: u32) -> u32 {
        self.positions
            .clone()
            .fold(0, |acc, p| (acc << 1) | ((bits >> (width - 1 - p)) & 1))
    }
}

/// The fields of `id`, most significant first: sign, exponent, mantissa for floats; one integer
/// field otherwise.
pub fn fields(id: FormatId) -> Vec<Field> {
    match id.spec() {
        Spec::Float(f) => vec![
            Field {
                kind: FieldKind::Sign,
                positions: 0..1,
            },
            Field {
                kind: FieldKind::Exponent,
                positions: 1..1 + f.exp_bits,
            },
            Field {
                kind: FieldKind::Mantissa,
                positions: 1 + f.exp_bits..f.total_bits(),
            },
        ],
        Spec::Int(i) => vec![Field {
            kind: FieldKind::Integer(i),
            positions: 0..id.bits(),
        }],
    }
}

/// Draws the diagram: a title with the pattern in hex and the stored value, the bit boxes centred
/// (at most 40 CSS pixels each), each field's name and value under its boxes, and the decoding.
pub fn draw<B: DrawingBackend>(root: &Area<B>, input: &Input, t: &Theme, s: Scale) -> Drawn {
    root.fill(&color(t.surface))?;
    let id = input.id;
    let d = describe(id, input.x, input.overflow);
    let width = id.bits();
    // The exact stored decimal when it is short (0.10009765625), else 10 significant digits.
    let stored = if d.stored_exact.len() <= 16 {
        d.stored_exact.clone()
    } else {
        short(d.stored, 10)
    };
    let caption = format!(
        "{} ({} bits): {} is stored as 0x{:0hex$X} = {}",
        id.label(),
        width,
        short(input.x, 8),
        d.bits,
        stored,
        hex = width.div_ceil(4) as usize
    );
    let (w, _) = root.dim_in_pixel();
    let area = fitted_title(root, &caption, 14.0, t, s)?;
    let margin = s.px(12.0);
    let cell = ((w as i32 - 2 * margin) / width as i32).min(s.px(MAX_CELL));
    let x0 = (w as i32 - cell * width as i32) / 2;
    let (top, height) = (s.px(8.0), s.px(38.0));
    let centre = Pos::new(HPos::Center, VPos::Center);
    for field in fields(id) {
        let fill = color(field.kind.color(t));
        for p in field.positions.clone() {
            let x = x0 + cell * p as i32;
            area.draw(&Rectangle::new(
                [(x, top), (x + cell, top + height)],
                fill.filled(),
            ))?;
            area.draw(&Rectangle::new(
                [(x, top), (x + cell, top + height)],
                color(t.surface).stroke_width(s.stroke(1.0)),
            ))?;
            let bit = (d.bits >> (width - 1 - p)) & 1;
            area.draw(&Text::new(
                bit.to_string(),
                (x + cell / 2, top + height / 2),
                s.font(16.0, t.text).pos(centre),
            ))?;
        }
        let (a, b) = (
            x0 + cell * field.positions.start as i32,
            x0 + cell * field.positions.end as i32,
        );
        let y = top + height + s.px(6.0);
        area.draw(&PathElement::new(
            vec![(a + 2, y), (b - 2, y)],
            fill.stroke_width(s.stroke(3.0)),
        ))?;
        let label = Pos::new(HPos::Center, VPos::Top);
        let mid = (a + b) / 2;
        area.draw(&Text::new(
            field.kind.name(),
            (mid, y + s.px(5.0)),
            s.font(12.0, t.text).pos(label),
        ))?;
        if field.kind.shows_value() {
            area.draw(&Text::new(
                format!("= {}", field.value(d.bits, width)),
                (mid, y + s.px(21.0)),
                s.font(12.0, t.muted).pos(label),
            ))?;
        }
    }
    // The decoding, on two lines where one is too narrow (a long FP32 mantissa).
    let formula_font = s.caption_font(&d.formula, w, 13.0, t.text);
    let size = s.css(formula_font.font.get_size().round() as u32);
    let lines = wrap(&d.formula, w.saturating_sub(2 * margin as u32), size, s);
    for (i, line) in lines.iter().enumerate() {
        area.draw(&Text::new(
            line.clone(),
            (
                w as i32 / 2,
                top + height + s.px(50.0) + i as i32 * s.px(size * 1.2),
            ),
            formula_font.pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    Ok(())
}

crate::chart_calls_draw!(Input);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_has_one_sign_eight_exponent_and_seven_mantissa_bits() {
        let f = fields(FormatId::Bf16);
        let widths: Vec<(FieldKind, usize)> =
            f.iter().map(|f| (f.kind, f.positions.len())).collect();
        assert_eq!(
            widths,
            [
                (FieldKind::Sign, 1),
                (FieldKind::Exponent, 8),
                (FieldKind::Mantissa, 7)
            ]
        );
    }

    #[test]
    fn field_values_read_the_bits_of_their_field() {
        // BF16 0.1 = 0x3DCD: sign 0, exponent 0b01111011 = 123, mantissa 0b1001101 = 77.
        let f = fields(FormatId::Bf16);
        let values: Vec<u32> = f.iter().map(|f| f.value(0x3DCD, 16)).collect();
        assert_eq!(values, [0, 123, 77]);
    }

    #[test]
    fn an_integer_format_is_one_field() {
        assert_eq!(
            fields(FormatId::Int8),
            [Field {
                kind: FieldKind::Integer(IntFormat {
                    bits: 8,
                    signed: true
                }),
                positions: 0..8
            }]
        );
    }

    #[test]
    fn unsigned_integers_are_labelled_unsigned() {
        let names = |id| fields(id).iter().map(|f| f.kind.name()).collect::<Vec<_>>();
        assert_eq!(names(FormatId::Uint8), ["unsigned"]);
        assert_eq!(names(FormatId::Int8), ["two's complement"]);
        assert_eq!(names(FormatId::Int4), ["two's complement"]);
    }
}
