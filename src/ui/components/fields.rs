//! Form fields two pages share: a select of (value, label) pairs, a checkbox, and a text box
//! checked as you type, each with its label, an optional "does not apply" reason and an error.

use leptos::prelude::*;

/// A label with a line-break opportunity after each underscore, so that an engine's knob name
/// (`max_num_batched_tokens`) wraps at its words in a narrow column instead of mid-word.
fn breakable(label: &'static str) -> impl IntoView {
    let parts: Vec<&'static str> = label.split_inclusive('_').collect();
    let last = parts.len().saturating_sub(1);
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| view! { {part}{(i < last).then(|| view! { <wbr /> })} })
        .collect_view()
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
            <label for=id.clone()>{breakable(label)}</label>
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
            " " {breakable(label)}
            {move || not_applicable.get().map(|why| view! { <span class="field-note" id=note_id.clone() data-testid=format!("why-{key}")>" — "{why}"."</span> })}
        </label>
    }
}

/// A text box for a number-like value: `check` returns why a text is refused (shown under the box,
/// and `on_change` not called) or `None`, in which case `on_change` gets the text.
#[component]
pub fn CheckedField(
    /// Visible label.
    label: &'static str,
    /// `data-testid` and id suffix.
    key: &'static str,
    /// The value shown.
    #[prop(into)]
    value: Signal<String>,
    /// Why a text is refused, or `None`.
    check: Callback<String, Option<String>>,
    /// Called with an accepted text.
    on_change: Callback<String>,
    /// A short hint (the box's title).
    #[prop(optional)]
    hint: &'static str,
) -> impl IntoView {
    let (error, set_error) = signal(None::<String>);
    let id = format!("field-{key}");
    view! {
        <div class="field-box" class:invalid=move || error.get().is_some()>
            <label for=id.clone()>{breakable(label)}</label>
            <input id=id type="text" inputmode="decimal" autocomplete="off" data-testid=format!("input-{key}")
                title=hint
                prop:value=move || value.get()
                on:input=move |ev| {
                    let text = event_target_value(&ev);
                    match check.run(text.clone()) {
                        Some(e) => set_error.set(Some(e)),
                        None => {
                            set_error.set(None);
                            on_change.run(text);
                        }
                    }
                } />
            {move || error.get().map(|e| view! { <span class="field-error" role="alert">{e}</span> })}
        </div>
    }
}
