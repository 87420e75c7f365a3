//! All controls of the Memory page, grouped; every change lands in the typed query.

use crate::ui::components::fields::{CheckField, NumberField, SelectField};
use crate::ui::components::model_picker::ModelPicker;
use crate::ui::memory_query::MemoryQuery;
use crate::ui::memory_state::MemoryState;
use bitbudget_math::memory::{
    gpu_presets, Convention, Dtype, Mode, Offload, Optimizer, Recompute, ZeroStage,
};
use bitbudget_math::numbers::Units;
use leptos::prelude::*;

fn names<T: Copy + ToString>(all: &[T]) -> Vec<(String, String)> {
    all.iter().map(|v| (v.to_string(), v.to_string())).collect()
}

/// A select bound to one field of the query, parsed with `FromStr`.
fn bound_select<T>(
    label: &'static str,
    key: &'static str,
    options: Vec<(String, String)>,
    get: fn(&MemoryQuery) -> T,
    put: fn(&mut MemoryQuery, T),
) -> impl IntoView
where
    T: std::str::FromStr + ToString + Send + Sync + 'static,
{
    let state = expect_context::<MemoryState>();
    let value = Signal::derive(move || state.query.with(|q| get(q).to_string()));
    let on_change = Callback::new(move |v: String| {
        if let Ok(parsed) = v.parse::<T>() {
            state.set(|q| put(q, parsed));
        }
    });
    view! { <SelectField label key options value on_change /> }
}

/// The controls panel.
#[component]
pub fn MemoryControls() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let zero_options: Vec<(String, String)> = ZeroStage::ALL
        .iter()
        .map(|z| (z.to_string(), z.label().to_string()))
        .collect();
    let gpu_options: Vec<(String, String)> = std::iter::once(("none".into(), "No GPU".into()))
        .chain(
            gpu_presets()
                .into_iter()
                .map(|g| (g.id.to_string(), g.name.to_string())),
        )
        .collect();
    let flash = Signal::derive(move || state.query.with(|q| q.flash_attention));
    let sp = Signal::derive(move || state.query.with(|q| q.sequence_parallel));
    let accum = Signal::derive(move || state.query.with(|q| q.fp32_grad_accum));
    let is_lora = move || {
        state
            .query
            .with(|q| matches!(q.mode, Mode::Lora | Mode::Qlora))
    };
    let is_inference = move || state.query.with(|q| q.mode == Mode::Inference);
    view! {
        <form class="controls" on:submit=|ev| ev.prevent_default() aria-label="Setup">
            <fieldset>
                <legend>"Model"</legend>
                <ModelPicker />
                {bound_select("Mode", "mode", names(Mode::ALL), |q| q.mode, |q, v| q.mode = v)}
                <Show when=is_lora><NumberField label="LoRA rank" key="lora-rank" /></Show>
            </fieldset>
            <fieldset>
                <legend>"Precision"</legend>
                {bound_select("Weights dtype", "dtype", names(Dtype::ALL), |q| q.dtype, |q, v| q.dtype = v)}
                {bound_select("Optimizer", "optimizer", names(Optimizer::ALL), |q| q.optimizer, |q, v| q.optimizer = v)}
                {bound_select("Convention", "convention", names(Convention::ALL), |q| q.convention, |q, v| q.convention = v)}
                <CheckField label="FP32 gradient accumulation" key="fp32-grad-accum" value=accum on_change=Callback::new(move |v| state.set(|q| q.fp32_grad_accum = v)) />
                <Show when=is_inference>{bound_select("KV cache dtype", "kv-dtype", names(Dtype::ALL), |q| q.kv_dtype, |q, v| q.kv_dtype = v)}</Show>
            </fieldset>
            <fieldset>
                <legend>"Parallelism"</legend>
                {bound_select("Sharding", "zero", zero_options, |q| q.zero, |q, v| q.zero = v)}
                <div class="row3">
                    <NumberField label="Data ∥" key="dp" hint="data-parallel GPUs" />
                    <NumberField label="Tensor ∥" key="tp" hint="tensor-parallel degree" />
                    <NumberField label="Pipeline ∥" key="pp" hint="pipeline stages" />
                </div>
                {bound_select("Offload to CPU", "offload", names(Offload::ALL), |q| q.offload, |q, v| q.offload = v)}
                <CheckField label="Sequence parallel" key="sequence-parallel" value=sp on_change=Callback::new(move |v| state.set(|q| q.sequence_parallel = v)) />
            </fieldset>
            <fieldset>
                <legend>"Batch"</legend>
                <div class="row2">
                    <NumberField label="Micro-batch" key="batch" />
                    <NumberField label="Sequence" key="seq" />
                </div>
                {bound_select("Recompute", "recompute", names(Recompute::ALL), |q| q.recompute, |q, v| q.recompute = v)}
                <CheckField label="FlashAttention" key="flash-attention" value=flash on_change=Callback::new(move |v| state.set(|q| q.flash_attention = v)) />
            </fieldset>
            <fieldset>
                <legend>"Hardware"</legend>
                {bound_select("GPU", "gpu", gpu_options, |q| q.gpu.clone().unwrap_or_else(|| "none".into()), |q, v: String| { let _ = q.apply("gpu", &v); })}
                <NumberField label="Overhead (MiB)" key="overhead-mib" hint="CUDA context and allocator reserve per GPU" />
                {bound_select("Units", "units", vec![("gb".into(), "GB (10^9 bytes)".into()), ("gib".into(), "GiB (2^30 bytes)".into())], |q| q.units, |q, v: Units| q.units = v)}
            </fieldset>
        </form>
    }
}
