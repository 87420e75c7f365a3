//! "Will it fit?": the verdict in words, what would make it fit (`memory::report::advice`, worded by the
//! math crate as the CLI prints it) with an "Apply" button per answer, and setup errors.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::report::advice::AdviceLine;
use bitbudget_math::memory::verdict;
use leptos::prelude::*;

/// The verdict, what the page changed on its own, the advice with "Apply" buttons, and why a
/// setup is invalid.
#[component]
pub fn Verdict() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let verdict = move || {
        let units = state.query.with(|q| q.job.units);
        state.setup.with(|s| {
            state
                .shown
                .with(|b| Some(verdict(b.as_ref()?.total, s.gpu.as_ref()?, units)))
        })
    };
    let fits = move || {
        state.result.with(|r| {
            state
                .setup
                .with(|s| matches!((r, &s.gpu), (Ok(b), Some(g)) if b.total <= g.capacity_bytes))
        })
    };
    let lines = move || -> Vec<AdviceLine> {
        let Ok(b) = state.result.get() else {
            return Vec::new();
        };
        state.setup.with(|s| match &s.gpu {
            Some(g) => state
                .advice
                .with(|a| a.lines(b.total <= g.capacity_bytes, s.gpus(), g.name, s.units)),
            None => Vec::new(),
        })
    };
    view! {
        {move || state.result.get().err().map(|e| view! {
            <p class="setup-error" role="alert" data-testid="setup-error">{capitalized(&e.to_string())}". The charts show the last setup that worked."</p>
        })}
        {move || state.settled.get().map(|n| view! {
            <p class="settled-note" role="status" data-testid="settled-note">{n}</p>
        })}
        <p class="verdict" class:fits=fits data-testid="verdict">{verdict}</p>
        <ul class="suggestions" data-testid="suggestion">
            {move || lines().into_iter().map(advice_item).collect_view()}
        </ul>
        <ReportNotes />
    }
}

/// The report's notes (what was assumed or left out: a sequence past the trained context, the
/// recipe's framework, a GPU without FP8 tensor cores), the same list the CLI prints.
#[component]
fn ReportNotes() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let notes = move || {
        state
            .result
            .with(|r| r.as_ref().map(|b| b.notes.clone()).unwrap_or_default())
    };
    view! {
        <Show when=move || !notes().is_empty()>
            <ul class="report-notes" data-testid="report-notes" aria-label="Notes on this estimate">
                {move || notes().into_iter().map(|n| view! { <li>{sentence(&n)}</li> }).collect_view()}
            </ul>
        </Show>
    }
}

/// One sentence of advice, with an "Apply" button when there is something to apply.
fn advice_item(line: AdviceLine) -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let kind = format!("{:?}", line.kind);
    let button = line.suggestion.map(|s| {
        view! { <button type="button" class="chip" data-testid=format!("apply-{kind}") on:click=move |_| state.apply(&s)>"Apply"</button> }
    });
    view! { <li class="suggestion" data-kind=kind.clone()>{line.text}" "{button}</li> }
}

/// `text` with its first letter in upper case (the math crate's messages start in lower case so
/// that the CLI can put the option in front).
/// `text` as a sentence: capitalized, ending with a full stop.
fn sentence(text: &str) -> String {
    let mut s = capitalized(text.trim());
    if !s.ends_with('.') {
        s.push('.');
    }
    s
}

fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
