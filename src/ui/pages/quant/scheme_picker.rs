//! Which schemes the Quantize lab compares: every one by default, or a family or a hand-picked
//! few (`schemes=` in the URL). Fewer schemes compute sooner on a large tensor, and an embed can
//! compare exactly the schemes a post discusses.

use crate::ui::pages::quant::query::SchemeSet;
use crate::ui::pages::quant::state::QuantState;
use bitbudget_math::quant::scheme::{Scheme, SchemeFamily};
use leptos::prelude::*;

/// The picker: a checkbox per scheme, grouped by family, each family with a checkbox of its own.
#[component]
pub fn SchemePicker() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let set = move || state.query.with(|q| q.schemes);
    let count = move || {
        let n = set().len();
        if n == Scheme::ALL.len() {
            format!("Schemes compared: all {n}")
        } else {
            format!("Schemes compared: {n} of {}", Scheme::ALL.len())
        }
    };
    view! {
        <details class="scheme-picker" data-testid="scheme-picker">
            <summary data-testid="scheme-count">{count}</summary>
            {SchemeFamily::ALL.into_iter().map(|family| view! { <FamilyChecks family /> }).collect_view()}
            <div class="examples" role="group" aria-label="Scheme presets">
                <button type="button" class="chip" data-testid="compare-all"
                    on:click=move |_| state.query.update(|q| q.schemes = SchemeSet::ALL)>"all schemes"</button>
                <button type="button" class="chip" data-testid="compare-shown"
                    on:click=move |_| state.query.update(|q| q.schemes = SchemeSet::only(q.scheme))>"only the one shown"</button>
            </div>
            <p class="help">"Fewer schemes finish sooner on a large tensor. The scheme shown in detail is always compared."</p>
        </details>
    }
}

/// One family: its own checkbox (checked when all its schemes are compared, mixed when some
/// are), then one per scheme.
#[component]
fn FamilyChecks(family: SchemeFamily) -> impl IntoView {
    let state = expect_context::<QuantState>();
    let on = move || {
        state
            .query
            .with(|q| family.schemes().filter(|s| q.schemes.contains(*s)).count())
    };
    let all = family.schemes().count();
    let toggle_family = move |ev| {
        let checked = event_target_checked(&ev);
        state.query.update(|q| {
            for s in family.schemes() {
                q.compare(s, checked);
            }
        });
    };
    view! {
        <fieldset class="scheme-family">
            <legend>
                <label class="check-box">
                    <input type="checkbox" data-testid=format!("family-{}", family.name())
                        prop:checked=move || on() == all prop:indeterminate={move || (1..all).contains(&on())}
                        on:change=toggle_family />
                    " " {family.label()}
                </label>
            </legend>
            <div class="scheme-checks">
                {family.schemes().map(|s| view! {
                    <label class="check-box">
                        <input type="checkbox" data-testid=format!("compare-{s}")
                            prop:checked=move || state.query.with(|q| q.schemes.contains(s))
                            on:change=move |ev| {
                                let checked = event_target_checked(&ev);
                                state.query.update(|q| q.compare(s, checked));
                            } />
                        " " {s.name()}
                    </label>
                }).collect_view()}
            </div>
        </fieldset>
    }
}
