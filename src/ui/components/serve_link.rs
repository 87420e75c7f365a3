//! The Serve page's query for a memory job (Memory and Learn): serving is sized there, so a link
//! that asks the Memory page to serve opens the Serve page with what it carries.

use crate::ui::shell::url::encode_component;
use bitbudget_math::serve::from_memory::{ServedModel, ServingJob};
use bitbudget_math::serve::setup::DEFAULT_PROMPT_TOKENS;

/// The Serve page's query (with `?`, `tab=serve` first) for `s`: the model (a preset, or the
/// architecture as text), the GPU, tp, the weights' and KV cache's types where the engines serve
/// them, the longest request, the concurrency and a prompt that fits the request.
pub fn serve_query(s: &ServingJob) -> String {
    let mut q = String::from("?tab=serve");
    let mut push = |key: &str, value: &str| {
        q.push_str(&format!("&{key}={}", encode_component(value)));
    };
    match &s.model {
        ServedModel::Preset(id) | ServedModel::Nearest { id, .. } => push("model", id),
        ServedModel::Arch(text) => push("arch", text),
    }
    if let Some(gpu) = &s.gpu {
        push("gpu", gpu);
    }
    push("tp", &s.tp.to_string());
    if let Some(c) = s.dtype {
        push("dtype", c.name());
    }
    if let Some(kv) = s.kv {
        push("kv", kv.name());
    }
    push("len", &s.len.to_string());
    push("conc", &s.concurrency.to_string());
    if s.prompt != DEFAULT_PROMPT_TOKENS {
        push("prompt", &s.prompt.to_string());
    }
    q
}
