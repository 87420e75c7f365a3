//! The palette lives in `bitbudget_charts::palette` (shared with the CLI's SVG output); this
//! module re-exports it and adds the one browser-dependent choice: the theme the system asks for.

pub use bitbudget_charts::palette::*;

/// The theme the system asks for (`prefers-color-scheme`).
pub fn current() -> Theme {
    if crate::ui::browser::prefers_dark() {
        DARK
    } else {
        LIGHT
    }
}
