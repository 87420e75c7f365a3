//! Chapter 14's widget: what vLLM leaves for the KV cache on one H100, and how many requests of a
//! given length it holds, for a few models, contexts and KV types.

use crate::ui::pages::serve::query::ServeQuery;
use bitbudget_math::numbers::{format_bytes, grouped, Units};
use bitbudget_math::serve::{serve, KvDtype};
use leptos::prelude::*;

/// The models offered (preset ids).
const MODELS: [(&str, &str); 3] = [
    ("llama-3.1-8b", "Llama 3.1 8B"),
    ("qwen3-8b", "Qwen3 8B"),
    ("gemma-3-12b", "Gemma 3 12B"),
];

/// Context lengths offered.
const LENGTHS: [u64; 4] = [4096, 8192, 32768, 131072];

/// The widget's state as a Serve page query (vLLM on one H100).
fn query(model: &str, len: u64, kv: KvDtype) -> ServeQuery {
    ServeQuery {
        model: model.into(),
        len: Some(len),
        kv,
        ..ServeQuery::default()
    }
}

/// Model, context and KV type; the budget, the cost of a token and the requests held.
#[component]
pub fn ServeWidget() -> impl IntoView {
    let model = RwSignal::new(MODELS[0].0.to_string());
    let len = RwSignal::new(LENGTHS[1]);
    let kv = RwSignal::new(KvDtype::Bf16);
    let q = Memo::new(move |_| query(&model.get(), len.get(), kv.get()));
    let report = Memo::new(move |_| {
        q.with(|q| q.setup().and_then(|s| serve(&s).map_err(|e| e.to_string())))
    });
    let cell = move |f: fn(&bitbudget_math::serve::ServeReport) -> String| {
        move || report.with(|r| r.as_ref().map_or_else(|e| e.clone(), f))
    };
    view! {
        <div class="learn-widget" data-testid="learn-widget">
            <label class="learn-knob">"Model "
                <select data-testid="learn-serve-model" on:change=move |ev| model.set(event_target_value(&ev))>
                    {MODELS.iter().map(|(id, label)| view! { <option value=*id>{*label}</option> }).collect_view()}
                </select>
            </label>
            <label class="learn-knob">" max_model_len "
                <select data-testid="learn-serve-len" prop:value=move || len.get().to_string()
                    on:change=move |ev| if let Ok(n) = event_target_value(&ev).parse() { len.set(n) }>
                    {LENGTHS.iter().map(|n| view! { <option value=n.to_string()>{grouped(*n as usize)}</option> }).collect_view()}
                </select>
            </label>
            <label class="learn-knob">" KV cache "
                <select data-testid="learn-serve-kv" on:change=move |ev| if let Ok(k) = event_target_value(&ev).parse() { kv.set(k) }>
                    <option value="bf16">"BF16"</option>
                    <option value="fp8">"FP8"</option>
                </select>
            </label>
        <div class="table-scroll">
        <table class="facts">
            <tbody>
                <tr><th scope="row">"Weights"</th><td class="num" data-testid="learn-serve-weights">{cell(|r| format_bytes(r.per_gpu.weights, Units::Gib))}</td></tr>
                <tr><th scope="row">"KV cache vLLM leaves (at 0.9)"</th><td class="num" data-testid="learn-serve-kv-bytes">{cell(|r| format_bytes(r.per_gpu.kv_cache, Units::Gib))}</td></tr>
                <tr><th scope="row">"One token, all layers"</th><td class="num" data-testid="learn-serve-per-token">{cell(|r| format_bytes(r.kv_bytes_per_token, Units::Gib))}</td></tr>
                <tr><th scope="row">"Requests at once"</th><td class="num" data-testid="learn-serve-concurrency">{cell(|r| format!("{:.1}", r.max_concurrency))}</td></tr>
            </tbody>
        </table>
        </div>
        <p class="field-note"><a href=move || q.with(|q| q.to_query_string(false)) data-testid="learn-serve-link">"Open this on the Serve page"</a>" for the other engines, more GPUs and tokens per second."</p>
        </div>
    }
}
