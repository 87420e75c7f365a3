//! The Serve page's numbers: one GPU's budget in the engine's terms, the KV cache and its
//! concurrency, decode and prefill speed, llama.cpp's placement; and how close the model has been
//! to what the engines printed.

use crate::ui::pages::serve::ServeState;
use bitbudget_math::numbers::{format_bytes, grouped, Units};
use bitbudget_math::serve::logged::nearest;
use bitbudget_math::serve::{conc, ServeReport, ServeSetup};
use leptos::prelude::*;

fn gib(b: u64) -> String {
    format_bytes(b, Units::Gib)
}

fn rows(setup: &ServeSetup, r: &ServeReport) -> Vec<(&'static str, String, String)> {
    let p = r.per_gpu;
    let mut out = vec![
        (
            "weights",
            gib(p.weights),
            match &setup.model_file {
                Some(f) => format!("{}'s tensors as stored ({}) on the GPU", f.name, f.mix),
                None => format!(
                    "{} as stored, scales included, over {} GPU(s)",
                    setup.checkpoint, r.gpus
                ),
            },
        ),
        (
            "activations",
            gib(p.activations),
            format!(
                "the profiling run: {} tokens, {} sequences' logits",
                grouped(r.knobs.max_num_batched_tokens as usize),
                grouped(r.knobs.max_num_seqs as usize)
            ),
        ),
        (
            "non-torch",
            gib(p.non_torch),
            "CUDA context and non-torch memory (NCCL, workspaces)".into(),
        ),
        (
            "cuda-graphs",
            gib(p.cuda_graphs),
            if r.knobs.cuda_graphs {
                format!(
                    "graphs captured up to batch {}",
                    r.knobs.cuda_graph_max_batch
                )
            } else {
                "no CUDA graphs".into()
            },
        ),
        (
            "kv-cache",
            gib(p.kv_cache),
            match (setup.engine.fraction_knob(), r.knobs.memory_fraction) {
                (Some((knob, of)), Some(f)) => format!("what {knob} {f} ({of}) leaves"),
                _ => format!(
                    "n_ctx {} cells on the GPU's layers",
                    grouped(r.max_model_len as usize)
                ),
            },
        ),
        (
            "total",
            gib(p.total),
            format!("of {} on the GPU", gib(r.capacity)),
        ),
    ];
    out.push((
        "kv-per-token",
        format_bytes(r.kv_bytes_per_token, Units::Gib),
        format!(
            "{} tokens in {} blocks of {}",
            grouped(r.kv_tokens as usize),
            grouped(r.kv_blocks as usize),
            r.block_size
        ),
    ));
    out.push((
        "concurrency",
        format!("{:.2}x", r.max_concurrency),
        format!(
            "requests of {} tokens at once{}",
            grouped(r.max_model_len as usize),
            if setup.prefix_share > 0.0 {
                format!(
                    "; {} with the shared prefix cached once",
                    conc(r.effective_concurrency)
                )
            } else {
                String::new()
            }
        ),
    ));
    let d = r.decode;
    out.push((
        "decode",
        format!("{:.1} tok/s", d.tokens_per_s),
        format!(
            "per sequence at {} concurrent ({:.0} tok/s in all), {}-bound{}",
            d.concurrency,
            d.aggregate_tokens_per_s,
            d.bound,
            d.compute_bound_from
                .map(|c| format!("; compute-bound from {c}"))
                .unwrap_or_default()
        ),
    ));
    out.push((
        "ttft",
        r.prefill
            .seconds
            .map_or("–".into(), |s| format!("{s:.3} s")),
        format!(
            "time to first token for {} prompt tokens alone",
            grouped(r.prefill.tokens as usize)
        ),
    ));
    if let Some(pl) = &r.placement {
        out.push((
            "placement",
            format!(
                "{}/{}",
                pl.gpu_layers.min(pl.layers) + pl.output_on_gpu as u64,
                pl.layers + 1
            ),
            format!(
                "layers on the GPU; {} of weights on the GPU, {} on the host ({} routed experts); flash attention {}",
                gib(pl.gpu_weights),
                gib(pl.host_weights),
                gib(pl.host_expert_weights),
                if pl.flash_attention { "on" } else { "off" }
            ),
        ));
    }
    out
}

/// The table of figures (the last good answer while a knob is wrong).
#[component]
pub fn Figures() -> impl IntoView {
    let state = expect_context::<ServeState>();
    view! {
        <div class="table-scroll">
            <table class="breakdown serve-figures stack-last" data-testid="serve-figures">
                <tbody>
                    {move || state.good.get().map(|(setup, r)| rows(&setup, &r).into_iter().map(|(key, value, why)| view! {
                        <tr data-testid=format!("serve-{key}")>
                            <th scope="row">{key.replace('-', " ")}</th>
                            <td class="num">{value}</td>
                            <td class="why">{why}</td>
                        </tr>
                    }).collect_view())}
                </tbody>
            </table>
        </div>
        <p class="field-note" data-testid="serve-follows">{move || state.good.get().map(|(_, r)| format!("Accounting as in {}.", r.follows))}</p>
    }
}

/// "Checked against engine logs": the nearest logged case's error.
#[component]
pub fn Checked() -> impl IntoView {
    let state = expect_context::<ServeState>();
    let line = move || {
        let (setup, _) = state.good.get()?;
        let (c, same_model) = nearest(&setup)?;
        let which = if same_model {
            "nearest case"
        } else {
            "no logged case of this model; the nearest is"
        };
        Some((format!(
            "Checked against engine logs: {which} {} ({}): {} printed {}, bitbudget {} ({:+.1}%{})",
            c.id, c.case, c.quantity, short(c.logged), short(c.estimate), 100.0 * c.error,
            if c.outside.is_some() { ", outside its bound: see the table in validation/serve" } else { "" }
        ), c.source))
    };
    view! {
        <p class="field-note" data-testid="serve-checked">
            {move || line().map(|(text, source)| view! { {text}" · "<a href=source target="_blank" rel="noopener">"source"</a> })}
        </p>
    }
}

fn short(v: f64) -> String {
    if v >= 1000.0 {
        grouped(v.round() as usize)
    } else {
        format!("{v:.2}")
    }
}
