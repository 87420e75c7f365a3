//! A note above the table naming each compared scheme that cannot run on the current tensor
//! (`fp8-128x128` on values that are not whole rows of its columns) and why.

use crate::ui::pages::quant::state::QuantState;
use leptos::prelude::*;

/// Shows the schemes [`crate::ui::pages::quant::query::QuantQuery::runnable`] leaves out, one
/// sentence each; renders nothing when every compared scheme runs.
#[component]
pub fn LeftOutNote() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let message = move || {
        let shape = state
            .current
            .with(|t| t.as_ref().ok().map(|t| t.shape.clone()))?;
        let left_out = state.query.with(|q| q.runnable(q.compared(), &shape).1);
        let sentences: Vec<String> = left_out
            .iter()
            .map(|(s, why)| format!("{s} is left out: {why}."))
            .collect();
        (!sentences.is_empty()).then(|| sentences.join(" "))
    };
    move || {
        message().map(|m| view! { <p class="non-finite-note" role="status" data-testid="left-out-note">{m}</p> })
    }
}
