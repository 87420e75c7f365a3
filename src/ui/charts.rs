//! Plotters drawing code: plain `draw` functions over any backend (canvas, SVG), no reactivity.

pub mod labels;
pub mod memory_bar;
pub mod number_line;
pub mod quant;
pub mod scaling;
pub mod strategies;
pub mod style;
