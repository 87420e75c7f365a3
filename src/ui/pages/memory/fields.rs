//! Form fields of the Memory page: a number box that validates as you type, and a select.

use crate::ui::pages::memory::query::parse_field;
use crate::ui::pages::memory::state::MemoryState;
use leptos::prelude::*;

/// A whole-number field bound to the query's count `key` (parsed and limited by the option table,
/// through `query::parse_field`). Invalid text stays in the box with a message; the last
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
    /// Why the option does not apply to the current setup (the select is disabled and the
    /// reason shown under it, linked with `aria-describedby`); `None` when it applies.
    #[prop(optional, into)]
    not_applicable: Signal<Option<&'static str>>,
    /// Why a value cannot be chosen (disabled in the list), or `None` when it can.
    #[prop(optional)]
    refuse: Option<Callback<String, Option<&'static str>>>,
) -> impl IntoView {
    let id = format!("field-{key}");
    let note_id = format!("why-{key}");
    let described = note_id.clone();
    view! {
        <div class="field-box" class:not-applicable=move || not_applicable.get().is_some()>
            <label for=id.clone()>{label}</label>
            <select id=id data-testid=format!("input-{key}") prop:value=move || value.get() on:change=move |ev| on_change.run(event_target_value(&ev))
                disabled=move || not_applicable.get().is_some()
                aria-describedby=move || not_applicable.get().map(|_| described.clone())>
                {options.into_iter().map(|(v, l)| {
                    let value = v.clone();
                    let why = Signal::derive(move || refuse.and_then(|r| r.run(v.clone())));
                    view! { <option value=value disabled=move || why.get().is_some() title=move || why.get().unwrap_or_default()>{l}</option> }
                }).collect_view()}
            </select>
            {move || not_applicable.get().map(|why| view! { <span class="field-note" id=note_id.clone() data-testid=format!("why-{key}")>{why}"."</span> })}
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
    /// Why the option does not apply to the current setup (disabled, reason shown); `None` when
    /// it applies.
    #[prop(optional, into)]
    not_applicable: Signal<Option<&'static str>>,
) -> impl IntoView {
    let note_id = format!("why-{key}");
    let described = note_id.clone();
    view! {
        <label class="check-box">
            <input type="checkbox" data-testid=format!("input-{key}") prop:checked=move || value.get()
                disabled=move || not_applicable.get().is_some()
                aria-describedby=move || not_applicable.get().map(|_| described.clone())
                on:change=move |ev| on_change.run(event_target_checked(&ev)) />
            " " {label}
            {move || not_applicable.get().map(|why| view! { <span class="field-note" id=note_id.clone()>" — "{why}"."</span> })}
        </label>
    }
}
