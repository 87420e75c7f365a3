//! Plotters drawing code: plain `draw(canvas, &data)` functions, no reactivity.

pub mod number_line;
