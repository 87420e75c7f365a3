//! bitbudget's charts. Every chart is one module with a plain-data `Input` and a
//! `draw(area, &Input, &Theme, Scale)` function generic over the plotters backend (the app draws on
//! a canvas, the CLI and the app's downloads on [`svg`]); the [`Chart`] trait names that shape.
//! [`documents`] composes the SVG files the CLI writes and the app downloads, so both give the same
//! bytes for the same state. No web or reactive dependency.
#![warn(missing_docs)]

/// Implements [`Chart`] for a chart module's `Input` by calling that module's
/// `draw(area, &Input, &Theme, Scale)`: `chart_calls_draw!(Input<'_>)` when `draw` returns
/// `Drawn`, `chart_calls_draw!(Input<'_> => Vec<Hit>)` when it returns more.
/// Expects `draw`, `Theme`, `Scale`, `Area`, `Drawn` and `DrawingBackend` in scope at the call
/// site, as every chart module has them.
macro_rules! chart_calls_draw {
    ($input:ty) => {
        crate::chart_calls_draw!($input => ());
    };
    ($input:ty => $output:ty) => {
        impl crate::Chart for $input {
            type Output = $output;
            fn draw<B: DrawingBackend>(&self, area: &Area<B>, theme: &Theme, scale: Scale) -> Drawn<$output> {
                draw(area, self, theme, scale)
            }
        }
    };
}
pub(crate) use chart_calls_draw;

pub mod bit_layout;
pub mod documents;
pub mod error;
pub mod gradients;
pub mod kquant_block;
pub mod labels;
pub mod legend;
pub mod memory_bar;
pub mod number_line;
pub mod palette;
pub mod parallel_layout;
pub mod quant;
pub mod scaling;
pub mod serve_budget;
pub mod serve_lines;
pub mod strategies;
pub mod style;
pub mod throughput;

pub use error::ChartError;

/// The plotters area a chart draws on (whole, not split: its origin is the top left).
pub type Area<B> = DrawingArea<B, Shift>;

/// What drawing a chart gives: `Ok` with the chart's extra output (`()` for most; the memory bar's
/// hit boxes) or the [`ChartError`] the backend raised.
pub type Drawn<T = ()> = Result<T, ChartError>;
pub use palette::{Rgb, Theme, DARK, LIGHT};
pub use style::Scale;

use plotters::coord::Shift;
use plotters::prelude::*;

/// Where one segment of a stacked bar was drawn, in backend pixels (for pointer hit-testing):
/// the memory bar's and the serving budget's parts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentHit<P> {
    /// The part.
    pub part: P,
    /// Top edge.
    pub top: i32,
    /// Bottom edge.
    pub bottom: i32,
}

/// A chart's input: something that can be drawn on any plotters area. Each implementation calls
/// its module's `draw`.
pub trait Chart {
    /// What drawing returns besides success (e.g. where each bar segment landed).
    type Output;
    /// Draws onto `area` (filling it with the theme's surface), lengths and fonts scaled by `scale`.
    fn draw<B: DrawingBackend>(
        &self,
        area: &Area<B>,
        theme: &Theme,
        scale: Scale,
    ) -> Drawn<Self::Output>;
}

/// Renders `chart` as a standalone SVG document of `width` × `height` pixels at [`Scale`] 1: the
/// same bytes on every platform for the same input (no font is measured, no font file embedded),
/// with font sizes in CSS pixels as on the canvas ([`style::restore_font_sizes`]).
pub fn svg<C: Chart>(chart: &C, width: u32, height: u32, theme: &Theme) -> Drawn<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        chart.draw(&root, theme, Scale(1.0))?;
        root.present()?;
    }
    Ok(style::restore_font_sizes(&out))
}
