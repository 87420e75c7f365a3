//! Notes about input that was not understood (bad URL parameters and the like).

use leptos::prelude::*;

/// A dismissible list of notes; renders nothing when empty.
#[component]
pub fn Notes(
    /// One sentence per note.
    notes: Vec<String>,
) -> impl IntoView {
    let (visible, set_visible) = signal(!notes.is_empty());
    view! {
        <Show when=move || visible.get()>
            <div class="notes" role="status" data-testid="url-notes">
                <ul>{notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul>
                <button class="link" on:click=move |_| set_visible.set(false)>"Dismiss"</button>
            </div>
        </Show>
    }
}
