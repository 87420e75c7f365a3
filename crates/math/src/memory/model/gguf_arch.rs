//! A GGUF header read into an architecture, as llama.cpp reads its hyperparameters
//! (`llama_model::load_hparams`, `LLM_KV` names in `src/llama-arch.cpp`): `{arch}.block_count`,
//! `embedding_length`, `feed_forward_length`, `attention.head_count(_kv)`, `attention.key_length`,
//! the MoE keys (`expert_count`, `expert_used_count`, `expert_feed_forward_length`,
//! `expert_shared_count`, `leading_dense_block_count`), MLA's (`attention.kv_lora_rank`,
//! `attention.q_lora_rank`, `rope.dimension_count`, `key_length_mla`) and the sliding window; the
//! vocabulary from `token_embd.weight`'s shape; norms, biases, gates, QK norms and attention sinks
//! from which tensors block 0 holds; a tied head where there is no `output.weight`. Sliding
//! windows follow llama.cpp's per-architecture patterns (Gemma 3: five of every six layers;
//! Gemma 2 and gpt-oss: every other; Command R7B: three of every four). Per-block arrays (a head
//! count per block) are averaged over their nonzero entries (a hybrid model's recurrent blocks
//! have none), said in a note.

use super::arch::{Mla, Mlp, ModelArch, Norm};
use super::hf_config::check_size;
use crate::gguf::{Gguf, Value};
use std::cell::RefCell;

/// Largest size accepted for any dimension (2^32), as for `config.json` files.
const MAX_DIMENSION: u64 = 1 << 32;

/// Most blocks (llama.cpp's `LLAMA_MAX_LAYERS`).
const MAX_BLOCKS: u64 = 512;

/// The architecture of a GGUF header, with notes on what was approximated. Errors name the
/// missing or impossible key; nothing panics on any header.
pub fn arch_of_gguf(g: &Gguf) -> Result<(ModelArch, Vec<String>), String> {
    let name = g
        .architecture()
        .ok_or("the header has no general.architecture")?;
    let key = |k: &str| format!("{name}.{k}");
    let notes = RefCell::new(Vec::new());
    let number = |k: &str| -> Result<Option<u64>, String> {
        let full = key(k);
        match g.get(&full) {
            None => Ok(None),
            Some(Value::Array(a)) if !a.items.is_empty() => {
                let items: Option<Vec<u64>> = a.items.iter().map(Value::as_u64).collect();
                let items = items.ok_or(format!("{full} holds something other than sizes"))?;
                // Hybrid models give their recurrent blocks 0 (no attention): the mean is over
                // the others.
                let nonzero: Vec<u128> = items
                    .iter()
                    .filter(|v| **v > 0)
                    .map(|v| *v as u128)
                    .collect();
                let (lo, hi) = (items.iter().min(), items.iter().max());
                if lo != hi {
                    notes.borrow_mut().push(format!(
                        "{full} differs between blocks ({}–{}, {} of {} nonzero): the mean of the nonzero ones is used for every block",
                        lo.unwrap_or(&0),
                        hi.unwrap_or(&0),
                        nonzero.len(),
                        items.len()
                    ));
                }
                let mean = nonzero.iter().sum::<u128>() / nonzero.len().max(1) as u128;
                bounded(&full, u64::try_from(mean).unwrap_or(u64::MAX)).map(Some)
            }
            Some(v) => match v.as_u64() {
                Some(n) => bounded(&full, n).map(Some),
                None => Err(format!("{full} is not a size ({})", v.summary())),
            },
        }
    };
    let required = |v: Option<u64>, k: &str| {
        v.filter(|n| *n > 0).ok_or(format!(
            "the header has no {} (llama.cpp could not load it either)",
            key(k)
        ))
    };
    let layers = required(number("block_count")?, "block_count")?;
    if layers > MAX_BLOCKS {
        return Err(format!(
            "{} is {layers}, above llama.cpp's limit of {MAX_BLOCKS}",
            key("block_count")
        ));
    }
    let hidden = required(number("embedding_length")?, "embedding_length")?;
    let heads = required(number("attention.head_count")?, "attention.head_count")?;
    let kv_heads = number("attention.head_count_kv")?.unwrap_or(heads).max(1);
    let key_length = number("attention.key_length_mla")?.or(number("attention.key_length")?);
    let value_length = number("attention.value_length_mla")?.or(number("attention.value_length")?);
    let ffn = number("feed_forward_length")?.unwrap_or(0);
    let experts = number("expert_count")?.unwrap_or(0);
    let expert_ffn = number("expert_feed_forward_length")?;
    let dense_layers = number("leading_dense_block_count")?.unwrap_or(0);
    let kv_lora_rank = number("attention.kv_lora_rank")?;
    let window = number("attention.sliding_window")?.unwrap_or(0);
    let vocab = g
        .tensors
        .iter()
        .find(|t| t.name == "token_embd.weight")
        .and_then(|t| t.dims.get(1).copied())
        .or(number("vocab_size")?)
        .ok_or("the header has no token_embd.weight to read the vocabulary from")?;
    let has = |suffix: &str| {
        g.tensors
            .iter()
            .any(|t| t.name == format!("blk.0.{suffix}"))
    };
    let moe = experts > 1;
    let mla = match kv_lora_rank {
        Some(rank) if rank > 0 => {
            let rope = number("rope.dimension_count")?.unwrap_or(0);
            let qk = key_length.unwrap_or(hidden / heads);
            Some(Mla {
                q_lora_rank: number("attention.q_lora_rank")?.unwrap_or(0),
                kv_lora_rank: rank,
                qk_nope_head_dim: qk.saturating_sub(rope),
                qk_rope_head_dim: rope,
                v_head_dim: value_length.unwrap_or(qk),
            })
        }
        _ => None,
    };
    let sliding_layers = match (window, name) {
        (0, _) => 0,
        (_, "gemma3") => layers - layers / 6,
        (_, "gpt-oss" | "gemma2") => layers.div_ceil(2),
        (_, "cohere2") => layers - layers / 4,
        _ => {
            notes.borrow_mut().push(format!(
                "a sliding window of {window} tokens with no layer pattern known for '{name}': every layer is taken to use it"
            ));
            layers
        }
    };
    let arch = ModelArch {
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim: key_length.unwrap_or(hidden / heads),
        ffn: if moe { expert_ffn.unwrap_or(ffn) } else { ffn },
        mlp: if has("ffn_gate.weight")
            || has("ffn_gate_exps.weight")
            || has("ffn_gate_up_exps.weight")
            || !has("ffn_up.weight") && moe
        {
            Mlp::Swiglu
        } else {
            Mlp::Gelu
        },
        norm: if has("attn_norm.bias") {
            Norm::LayerNorm
        } else {
            Norm::RmsNorm
        },
        vocab,
        max_seq: number("context_length")?.unwrap_or(4096),
        qkv_bias: has("attn_q.bias") || has("attn_qkv.bias"),
        out_bias: has("attn_output.bias"),
        mlp_bias: has("ffn_up.bias") || has("ffn_up_exps.bias"),
        tied_embeddings: !g.tensors.iter().any(|t| t.name == "output.weight"),
        experts: experts.max(1),
        active_experts: if moe {
            number("expert_used_count")?.unwrap_or(1).clamp(1, experts)
        } else {
            1
        },
        shared_experts: number("expert_shared_count")?.unwrap_or(0),
        dense_layers: dense_layers.min(layers),
        dense_ffn: if dense_layers > 0 { ffn } else { 0 },
        router_bias: has("exp_probs_b.bias") || has("ffn_gate_inp.bias"),
        qk_norm: has("attn_q_norm.weight"),
        attention_sinks: has("attn_sinks.weight"),
        mla,
        sliding_window: window,
        sliding_layers,
        ..ModelArch::DENSE_EXTRAS
    };
    if arch.ffn == 0 {
        return Err(format!(
            "the header has no {}",
            key(if moe {
                "expert_feed_forward_length"
            } else {
                "feed_forward_length"
            })
        ));
    }
    if arch.heads % arch.kv_heads != 0 {
        return Err(format!(
            "{} ({kv_heads}) does not divide the {heads} attention heads",
            key("attention.head_count_kv")
        ));
    }
    check_size(&arch).map_err(|e| e.to_string())?;
    let in_file: u64 = g
        .tensors
        .iter()
        .fold(0u64, |a, t| a.saturating_add(t.elements()));
    let counted = arch.params();
    if in_file > 0 && (counted as f64 / in_file as f64 - 1.0).abs() > 0.02 {
        notes.borrow_mut().push(format!(
            "the architecture read from the header counts {counted} parameters, the file holds {in_file}: speeds and activations use the header's shapes, the weights the file's bytes"
        ));
    }
    Ok((arch, notes.into_inner()))
}

