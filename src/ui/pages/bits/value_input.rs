//! The value box of the Bits page, with validation as you type and example values.

use crate::ui::components::term::{with_terms, Term};
use crate::ui::pages::bits::state::BitsState;
use leptos::prelude::*;

const EXAMPLES: [(&str, &str); 8] = [
    ("0.1", "0.1"),
    ("1/3", "0.3333333333333333"),
    ("π", "pi"),
    ("65504", "65504"),
    ("1e-8", "1e-8"),
    ("max", "max"),
    ("min_subnormal", "min_subnormal"),
    ("nan", "nan"),
];

/// Text input for the value; shows why a text does not parse and keeps the last good value.
#[component]
pub fn ValueInput() -> impl IntoView {
    let state = expect_context::<BitsState>();
    let error = move || state.parsed.get().err().map(|e| e.to_string());
    let note = move || state.parsed.get().ok().and_then(|p| p.note);
    view! {
        <div class="value-input">
            <label for="bits-value">"Value"</label>
            <input
                id="bits-value"
                type="text"
                inputmode="decimal"
                autocomplete="off"
                spellcheck="false"
                data-testid="value-input"
                aria-describedby="bits-value-help"
                class:invalid=move || error().is_some()
                prop:value=move || state.text.get()
                on:input=move |ev| state.text.set(event_target_value(&ev))
            />
            <p id="bits-value-help" class="help" aria-live="polite">
                {move || match (error(), note()) {
                    (Some(e), _) => view! { <span class="error" data-testid="value-error">{e}</span> }.into_any(),
                    (None, Some(n)) => view! { <span class="note">{with_terms(&n)}</span> }.into_any(),
                    (None, None) => view! {
                        <span>"A decimal (0.1, -2.5e-3), a 0x bit pattern of the selected format, or a name: inf, nan, max, min (smallest normal), min_subnormal, eps."</span>
                    }.into_any(),
                }}
            </p>
            <div class="examples" role="group" aria-label="Example values">
                {EXAMPLES.iter().map(|(label, text)| view! {
                    <button class="chip" on:click=move |_| state.text.set(text.to_string())>{*label}</button>
                }).collect_view()}
            </div>
            <label class="toggle">
                <input type="checkbox" data-testid="saturate"
                    prop:checked=move || state.saturate.get()
                    on:change=move |ev| state.saturate.set(event_target_checked(&ev)) />
                " " <Term word="saturate" text="Saturate" /> " on overflow (clamp to ±max instead of inf/NaN)"
            </label>
        </div>
    }
}
