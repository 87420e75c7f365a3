//! The list of chapters, and the previous/next buttons.

use super::chapters::text;
use crate::ui::pages::learn::query::{learn_query_string, Chapter};
use leptos::prelude::*;

/// Every chapter as a link; following one changes the chapter in place.
#[component]
pub fn ChapterNav(
    /// The chapter shown; written when a link is followed.
    current: RwSignal<Chapter>,
    /// Moves to a chapter (and puts the focus on its heading).
    go: Callback<Chapter>,
) -> impl IntoView {
    view! {
        <nav class="learn-nav" aria-label="Chapters">
            <ol>
                {Chapter::all().map(|c| view! {
                    <li>
                        <a href=learn_query_string(c, false) data-testid=format!("learn-nav-{c}")
                            aria-current=move || (current.get() == c).then_some("step")
                            on:click=move |ev| { ev.prevent_default(); go.run(c); }>
                            {text(c).title}
                        </a>
                    </li>
                }).collect_view()}
            </ol>
        </nav>
    }
}

/// "Previous" and "Next" buttons (absent at the ends).
#[component]
pub fn PrevNext(
    /// The chapter shown.
    current: RwSignal<Chapter>,
    /// Moves to a chapter.
    go: Callback<Chapter>,
) -> impl IntoView {
    let prev = move || current.get().prev();
    let next = move || current.get().next();
    view! {
        <div class="learn-prev-next">
            {move || prev().map(|c| view! { <button type="button" class="chip" data-testid="learn-prev" on:click=move |_| go.run(c)>{format!("← {}. {}", c, text(c).title)}</button> })}
            {move || next().map(|c| view! { <button type="button" class="chip" data-testid="learn-next" on:click=move |_| go.run(c)>{format!("{}. {} →", c, text(c).title)}</button> })}
        </div>
    }
}