fn bounded(key: &str, n: u64) -> Result<u64, String> {
    if n >= MAX_DIMENSION {
        Err(format!("{key} is {n}, far beyond any model"))
    } else {
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gguf::parse;
    use crate::memory::find_model;
    use crate::memory::options::Dtype;
    use crate::memory::states::gguf_preset::preset_writer;

    fn header(id: &str, d: Dtype) -> Gguf {
        let (bytes, len) = preset_writer(id, d).unwrap().header();
        parse(&bytes, Some(len)).unwrap()
    }

    #[test]
    fn a_written_header_reads_back_as_its_preset() {
        for id in ["llama-3-8b", "mixtral-8x7b", "qwen2.5-7b"] {
            let want = find_model(id).unwrap().arch;
            let (got, notes) = arch_of_gguf(&header(id, Dtype::Q4KM)).unwrap();
            assert_eq!(got.params(), want.params(), "{id}: {notes:?}");
            assert_eq!(
                got.kv_elements_per_token_layer(),
                want.kv_elements_per_token_layer(),
                "{id}"
            );
            assert_eq!(got.active_params(), want.active_params(), "{id}");
            assert_eq!(got.max_seq, want.max_seq, "{id}");
            assert!(notes.is_empty(), "{id}: {notes:?}");
        }
    }

    #[test]
    fn missing_or_impossible_keys_are_named() {
        let mut g = header("llama-3-8b", Dtype::Q80);
        g.metadata.retain(|(k, _)| k != "llama.block_count");
        let e = arch_of_gguf(&g).unwrap_err();
        assert!(e.contains("llama.block_count"), "{e}");
        let mut g = header("llama-3-8b", Dtype::Q80);
        for (k, v) in &mut g.metadata {
            if k == "llama.embedding_length" {
                *v = Value::U64(1 << 40);
            }
        }
        let e = arch_of_gguf(&g).unwrap_err();
        assert!(e.contains("far beyond"), "{e}");
        let mut g = header("llama-3-8b", Dtype::Q80);
        g.metadata.retain(|(k, _)| k != "general.architecture");
        assert!(arch_of_gguf(&g).is_err());
    }
}
