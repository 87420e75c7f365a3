//! Reusable components.

pub mod bit_row;
pub mod canvas_chart;
pub mod facts_table;
pub mod format_card;
pub mod notes;
pub mod value_input;
