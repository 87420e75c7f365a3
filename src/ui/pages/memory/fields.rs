//! The Memory page's number box: a whole-number field bound to the query, checked as you type,
//! with the reason when its option does not apply; and that reason for any of the page's fields.

use crate::ui::pages::memory::query::parse_field;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::job::find_option;
use leptos::prelude::*;

/// Why the option `key` does not apply to the current setup, if it does not.
pub fn not_applicable(key: &'static str) -> Signal<Option<&'static str>> {
    let state = expect_context::<MemoryState>();
    Signal::derive(move || {
        let o = find_option(key)?;
        state.query.with(|q| q.job.not_applicable(o.name))
    })
}

/// A whole-number field bound to the query's count `key` (parsed and limited by the option table,
/// through `query::parse_field`). Invalid text stays in the box with a message; the last
/// valid value keeps driving the charts. Where the option does not apply, it says why.
#[component]
pub fn NumberField(
    /// Visible label.
    label: &'static str,
    /// The query field (also the URL and CLI name).
    key: &'static str,
    /// A short hint shown under the label.
    #[prop(optional)]
    hint: &'static str,
) -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let (error, set_error) = signal(None::<String>);
    let why = not_applicable(key);
    let id = format!("field-{key}");
    view! {
        <div class="field-box" class:invalid=move || error.get().is_some() class:not-applicable=move || why.get().is_some()>
            <label for=id.clone()>{label}</label>
            <input id=id type="text" inputmode="numeric" autocomplete="off" data-testid=format!("input-{key}")
                title=hint
                prop:value=move || state.query.with(|q| q.count(key)).to_string()
                on:input=move |ev| match parse_field(key, &event_target_value(&ev)) {
                    Ok(n) => {
                        set_error.set(None);
                        state.set(|q| q.set_count(key, n));
                    }
                    Err(e) => set_error.set(Some(e)),
                } />
            {move || error.get().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
            {move || why.get().map(|w| view! { <span class="field-note" data-testid=format!("why-{key}")>{w}"."</span> })}
        </div>
    }
}
