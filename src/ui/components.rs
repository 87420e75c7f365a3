//! Reusable components.

pub mod bit_row;
pub mod breakdown_legend;
pub mod canvas_chart;
pub mod conventions_table;
pub mod downloads;
pub mod facts_table;
pub mod fields;
pub mod format_card;
pub mod memory_bar_chart;
pub mod memory_controls;
pub mod model_picker;
pub mod notes;
pub mod value_input;
pub mod verdict;
