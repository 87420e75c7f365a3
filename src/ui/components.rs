//! Components two or more pages share: a format's bit row (Bits and Learn), the canvas chart
//! (every page), form fields (Memory and Serve), a page's heading and lede, and jargon explained on
//! hover and focus.

pub mod bit_row;
pub mod canvas_chart;
pub mod fields;
pub mod page_intro;
pub mod parallel_layout;
pub mod term;
