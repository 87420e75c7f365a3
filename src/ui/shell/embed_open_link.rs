//! The small "open in bitbudget" link at the foot of a widget.

use crate::ui::browser::{current_query, page_path};
use crate::ui::shell::url::full_page_query;
use leptos::prelude::*;

/// A link to the full page with the widget's current state, opening in a new tab.
#[component]
pub fn EmbedOpenLink() -> impl IntoView {
    let path = page_path();
    let href = move || format!("{path}{}", full_page_query(&current_query()));
    view! {
        <p class="open-full">
            <a href=href target="_blank" rel="noopener" data-testid="open-full">"Open in bitbudget ↗"</a>
        </p>
    }
}
