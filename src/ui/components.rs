//! Components two or more pages share: a format's bit row (Bits and Learn), the canvas chart
//! (every page), form fields, the config.json paste (Memory and Serve), a page's heading and
//! lede, jargon explained on hover and focus, the one-line summary that stays in view on a phone
//! (Memory and Quantize), what an embedded widget keeps behind a click (every page), and the Serve
//! page's link for a memory job (Memory and Learn).

pub mod bit_row;
pub mod canvas_chart;
pub mod config_paste;
pub mod embed_more;
pub mod fields;
pub mod page_intro;
pub mod parallel_layout;
pub mod serve_link;
pub mod sticky_summary;
pub mod term;
