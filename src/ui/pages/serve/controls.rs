//! The Serve page's knobs, named as the chosen engine names them; an empty box is the engine's
//! default.

use crate::ui::components::config_paste::{ConfigPaste, ConfigRead};
use crate::ui::components::fields::{CheckField, CheckedField, SelectField};
use crate::ui::pages::serve::gguf_source::GgufSource;
use crate::ui::pages::serve::query::{parse_count, parse_share};
use crate::ui::pages::serve::ServeState;
use bitbudget_math::memory::model::arch_text::arch_to_text;
use bitbudget_math::memory::model::hf_config::parse_config;
use bitbudget_math::memory::{gpu_presets, model_presets};
use bitbudget_math::numbers::format_count;
use bitbudget_math::serve::quant_config::checkpoint_of;
use bitbudget_math::serve::setup::{TOKEN_LIMIT, TP_LIMIT};
use bitbudget_math::serve::tensor_placement::parse_overrides;
use bitbudget_math::serve::{Checkpoint, Engine, KvDtype};
use leptos::prelude::*;

fn options<T: std::fmt::Display>(all: &[T], label: impl Fn(&T) -> String) -> Vec<(String, String)> {
    all.iter().map(|v| (v.to_string(), label(v))).collect()
}

/// An optional count: empty is `None` (the default), else 1 to `limit`.
fn optional_count(text: &str, limit: u64) -> Result<Option<u64>, String> {
    if text.trim().is_empty() {
        Ok(None)
    } else {
        parse_count(text, limit).map(Some)
    }
}

/// A text box for an optional count in the query.
#[component]
fn CountField(
    label: &'static str,
    key: &'static str,
    get: fn(&crate::ui::pages::serve::query::ServeQuery) -> Option<u64>,
    put: fn(&mut crate::ui::pages::serve::query::ServeQuery, Option<u64>),
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let state = expect_context::<ServeState>();
    let value = Signal::derive(move || {
        state
            .query
            .with(|q| get(q).map_or(String::new(), |v| v.to_string()))
    });
    let check = Callback::new(|t: String| optional_count(&t, TOKEN_LIMIT).err());
    let on_change = Callback::new(move |t: String| {
        if let Ok(v) = optional_count(&t, TOKEN_LIMIT) {
            state.set(|q| put(q, v));
        }
    });
    view! { <CheckedField label key value check on_change hint /> }
}

/// A text box for an optional share in (0, 1] of the query; empty is the default.
#[component]
fn ShareField(
    label: &'static str,
    key: &'static str,
    get: fn(&crate::ui::pages::serve::query::ServeQuery) -> Option<f64>,
    put: fn(&mut crate::ui::pages::serve::query::ServeQuery, Option<f64>),
    #[prop(optional)] hint: &'static str,
) -> impl IntoView {
    let state = expect_context::<ServeState>();
    let read = |t: &str| {
        if t.trim().is_empty() {
            Ok(None)
        } else {
            parse_share(t, false).map(Some)
        }
    };
    let value = Signal::derive(move || {
        state
            .query
            .with(|q| get(q).map_or(String::new(), |v| v.to_string()))
    });
    let check = Callback::new(move |t: String| read(&t).err());
    let on_change = Callback::new(move |t: String| {
        if let Ok(v) = read(&t) {
            state.set(|q| put(q, v));
        }
    });
    view! { <CheckedField label key value check on_change hint /> }
}

