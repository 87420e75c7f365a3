//! Form fields of the Memory page: a number box that validates as you type, and a select.

use crate::ui::memory_query::parse_field;
use crate::ui::memory_state::MemoryState;
use leptos::prelude::*;

/// A whole-number field bound to the query's count `key` (parsed and limited by the option table,
/// through `memory_query::parse_field`). Invalid text stays in the box with a message; the last
/// valid value keeps driving the charts.
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
    let id = format!("field-{key}");
    view! {
        <div class="field-box" class:invalid=move || error.get().is_some()>
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
        </div>
    }
}

/// A select whose options are (value, label) pairs.
#[component]
pub fn SelectField(
    /// Visible label.
    label: &'static str,
    /// `data-testid` and id suffix.
    key: &'static str,
    /// (value, label) options.
    options: Vec<(String, String)>,
    /// The selected value.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the new value.
    on_change: Callback<String>,
) -> impl IntoView {
    let id = format!("field-{key}");
    view! {
        <div class="field-box">
            <label for=id.clone()>{label}</label>
            <select id=id data-testid=format!("input-{key}") prop:value=move || value.get() on:change=move |ev| on_change.run(event_target_value(&ev))>
                {options.into_iter().map(|(v, l)| view! { <option value=v>{l}</option> }).collect_view()}
            </select>
        </div>
    }
}

/// A checkbox bound to a boolean.
#[component]
pub fn CheckField(
    /// Visible label.
    label: &'static str,
    /// `data-testid` suffix.
    key: &'static str,
    /// Checked?
    #[prop(into)]
    value: Signal<bool>,
    /// Called with the new state.
    on_change: Callback<bool>,
) -> impl IntoView {
    view! {
        <label class="check-box">
            <input type="checkbox" data-testid=format!("input-{key}") prop:checked=move || value.get()
                on:change=move |ev| on_change.run(event_target_checked(&ev)) />
            " " {label}
        </label>
    }
}

/// Options for a select from a list of names.
pub fn named_options(names: impl IntoIterator<Item = &'static str>) -> Vec<(String, String)> {
    names
        .into_iter()
        .map(|n| (n.to_string(), n.to_string()))
        .collect()
}
