//! What a GGUF header says about memory (`memory::report::gguf_fit`), under the page's context, KV dtype,
//! GPU and overhead: the model, its weights, the KV cache, the fit or the partial offload, and
//! every tensor.

use crate::ui::components::gguf_file::LoadedGguf;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::report::gguf_fit::{gguf_report, GgufReport};
use bitbudget_math::numbers::{format_bytes, human_bytes, Units};
use leptos::prelude::*;

/// The summary of one GGUF file.
#[component]
pub fn GgufSummary(
    /// The header read from the file.
    loaded: LoadedGguf,
) -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let header = loaded.header.clone();
    let report = Memo::new(move |_| state.query.with(|q| gguf_report(&header, &q.job)));
    let units = move || state.query.with(|q| q.job.units);
    let kv = move || state.query.with(|q| report.with(|r| r.kv_text(&q.job)));
    let verdict = move || {
        report
            .with(|r| r.verdict.clone())
            .unwrap_or_else(|| "Choose a GPU in the controls to see whether it fits.".into())
    };
    let read = format!(
        "{}: read the first {} of {} ({} read{}), the header and tensor index only.",
        loaded.name,
        human_bytes(loaded.read),
        human_bytes(loaded.size),
        loaded.reads,
        if loaded.reads == 1 { "" } else { "s" }
    );
    let back = move || {
        state.setup.with(|s| match &s.model {
            bitbudget_math::memory::ModelSpec::Arch { name, .. } => {
                bitbudget_math::memory::find_model(name)
                    .map_or_else(|| name.clone(), |m| m.name.to_string())
            }
            bitbudget_math::memory::ModelSpec::Params(n) => {
                format!("{} parameters", bitbudget_math::numbers::format_count(*n))
            }
        })
    };
    view! {
        <div class="gguf-summary" data-testid="gguf-summary">
            <p class="verdict" class:fits=move || report.with(|r| r.fit.as_ref().is_some_and(|f| f.fits)) data-testid="gguf-verdict">{verdict}</p>
            <p><button type="button" class="chip" data-testid="gguf-back" on:click=move |_| state.gguf.set(None)>{move || format!("Back to {}", back())}</button></p>
            <p data-testid="gguf-read" class="hint" data-read=loaded.read data-size=loaded.size>{read}</p>
            <p data-testid="gguf-model">{move || report.with(|r| r.headline(units()))}</p>
            <p data-testid="gguf-kv">{kv}</p>
            <ul data-testid="gguf-notes">{move || report.with(|r| r.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view())}</ul>
            <details>
                <summary>"Every tensor"</summary>
                {move || report.with(|r| tensor_table(r, units()))}
            </details>
        </div>
    }
}

fn tensor_table(r: &GgufReport, u: Units) -> impl IntoView {
    let rows = r
        .model
        .tensors
        .iter()
        .map(|t| {
            let shape = t.dims.iter().map(u64::to_string).collect::<Vec<_>>().join(" × ");
            view! { <tr><td><code>{t.name.clone()}</code></td><td>{t.ty.name()}</td><td>{shape}</td><td class="num">{format_bytes(t.bytes, u)}</td></tr> }
        })
        .collect_view();
    view! {
        <table class="gguf-tensors" data-testid="gguf-tensors">
            <thead><tr><th>"Tensor"</th><th>"Type"</th><th>"Shape"</th><th>"Bytes"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
