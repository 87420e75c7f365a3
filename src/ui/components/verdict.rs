//! "Will it fit?": the verdict in words, the smallest setup that fits, and invalid-setup messages.

use crate::ui::memory_state::MemoryState;
use bitbudget_math::memory::verdict;
use leptos::prelude::*;

#[component]
pub fn Verdict() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let verdict = move || {
        let units = state.query.with(|q| q.units);
        state.setup.with(|s| {
            state
                .shown
                .with(|b| Some(verdict(b.as_ref()?.total, s.gpu.as_ref()?, units)))
        })
    };
    let fits = move || {
        state.result.with(|r| {
            state
                .setup
                .with(|s| matches!((r, &s.gpu), (Ok(b), Some(g)) if b.total <= g.capacity_bytes))
        })
    };
    let suggestion = move || {
        let gpu = state.setup.with(|s| s.gpu.clone())?;
        let text = match (state.fit.get(), state.fit_on_gpu.get()) {
            (Some(f), on_gpu) => {
                let mut t = format!("Smallest setup that fits: {} × {} with {} (data parallel {}).", f.gpus, gpu.name, f.strategy.label(), f.dp);
                match on_gpu {
                    Some(g) if g != f => t += &format!(" Without CPU offload: {} GPUs with {}.", g.gpus, g.strategy.label()),
                    None => t += " Without CPU offload nothing fits on up to 1024 GPUs.",
                    _ => {}
                }
                t
            }
            (None, _) => format!("Nothing fits on up to 1024 × {} with this tensor/pipeline split: try LoRA or QLoRA, recomputation, FlashAttention, a shorter sequence or a bigger GPU.", gpu.name),
        };
        Some((text, state.fit.get()))
    };
    let apply = move |_| {
        if let Some(f) = state.fit.get_untracked() {
            state.set(|q| {
                q.dp = f.dp;
                q.zero = f.strategy.zero;
                q.offload = f.strategy.offload;
            });
        }
    };
    view! {
        {move || state.result.get().err().map(|e| view! {
            <p class="setup-error" role="alert" data-testid="setup-error">{e}" — showing the last valid setup."</p>
        })}
        <p class="verdict" class:fits=fits data-testid="verdict">{verdict}</p>
        {move || suggestion().map(|(text, fit)| view! {
            <p class="suggestion" data-testid="suggestion">{text}" "
                {fit.map(|_| view! { <button class="chip" data-testid="apply-suggestion" on:click=apply>"Apply"</button> })}
            </p>
        })}
    }
}
