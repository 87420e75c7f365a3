//! Time per step and tokens per second next to the memory: the math crate's step model
//! (`memory::step`) for the page's setup, with its two knobs (utilisation, gradient accumulation).

use crate::ui::pages::memory::fields::NumberField;
use crate::ui::pages::memory::state::MemoryDetails;
use bitbudget_math::memory::step::text::{format_flops, format_seconds, format_tokens_per_s};
use leptos::prelude::*;

/// Seconds per step, tokens per second, and (in a disclosure) what the seconds are made of.
#[component]
pub fn StepTimePanel() -> impl IntoView {
    let details = expect_context::<MemoryDetails>();
    let timing = move || {
        details
            .step
            .with(|r| r.as_ref().ok().and_then(|t| t.timing.clone()))
    };
    let seconds = move || timing().map_or("—".into(), |t| format_seconds(t.total_s));
    let tokens = move || timing().map_or("—".into(), |t| format_tokens_per_s(t.tokens_per_s));
    let why_not = move || {
        details.step.with(|r| match r {
            Ok(t) => t.no_timing.clone(),
            Err(e) => Some(e.to_string()),
        })
    };
    let summary = move || {
        details
            .step
            .with(|r| r.as_ref().map(|t| t.summary()).unwrap_or_default())
    };
    let flops = move || {
        details.step.with(|r| {
            r.as_ref()
                .map(|t| format_flops(t.hardware_flops))
                .unwrap_or_default()
        })
    };
    let assumptions = move || {
        details.step.with(|r| {
            r.as_ref()
                .map(|t| {
                    t.assumptions
                        .iter()
                        .map(|a| view! { <li>{a.clone()}</li> })
                        .collect_view()
                })
                .ok()
        })
    };
    view! {
        <div class="step-time" data-testid="step-time">
            <p class="step-figures">
                <span>"Time per step "<strong class="num" data-testid="step-seconds">{seconds}</strong></span>
                <span>"Throughput "<strong class="num" data-testid="step-tokens">{tokens}</strong></span>
                <span>"Work "<strong class="num" data-testid="step-flops">{flops}</strong></span>
            </p>
            {move || why_not().map(|w| view! { <p class="note" data-testid="step-why-not">{w}</p> })}
            <div class="row2">
                <NumberField label="Utilisation (%)" key="utilisation" hint="share of the GPU's dense 16-bit tensor peak sustained" />
                <NumberField label="Gradient accumulation" key="grad-accum" hint="micro-batches per optimizer step" />
            </div>
            <details class="chart-numbers">
                <summary>"How the step time is estimated"</summary>
                <p data-testid="step-summary">{summary}</p>
                <ul>{assumptions}</ul>
            </details>
        </div>
    }
}
