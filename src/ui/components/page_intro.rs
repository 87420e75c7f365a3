//! A page's heading and lede, left out of embedded widgets (which show only the tool).

use leptos::prelude::*;

/// The `<h2 id=id>` heading (which the page's `aria-labelledby` names) and one lede paragraph,
/// shown unless `embed`.
#[component]
pub fn PageIntro(
    /// The heading's id.
    id: &'static str,
    /// The heading (may follow the page's state).
    #[prop(into)]
    title: Signal<String>,
    /// The paragraph under it.
    lede: &'static str,
    /// Embedded in an iframe: show nothing.
    embed: bool,
) -> impl IntoView {
    view! {
        <Show when=move || !embed>
            <h2 id=id data-testid=id>{title}</h2>
            <p class="lede">{lede}</p>
        </Show>
    }
}
