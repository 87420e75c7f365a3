//! The site's theme menu: System, Light or Dark, kept in local storage (and in the URL when the URL
//! named a theme).

use crate::ui::browser::store;
use crate::ui::shell::palette::{ThemeState, THEME_STORAGE_KEY};
use crate::ui::shell::url::ThemeChoice;
use leptos::prelude::*;

/// A labelled `<select>` that sets the [`ThemeState`] in context and remembers the choice.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let state = expect_context::<ThemeState>();
    let on_change = move |ev| {
        if let Ok(choice) = event_target_value(&ev).parse::<ThemeChoice>() {
            state.choice.set(choice);
            store(THEME_STORAGE_KEY, choice.name());
        }
    };
    view! {
        <label class="theme-toggle">
            "Theme "
            <select data-testid="theme-select" on:change=on_change prop:value=move || state.choice.get().name()>
                {ThemeChoice::ALL.into_iter().map(|t| view! {
                    <option value=t.name() selected=move || state.choice.get() == t>{t.label()}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
