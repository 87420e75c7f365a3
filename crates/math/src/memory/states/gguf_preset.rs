//! GGUF headers as `llama-quantize` would write them for the model presets, for tests and
//! examples: the attention metadata and every tensor with its type, no tokenizer.

use crate::gguf::GgufWriter;
use crate::memory::model::models::find_model;
use crate::memory::options::Dtype;
use crate::memory::states::gguf_mix::typed_tensors;
use crate::memory::states::gguf_tensors::GgufArch;

/// A GGUF header as llama-quantize would write it for model preset `id` in file type `d` (the
/// attention metadata and every tensor with its type; no tokenizer), for tests and examples.
/// `None` for an unknown preset or a plain dtype.
pub fn preset_writer(id: &str, d: Dtype) -> Option<GgufWriter> {
    let m = find_model(id)?;
    let ga = GgufArch::of_model(id);
    let a = &m.arch;
    let arch = ga.name();
    let key = |k: &str| format!("{arch}.{k}");
    let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let w = GgufWriter::new()
        .string("general.architecture", arch)
        .string("general.name", m.name)
        .u32(&key("block_count"), small(a.layers))
        .u32(&key("context_length"), small(a.max_seq))
        .u32(&key("embedding_length"), small(a.hidden))
        .u32(&key("attention.head_count"), small(a.heads))
        .u32(&key("attention.head_count_kv"), small(a.kv_heads))
        .u32(&key("attention.key_length"), small(a.head_dim))
        .u32(&key("attention.value_length"), small(a.head_dim))
        .u32(&key("feed_forward_length"), small(a.ffn));
    let w = if a.experts > 1 {
        w.u32(&key("expert_count"), small(a.experts))
            .u32(&key("expert_used_count"), small(a.active_experts))
    } else {
        w
    };
    let typed = typed_tensors(a, ga, d)?;
    Some(
        typed
            .iter()
            .fold(w, |w, t| w.tensor(&t.name, &t.dims, t.ty)),
    )
}
