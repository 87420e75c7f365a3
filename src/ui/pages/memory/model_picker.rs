//! Picking a model: a search box filtering a preset list grouped by family (with parameter counts),
//! or a custom architecture.

use crate::ui::components::fields::SelectField;
use crate::ui::pages::memory::config_drop::ConfigDrop;
use crate::ui::pages::memory::fields::NumberField;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::job::mlp_name;
use bitbudget_math::memory::{model_presets, Mlp, ModelPreset};
use bitbudget_math::numbers::format_count;
use leptos::prelude::*;

const CUSTOM: &str = "custom";
/// The picker's value while the URL gave a parameter count instead of a model.
const PARAMS: &str = "params";

/// Model preset select with search, and the custom architecture's fields when chosen.
#[component]
pub fn ModelPicker() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let (filter, set_filter) = signal(String::new());
    let presets = model_presets();
    let families: Vec<&'static str> = presets.iter().fold(Vec::new(), |mut acc, m| {
        if !acc.contains(&m.family) {
            acc.push(m.family);
        }
        acc
    });
    let selected = move || {
        state.query.with(|q| match (q.job.params, &q.job.model) {
            (Some(_), _) => PARAMS.to_string(),
            (None, Some(id)) => id.clone(),
            (None, None) => CUSTOM.to_string(),
        })
    };
    let params_label = move || {
        state.query.with(|q| q.job.params).map(|n| view! {
            <option value=PARAMS disabled=true selected=true>{format!("{} params only (from the link)", format_count(n))}</option>
        })
    };
    let matches = move |m: &ModelPreset| {
        let f = filter.with(|f| f.trim().to_ascii_lowercase());
        f.is_empty() || m.id.contains(&f) || m.name.to_ascii_lowercase().contains(&f)
    };
    let all = presets.clone();
    let match_count = move || all.iter().filter(|m| matches(m)).count();
    // The select always shows the model the numbers are for: it stays in the list (marked) even
    // when the filter leaves it out, so the select never shows a model that is not in use.
    let groups = move || {
        families
            .iter()
            .map(|family| {
                let options = presets
                    .iter()
                    .filter(|m| m.family == *family && (matches(m) || selected() == m.id))
                    .map(|m| {
                        let shown = if matches(m) { "" } else { " (in use; not matching the filter)" };
                        view! { <option value=m.id selected=selected() == m.id>{format!("{} · {} params{shown}", m.name, format_count(m.arch.params()))}</option> }
                    })
                    .collect_view();
                view! { <optgroup label=*family>{options}</optgroup> }
            })
            .collect_view()
    };
    let filter_note = move || {
        let f = filter.get();
        (!f.trim().is_empty()).then(|| match match_count() {
            0 => format!(
                "No preset matches “{}”: any model can be sized from its config.json (“Any model: paste or drop its config.json”, below).",
                f.trim()
            ),
            1 => "1 model matches: pick it in the list.".to_string(),
            n => format!("{n} models match: pick one in the list."),
        })
    };
    // A loaded config.json is a custom architecture the numbers below cannot fully express.
    let custom_label = move || {
        state.query.with(|q| {
            q.job
                .config_in_force()
                .map_or_else(|| "Custom architecture…".to_string(), |c| c.name.clone())
        })
    };
    let on_pick = move |ev| {
        let v = event_target_value(&ev);
        state.set(|q| {
            // The picker offers only presets and custom, which the table accepts.
            let _ = q.apply("model", &v);
        });
    };
    view! {
        <div class="field-box model-picker">
            <label for="field-model">"Model"</label>
            <input type="search" class="filter" placeholder="filter: llama, 70b…" aria-label="Filter models" data-testid="model-filter"
                prop:value=move || filter.get() on:input=move |ev| set_filter.set(event_target_value(&ev)) />
            <span class="field-note" role="status" data-testid="model-filter-note">{filter_note}</span>
            <select id="field-model" data-testid="input-model" prop:value=selected on:change=on_pick>
                {params_label}
                {groups}
                <option value=CUSTOM selected=move || selected() == CUSTOM>{custom_label}</option>
            </select>
            <ConfigDrop />
        </div>
        <Show when=move || state.query.with(|q| q.job.model.is_none())>
            <CustomArchFields />
        </Show>
    }
}

/// The custom architecture's fields.
#[component]
fn CustomArchFields() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let mlp = Signal::derive(move || state.query.with(|q| mlp_name(q.job.custom.mlp).to_string()));
    let set_mlp = Callback::new(move |v: String| {
        state.set(|q| {
            // The select offers only the table's names.
            let _ = q.apply("mlp", &v);
        })
    });
    let options: Vec<(String, String)> = [
        (Mlp::Gelu, "GELU (2 matrices)"),
        (Mlp::Swiglu, "SwiGLU (3 matrices)"),
    ]
    .map(|(m, label)| (mlp_name(m).to_string(), label.to_string()))
    .into();
    view! {
        <div class="custom-arch">
            <NumberField label="Layers" key="layers" />
            <NumberField label="Hidden" key="hidden" />
            <NumberField label="Heads" key="heads" />
            <NumberField label="KV heads" key="kv-heads" />
            <NumberField label="FFN" key="ffn" />
            <NumberField label="Vocab" key="vocab" />
            <SelectField label="MLP" key="mlp" options value=mlp on_change=set_mlp />
        </div>
    }
}
