//! A word of jargon explained: a small "?" button whose explanation shows on hover and on keyboard
//! focus, and is the button's accessible description (a `title` alone is not read on focus).

use leptos::prelude::*;

/// A "?" after a term, explaining it on hover and focus.
#[component]
pub fn Jargon(
    /// The term explained ("Data / Tensor / Pipeline").
    term: &'static str,
    /// The explanation, one or two short sentences.
    text: &'static str,
    /// Unique suffix for the explanation's id.
    id: &'static str,
) -> impl IntoView {
    let tip_id = format!("jargon-{id}");
    view! {
        <span class="jargon">
            <button type="button" class="jargon-button" aria-label=format!("What is {term}?") aria-describedby=tip_id.clone() data-testid=format!("jargon-{id}")>"?"</button>
            <span class="jargon-tip" role="tooltip" id=tip_id>{text}</span>
        </span>
    }
}