/// Every knob of the Serve page.
#[component]
pub fn ServeControls() -> impl IntoView {
    let state = expect_context::<ServeState>();
    let engine = move || state.query.with(|q| q.engine);
    let llama = move || engine() == Engine::LlamaCpp;
    let models: Vec<(String, String)> = model_presets()
        .into_iter()
        .map(|m| (m.id.to_string(), m.name.to_string()))
        .collect();
    let gpus: Vec<(String, String)> = gpu_presets()
        .into_iter()
        .map(|g| (g.id.to_string(), g.name.to_string()))
        .collect();
    let refuse_dtype = Callback::new(move |v: String| {
        let c: Checkpoint = v.parse().ok()?;
        let gguf = c.gguf_dtype().is_some();
        let plain = matches!(c, Checkpoint::Bf16 | Checkpoint::Fp16);
        match (llama(), gguf, plain) {
            (true, false, false) => Some("llama.cpp reads GGUF files"),
            (false, true, _) => Some("a llama.cpp file type"),
            _ => None,
        }
    });
    let refuse_kv = Callback::new(move |v: String| {
        let k: KvDtype = v.parse().ok()?;
        match (llama(), k) {
            (true, KvDtype::Fp8) => Some("llama.cpp has no FP8 KV cache"),
            (false, KvDtype::Q80 | KvDtype::Q40) => Some("llama.cpp's KV types"),
            _ => None,
        }
    });
    // A config.json becomes the model; its quantization_config sets the checkpoint (llama.cpp
    // keeps its GGUF file type: it reads a converted file, not the config's weights).
    let read_config = move |t: String| -> Result<String, String> {
        let model = parse_config(&t).map_err(|e| e.to_string())?;
        let (checkpoint, said) = checkpoint_of(&t)?;
        let text = arch_to_text(&model.model_type, &model.arch);
        let params = format_count(model.arch.params());
        state.file.set(None);
        state.set(|q| {
            q.arch = Some(text);
            if q.engine != Engine::LlamaCpp {
                q.dtype = checkpoint;
            }
        });
        Ok(format!(
            "Serving {}: {params} parameters. {said}",
            model.model_type
        ))
    };
    let load_config = Callback::new(move |t: String| -> ConfigRead {
        Box::pin(std::future::ready(read_config(t)))
    });
    let fraction_label = move || engine().fraction_knob().map_or("memory fraction", |k| k.0);
    let util = Signal::derive(move || {
        state
            .query
            .with(|q| q.util.map_or(String::new(), |u| u.to_string()))
    });
    let prefix = Signal::derive(move || state.query.with(|q| q.prefix.to_string()));
    let tp = Signal::derive(move || state.query.with(|q| q.tp.to_string()));
    let pp = Signal::derive(move || state.query.with(|q| q.pp.to_string()));
    let dp = Signal::derive(move || state.query.with(|q| q.dp.to_string()));
    let prompt = Signal::derive(move || state.query.with(|q| q.prompt.to_string()));
    let cpu_moe = Signal::derive(move || state.query.with(|q| q.cpu_moe.to_string()));
    let ot = Signal::derive(move || state.query.with(|q| q.ot.clone()));
    view! {
        <form class="controls" on:submit=|ev| ev.prevent_default() aria-label="Serving setup">
            <fieldset>
                <legend>"Engine and hardware"</legend>
                <SelectField label="Engine" key="engine" options=options(Engine::ALL, |e| e.label().to_string())
                    value=Signal::derive(move || engine().to_string())
                    on_change=Callback::new(move |v: String| if let Ok(e) = v.parse::<Engine>() {
                        state.set(|q| {
                            q.engine = e;
                            let ok = |c: Checkpoint| (e == Engine::LlamaCpp) == c.gguf_dtype().is_some() || matches!(c, Checkpoint::Bf16 | Checkpoint::Fp16);
                            if !ok(q.dtype) { q.dtype = if e == Engine::LlamaCpp { Checkpoint::Q4KM } else { Checkpoint::Bf16 }; }
                            if q.kv.llama_cpp_only() != (e == Engine::LlamaCpp) { q.kv = KvDtype::Bf16; }
                            if e == Engine::LlamaCpp { q.tp = 1; q.pp = 1; q.dp = 1; q.ep = false; } else { q.ot.clear(); q.fa = true; }
                        })
                    }) />
                <SelectField label="Model" key="model" options=models
                    value=Signal::derive(move || state.query.with(|q| if q.arch.is_some() || state.file.with(Option::is_some) { String::new() } else { q.model.clone() }))
                    on_change=Callback::new(move |v: String| state.set(|q| {
                        state.file.set(None);
                        q.model = v;
                        // Back from a config: the preset's published BF16 weights, not the config's storage.
                        if q.arch.take().is_some() && q.engine != Engine::LlamaCpp { q.dtype = Checkpoint::Bf16; }
                    })) />
                {move || state.query.with(|q| q.arch.as_ref().map(|a| {
                    let name = a.split('.').next().unwrap_or("config").to_string();
                    view! { <p class="field-note" data-testid="serve-config-in-use">{format!("Serving the pasted config ({name}); pick a preset to go back.")}</p> }
                }))}
                <ConfigPaste load=load_config />
                <GgufSource />
                <SelectField label="GPU" key="gpu" options=gpus
                    value=Signal::derive(move || state.query.with(|q| q.gpu.clone()))
                    on_change=Callback::new(move |v: String| state.set(|q| q.gpu = v)) />
                <div class="row2">
                    <CheckedField label="Tensor parallel" key="tp" value=tp hint="GPUs the model is split over (tensor parallel); llama.cpp: 1"
                        check=Callback::new(|t: String| parse_count(&t, TP_LIMIT).err())
                        on_change=Callback::new(move |t: String| if let Ok(n) = parse_count(&t, TP_LIMIT) { state.set(|q| q.tp = n) }) />
                    {move || (!llama()).then(|| view! {
                        <CheckedField label=fraction_label() key="util" value=util hint="Empty: the engine's default"
                            check=Callback::new(|t: String| if t.trim().is_empty() { None } else { parse_share(&t, false).err() })
                            on_change=Callback::new(move |t: String| {
                                let v = if t.trim().is_empty() { Ok(None) } else { parse_share(&t, false).map(Some) };
                                if let Ok(v) = v { state.set(|q| q.util = v) }
                            }) />
                    })}
                </div>
                <Show when=move || !llama()>
                    <div class="row2">
                        <CheckedField label="Pipeline parallel" key="pp" value=pp hint="Stages of consecutive layers (pipeline_parallel_size): each GPU holds its stage's weights and KV cache"
                            check=Callback::new(|t: String| parse_count(&t, TP_LIMIT).err())
                            on_change=Callback::new(move |t: String| if let Ok(n) = parse_count(&t, TP_LIMIT) { state.set(|q| q.pp = n) }) />
                        <CheckedField label="Data parallel" key="dp" value=dp hint="Replicas of the tp × pp GPUs (data_parallel_size): more requests in all, the same memory each"
                            check=Callback::new(|t: String| parse_count(&t, TP_LIMIT).err())
                            on_change=Callback::new(move |t: String| if let Ok(n) = parse_count(&t, TP_LIMIT) { state.set(|q| q.dp = n) }) />
                    </div>
                    <CheckField label="Expert parallel (enable_expert_parallel)" key="ep"
                        value=Signal::derive(move || state.query.with(|q| q.ep))
                        on_change=Callback::new(move |v: bool| state.set(|q| q.ep = v)) />
                </Show>
            </fieldset>
            <fieldset>
                <legend>"Weights and KV cache"</legend>
                <div class="row2">
                    <SelectField label="Checkpoint" key="dtype" options=options(Checkpoint::ALL, |c| c.to_string())
                        value=Signal::derive(move || state.query.with(|q| q.dtype.to_string()))
                        on_change=Callback::new(move |v: String| if let Ok(c) = v.parse() { state.set(|q| q.dtype = c) })
                        not_applicable=Signal::derive(move || state.file.with(Option::is_some).then_some("the GGUF file's own tensor types"))
                        refuse=refuse_dtype />
                    <SelectField label="KV cache" key="kv" options=options(KvDtype::ALL, |k| k.to_string())
                        value=Signal::derive(move || state.query.with(|q| q.kv.to_string()))
                        on_change=Callback::new(move |v: String| if let Ok(k) = v.parse() { state.set(|q| q.kv = k) })
                        refuse=refuse_kv />
                </div>
            </fieldset>
            <fieldset>
                <legend>"Requests"</legend>
                <div class="row2">
                    <CountField label="max_model_len" key="len" get=|q| q.len put=|q, v| q.len = v hint="Longest request in tokens; empty: the model's context (llama.cpp fits n_ctx)" />
                    <CheckedField label="Prompt tokens" key="prompt" value=prompt
                        check=Callback::new(|t: String| parse_count(&t, TOKEN_LIMIT).err())
                        on_change=Callback::new(move |t: String| if let Ok(n) = parse_count(&t, TOKEN_LIMIT) { state.set(|q| q.prompt = n) }) />
                    <CountField label="Concurrency" key="conc" get=|q| q.conc put=|q, v| q.conc = v hint="Sequences decoding together; empty: as many as fit" />
                    <CheckedField label="Shared prefix" key="prefix" value=prefix hint="Share of each request every request shares (prefix caching), 0 to below 1"
                        check=Callback::new(|t: String| parse_share(&t, true).err())
                        on_change=Callback::new(move |t: String| if let Ok(v) = parse_share(&t, true) { state.set(|q| q.prefix = v) }) />
                </div>
            </fieldset>
            <fieldset>
                <legend>"Engine knobs (empty: default)"</legend>
                <div class="row2">
                    <CountField label="max_num_seqs" key="seqs" get=|q| q.seqs put=|q, v| q.seqs = v />
                    <CountField label="max_num_batched_tokens" key="tokens" get=|q| q.tokens put=|q, v| q.tokens = v hint="The profiling run's tokens (SGLang chunked_prefill_size, llama.cpp n_ubatch)" />
                </div>
                <Show when=llama fallback=move || view! {
                    <CheckField label="enforce_eager (no CUDA graphs)" key="eager"
                        value=Signal::derive(move || state.query.with(|q| q.eager))
                        on_change=Callback::new(move |v: bool| state.set(|q| q.eager = v)) />
                }>
                    <div class="row2">
                        <CountField label="n_gpu_layers" key="ngl" get=|q| q.ngl put=|q, v| q.ngl = v hint="Empty: as many as fit (-ngl auto)" />
                        <CheckedField label="n_cpu_moe" key="cpu_moe" value=cpu_moe hint="The first N blocks keep their experts on the CPU"
                            check=Callback::new(|t: String| if t.trim() == "0" { None } else { parse_count(&t, TOKEN_LIMIT).err() })
                            on_change=Callback::new(move |t: String| {
                                let v = if t.trim() == "0" { Ok(0) } else { parse_count(&t, TOKEN_LIMIT) };
                                if let Ok(v) = v { state.set(|q| q.cpu_moe = v) }
                            }) />
                    </div>
                    <CheckedField label="override-tensor (-ot)" key="ot" value=ot hint="PATTERN=CPU or PATTERN=CUDA0, comma-separated, first match wins: exps=CPU keeps every routed expert on the host"
                        check=Callback::new(|t: String| parse_overrides(&t).err().map(|e| e.to_string()))
                        on_change=Callback::new(move |t: String| if parse_overrides(&t).is_ok() { state.set(|q| q.ot = t.trim().to_string()) }) />
                    <CheckField label="flash attention (--flash-attn)" key="fa"
                        value=Signal::derive(move || state.query.with(|q| q.fa))
                        on_change=Callback::new(move |v: bool| state.set(|q| q.fa = v)) />
                </Show>
            </fieldset>
            <fieldset>
                <legend>"Speed (empty: default)"</legend>
                <div class="row2">
                    <ShareField label="Bandwidth share" key="bw" get=|q| q.bw put=|q, v| q.bw = v hint="Share of peak memory bandwidth decode reaches: 0.8 for vLLM, SGLang and TensorRT-LLM; llama.cpp 0.75 (16-bit), 0.70 (8-bit), 0.50 (4 to 6-bit), from llama-bench rows" />
                    <ShareField label="FLOP/s share" key="fe" get=|q| q.fe put=|q, v| q.fe = v hint="Share of peak 16-bit tensor FLOP/s prefill reaches: 0.5 (no engine publishes its own)" />
                </div>
            </fieldset>
        </form>
    }
}
