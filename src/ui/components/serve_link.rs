//! The Serve page's query for a memory job (Memory and Learn): serving is sized there, so a link
//! that asks the Memory page to serve opens the Serve page with what it carries.
//!
//! The keys are the Serve page's (`pages/serve/query.rs`, whose tests parse this query back and
//! require every value to be taken); they are written here rather than through its query type so
//! that the Memory page's binary does not carry the Serve page's parser.

use crate::ui::shell::url::encode_component;
use bitbudget_math::serve::from_memory::{ServedModel, ServingJob};
use bitbudget_math::serve::setup::DEFAULT_PROMPT_TOKENS;
use bitbudget_math::serve::{Checkpoint, Engine, KvDtype};

/// The Serve page's query (with `?`, `tab=serve` first) for `s`: the engine, the model (a preset,
/// or the architecture as text), the GPU, the parallel degrees, the weights' and KV cache's types,
/// the longest request, the concurrency and the prompt, each left out where it is the Serve page's
/// default.
pub fn serve_query(s: &ServingJob) -> String {
    let mut q = String::from("?tab=serve");
    let mut push = |key: &str, value: &str| {
        q.push_str(&format!("&{key}={}", encode_component(value)));
    };
    if s.engine != Engine::Vllm {
        push("engine", s.engine.name());
    }
    match &s.model {
        ServedModel::Preset(id) | ServedModel::Nearest { id, .. } => push("model", id),
        ServedModel::Arch(text) => push("arch", text),
    }
    if let Some(gpu) = &s.gpu {
        push("gpu", gpu);
    }
    for (key, n) in [("tp", s.tp), ("pp", s.pp)] {
        if n > 1 {
            push(key, &n.to_string());
        }
    }
    if let Some(c) = s.dtype.filter(|&c| c != Checkpoint::Bf16) {
        push("dtype", c.name());
    }
    if let Some(kv) = s.kv.filter(|&kv| kv != KvDtype::Bf16) {
        push("kv", kv.name());
    }
    push("len", &s.len.to_string());
    push("conc", &s.concurrency.to_string());
    if s.prompt != DEFAULT_PROMPT_TOKENS {
        push("prompt", &s.prompt.to_string());
    }
    q
}
