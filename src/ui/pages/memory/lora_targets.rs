//! Which layers LoRA adapts: a checkbox per target bound to the `lora-targets` option (through the
//! option table, as a URL or CLI value), and the adapter count that results.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::job::lora_targets_text;
use bitbudget_math::memory::LoraTargets;
use bitbudget_math::numbers::format_count;
use leptos::prelude::*;

/// A target's switch inside [`LoraTargets`].
type Field = fn(&mut LoraTargets) -> &mut bool;

/// The targets, as (name in the option, label, field of [`LoraTargets`]).
const TARGETS: [(&str, &str, Field); 5] = [
    ("q", "query", |t| &mut t.q),
    ("k", "key", |t| &mut t.k),
    ("v", "value", |t| &mut t.v),
    ("o", "attention output", |t| &mut t.o),
    ("mlp", "MLP (all matrices)", |t| &mut t.mlp),
];

/// The LoRA target checkboxes and the adapter count.
#[component]
pub fn LoraTargetsField() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let boxes = TARGETS.map(|(name, label, field)| {
        let checked = move || state.query.with(|q| *field(&mut q.job.lora_targets()));
        let toggle = move |ev| {
            let on = event_target_checked(&ev);
            state.set(|q| {
                let mut t = q.job.lora_targets();
                *field(&mut t) = on;
                // The option table reads back what `lora_targets_text` writes.
                let _ = q.apply("lora-targets", &lora_targets_text(t));
            });
        };
        view! {
            <label class="check-box">
                <input type="checkbox" data-testid=format!("lora-target-{name}") prop:checked=checked on:change=toggle />
                " " {label}
            </label>
        }
    });
    let count = move || {
        state.shown.with(|b| {
            b.as_ref().map(|b| {
                format!(
                    "{} trainable adapter parameters",
                    format_count(b.trainable_params)
                )
            })
        })
    };
    view! {
        <fieldset class="lora-targets" aria-describedby="lora-targets-help">
            <legend>"Adapted layers"</legend>
            <div class="target-boxes">{boxes}</div>
            <p class="field-note" data-testid="adapter-count">{count}</p>
            <p class="field-note" id="lora-targets-help">"QLoRA adapts every linear layer by default, as the QLoRA paper does; LoRA starts with query and value, as the LoRA paper does."</p>
        </fieldset>
    }
}
