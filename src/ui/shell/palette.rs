//! The palette lives in `bitbudget_charts::palette` (shared with the CLI's SVG output); this
//! module re-exports it and adds the browser-dependent part: which theme is shown, from the
//! reader's explicit choice (URL or theme menu) or else the system's `prefers-color-scheme`.

use crate::ui::shell::url::ThemeChoice;
pub use bitbudget_charts::palette::*;
use leptos::prelude::*;

/// Local-storage key of the theme chosen in the site's theme menu.
pub const THEME_STORAGE_KEY: &str = "bitbudget-theme";

/// The shown theme, shared through context by the app shell: the reader's choice and what the
/// system prefers.
#[derive(Clone, Copy)]
pub struct ThemeState {
    /// The reader's choice (URL, local storage or theme menu).
    pub choice: RwSignal<ThemeChoice>,
    /// Whether the system prefers dark (followed by [`ThemeChoice::Auto`]).
    pub system_dark: ReadSignal<bool>,
}

impl ThemeState {
    /// Whether the dark theme is shown (reactive).
    pub fn is_dark(&self) -> bool {
        self.choice.get().is_dark(self.system_dark.get())
    }

    /// The shown theme's colours (reactive).
    pub fn theme(&self) -> Theme {
        if self.is_dark() {
            DARK
        } else {
            LIGHT
        }
    }
}

/// The theme to draw in: the app's [`ThemeState`] when there is one (so a chart's effect that
/// calls this redraws when the theme changes), else the system's `prefers-color-scheme`.
pub fn current() -> Theme {
    match use_context::<ThemeState>() {
        Some(state) => state.theme(),
        None if crate::ui::browser::prefers_dark() => DARK,
        None => LIGHT,
    }
}
