//! All controls of the Memory page, grouped; every change lands in the typed query. A control whose
//! option does not apply to the setup (`Job::not_applicable`) is disabled with the reason shown.

use crate::ui::components::fields::{CheckField, SelectField};
use crate::ui::components::serve_link::serve_query;
use crate::ui::components::term::Jargon;
use crate::ui::pages::memory::fields::{not_applicable, NumberField};
use crate::ui::pages::memory::lora_targets::LoraTargetsField;
use crate::ui::pages::memory::model_picker::ModelPicker;
use crate::ui::pages::memory::published_select::PublishedSelect;
use crate::ui::pages::memory::query::MemoryQuery;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::job::dtype_refused;
use bitbudget_math::memory::{
    gpu_presets, Convention, Dtype, Mode, Moments, Offload, Optimizer, OptimizerStep, Precision,
    Recompute, ZeroStage,
};
use bitbudget_math::numbers::Units;
use bitbudget_math::serve::from_memory::{serving_job, ServedModel};
use leptos::prelude::*;

fn names<T: Copy + ToString>(all: &[T]) -> Vec<(String, String)> {
    all.iter().map(|v| (v.to_string(), v.to_string())).collect()
}

/// A select bound to one field of the query, parsed with `FromStr`, disabled where it does not
/// apply.
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
    view! { <SelectField label key options value on_change not_applicable=not_applicable(key) /> }
}

/// The weights dtype: integer formats cannot be chosen for full training (the reason is the
/// option's title).
fn dtype_select() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let value = Signal::derive(move || state.query.with(|q| q.job.dtype.to_string()));
    let on_change = Callback::new(move |v: String| {
        if let Ok(d) = v.parse::<Dtype>() {
            state.set(|q| q.job.dtype = d);
        }
    });
    let refuse = Callback::new(move |v: String| {
        let mode = state.query.with(|q| q.job.mode);
        v.parse::<Dtype>().ok().and_then(|d| dtype_refused(mode, d))
    });
    view! { <SelectField label="Weights dtype" key="dtype" options=names(Dtype::PLAIN) value on_change refuse not_applicable=not_applicable("dtype") /> }
}

/// A checkbox bound to a flag of the query.
fn bound_check(
    label: &'static str,
    key: &'static str,
    get: fn(&MemoryQuery) -> bool,
    put: fn(&mut MemoryQuery, bool),
) -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let value = Signal::derive(move || state.query.with(get));
    let on_change = Callback::new(move |v| state.set(|q| put(q, v)));
    view! { <CheckField label key value on_change not_applicable=not_applicable(key) /> }
}

/// The controls panel.
#[component]
pub fn MemoryControls() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let is_lora = move || {
        state
            .query
            .with(|q| matches!(q.job.mode, Mode::Lora | Mode::Qlora))
    };
    view! {
        <form class="controls" on:submit=|ev| ev.prevent_default() aria-label="Setup">
            <fieldset>
                <legend>"Model"</legend>
                <ModelPicker />
                {bound_select("Mode", "mode", names(Mode::TRAINING), |q| q.job.mode, |q, v| q.job.mode = v)}
                <ServeNote />
                <Show when=is_lora>
                    <NumberField label="LoRA rank" key="lora-rank" />
                    <LoraTargetsField />
                    {bound_select("Adapter dtype", "adapter-dtype", names(&[Dtype::Fp32, Dtype::Bf16, Dtype::Fp16]), |q| q.job.adapter_dtype, |q, v| q.job.adapter_dtype = v)}
                    {bound_check("LoRA dropout", "lora-dropout", |q| q.job.lora_dropout, |q, v| q.job.lora_dropout = v)}
                </Show>
            </fieldset>
            <PrecisionControls />
            <ParallelismControls />
            <fieldset>
                <legend>"Batch"</legend>
                <div class="row2">
                    <NumberField label="Micro-batch" key="batch" />
                    <NumberField label="Sequence" key="seq" />
                </div>
                {bound_select("Recompute (gradient checkpointing)", "recompute", names(Recompute::ALL), |q| q.job.recompute, |q, v| q.job.recompute = v)}
                {bound_check("SDPA / FlashAttention (off: eager attention)", "flash-attention", |q| q.job.flash_attention, |q, v| q.job.flash_attention = v)}
            </fieldset>
            <HardwareControls />
        </form>
    }
}

/// Where serving is sized: the Serve page, with this page's model (for a parameter count alone,
/// the nearest preset, named) and GPU.
#[component]
fn ServeNote() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let serving = Memo::new(move |_| state.query.with(|q| serving_job(&q.job)));
    let href = move || serving.with(serve_query);
    let nearest = move || match serving.with(|s| s.model.clone()) {
        ServedModel::Nearest { id, .. } => Some(format!(
            " (with {id}, the preset nearest this parameter count)"
        )),
        _ => None,
    };
    view! {
        <p class="field-note" data-testid="serve-link">"Serving? The "<a href=href>"Serve page"</a>{nearest}" answers as vLLM, SGLang, TensorRT-LLM and llama.cpp do, and reads a "<code>".gguf"</code>" file as llama.cpp loads it."</p>
    }
}

/// Weights, optimizer, convention and recipe options.
#[component]
fn PrecisionControls() -> impl IntoView {
    view! {
        <fieldset>
            <legend>"Precision"</legend>
            {dtype_select()}
            {bound_select("Precision recipe", "precision", names(Precision::ALL), |q| q.job.precision, |q, v| q.job.precision = v)}
            {bound_select("Optimizer", "optimizer", names(Optimizer::ALL), |q| q.job.optimizer, |q, v| q.job.optimizer = v)}
            {bound_select("Optimizer implementation", "optimizer-step", names(OptimizerStep::ALL), |q| q.job.optimizer_step, |q, v| q.job.optimizer_step = v)}
            {bound_select("Convention", "convention", names(Convention::ALL), |q| q.job.convention, |q, v| q.job.convention = v)}
            {bound_select("Adam moments", "moments", names(Moments::ALL), |q| q.job.moments, |q, v| q.job.moments = v)}
            {bound_check("FP8 parameter all-gather", "fp8-param-gather", |q| q.job.fp8_param_gather, |q, v| q.job.fp8_param_gather = v)}
            {bound_check("FP32 gradient accumulation", "fp32-grad-accum", |q| q.job.fp32_grad_accum, |q, v| q.job.fp32_grad_accum = v)}
        </fieldset>
    }
}

/// Sharding, parallel degrees, offload.
#[component]
fn ParallelismControls() -> impl IntoView {
    let zero_options: Vec<(String, String)> = ZeroStage::ALL
        .iter()
        .map(|z| (z.to_string(), z.label().to_string()))
        .collect();
    view! {
        <fieldset>
            <legend>"Parallelism "<Jargon id="parallel" word="data, tensor and pipeline parallelism" /></legend>
            <PublishedSelect />
            <div class="with-jargon">
                {bound_select("Sharding", "zero", zero_options, |q| q.job.zero, |q, v| q.job.zero = v)}
                <Jargon id="sharding" word="DDP, ZeRO and FSDP" />
            </div>
            <div class="row3">
                <NumberField label="Data ∥" key="dp" hint="data-parallel GPUs" />
                <NumberField label="Tensor ∥" key="tp" hint="tensor-parallel degree" />
                <NumberField label="Pipeline ∥" key="pp" hint="pipeline stages" />
            </div>
            <div class="row3">
                <NumberField label="Context ∥" key="cp" hint="GPUs each sequence is split over (ring attention)" />
                <NumberField label="Expert ∥" key="ep" hint="GPUs the routed experts are divided over (MoE)" />
                {bound_select("Expert TP", "etp", expert_tp_options(), |q| q.job.etp.map_or_else(|| "auto".to_string(), |n| n.to_string()), |q, v: String| { let _ = q.apply("etp", &v); })}
            </div>
            <div class="row3">
                <NumberField label="Virtual stages" key="vpp" hint="runs of layers per GPU (interleaved 1F1B): the bubble shrinks by as much" />
                <NumberField label="Expert load (%)" key="expert-load" hint="the busiest GPU's routed tokens against even routing (100): capacity factor × 100, or a dropless router's imbalance" />
                <NumberField label="MTP modules" key="mtp" hint="multi-token prediction modules trained after the last block (DeepSeek-V3: 1), on the last pipeline stage" />
            </div>
            {bound_select("Offload to CPU", "offload", names(Offload::ALL), |q| q.job.offload, |q, v| q.job.offload = v)}
            {bound_check("Sequence parallel", "sequence-parallel", |q| q.job.sequence_parallel, |q, v| q.job.sequence_parallel = v)}
        </fieldset>
    }
}

/// The expert tensor-parallel choices: as the tensor-parallel degree (Megatron-LM's default), or
/// a power of two up to a node.
fn expert_tp_options() -> Vec<(String, String)> {
    std::iter::once(("auto".to_string(), "as tp".to_string()))
        .chain([1, 2, 4, 8].map(|n: u64| (n.to_string(), n.to_string())))
        .collect()
}

/// GPU, overhead, units.
#[component]
fn HardwareControls() -> impl IntoView {
    let gpu_options: Vec<(String, String)> = std::iter::once(("none".into(), "No GPU".into()))
        .chain(
            gpu_presets()
                .into_iter()
                .map(|g| (g.id.to_string(), g.name.to_string())),
        )
        .collect();
    view! {
        <fieldset>
            <legend>"Hardware"</legend>
            {bound_select("GPU", "gpu", gpu_options, |q| q.job.gpu.clone().unwrap_or_else(|| "none".into()), |q, v: String| { let _ = q.apply("gpu", &v); })}
            <NumberField label="Overhead (MiB)" key="overhead-mib" hint="CUDA context and allocator reserve per GPU" />
            {bound_select("Units", "units", vec![("gb".into(), "GB (10^9 bytes)".into()), ("gib".into(), "GiB (2^30 bytes)".into())], |q| q.job.units, |q, v: Units| q.job.units = v)}
        </fieldset>
    }
}
