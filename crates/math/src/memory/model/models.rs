//! Model presets, transcribed from each model's published configuration. Parameter counts are
//! computed from these numbers ([`ModelArch::params`]), never typed in; the tests compare them
//! with the published totals.

use crate::memory::model::arch::{Mlp, ModelArch, Norm};
use serde::Serialize;

/// A named model preset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelPreset {
    /// Identifier used by the CLI and URLs (`llama-3-8b`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Family, for grouping in menus.
    pub family: &'static str,
    /// The architecture.
    pub arch: ModelArch,
    /// Where the numbers come from.
    pub source: &'static str,
}

#[allow(clippy::too_many_arguments)]
fn gpt(
    layers: u64,
    hidden: u64,
    heads: u64,
    vocab: u64,
    ctx: u64,
    positions: u64,
    norm: Norm,
    embedding_norm: bool,
) -> ModelArch {
    ModelArch {
        layers,
        hidden,
        heads,
        kv_heads: heads,
        head_dim: hidden / heads,
        ffn: 4 * hidden,
        mlp: Mlp::Gelu,
        norm,
        norms_per_layer: 2,
        vocab,
        max_seq: ctx,
        position_embeddings: positions,
        qkv_bias: true,
        out_bias: true,
        mlp_bias: true,
        embedding_norm,
        tied_embeddings: true,
        experts: 1,
        active_experts: 1,
        ..ModelArch::DENSE_EXTRAS
    }
}

/// A Llama-style architecture (SwiGLU, RMSNorm, untied head) from its config numbers: `l`
/// layers, hidden size `h`, `heads`, KV heads `kv`, `ffn`, `vocab` and context length `ctx`.
fn llama(l: u64, h: u64, heads: u64, kv: u64, ffn: u64, vocab: u64, ctx: u64) -> ModelArch {
    ModelArch {
        max_seq: ctx,
        ..ModelArch::custom(l, h, heads, kv, ffn, vocab, Mlp::Swiglu)
    }
}

/// A Qwen2.5 `config.json`: Llama's shape with biases on Q, K and V, untied, 152,064 tokens,
/// 131,072 positions.
fn qwen2_5(l: u64, h: u64, heads: u64, kv: u64, ffn: u64) -> ModelArch {
    ModelArch {
        qkv_bias: true,
        ..llama(l, h, heads, kv, ffn, 152064, 131072)
    }
}

/// Every model preset, grouped by family.
pub fn model_presets() -> Vec<ModelPreset> {
    let p = |id, name, family, arch, source| ModelPreset {
        id,
        name,
        family,
        arch,
        source,
    };
    // GPT-2's config.json: `activation_function: "gelu_new"`, attn_pdrop and resid_pdrop 0.1.
    let hf_gpt2 = |a: ModelArch| ModelArch {
        gelu_ops: true,
        attention_dropout: true,
        residual_dropout: true,
        ..a
    };
    vec![
        // OpenAI GPT-2 config.json (Hugging Face `gpt2`): n_layer 12, n_embd 768, n_head 12,
        // vocab 50257, n_positions 1024; tied head, biases everywhere.
        p(
            "gpt2",
            "GPT-2 (124M)",
            "GPT",
            hf_gpt2(gpt(12, 768, 12, 50257, 1024, 1024, Norm::LayerNorm, false)),
            "Hugging Face gpt2 config.json",
        ),
        // Hugging Face `gpt2-xl` config.json: n_layer 48, n_embd 1600, n_head 25.
        p(
            "gpt2-xl",
            "GPT-2 XL (1.5B)",
            "GPT",
            hf_gpt2(gpt(48, 1600, 25, 50257, 1024, 1024, Norm::LayerNorm, false)),
            "Hugging Face gpt2-xl config.json",
        ),
        // Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1: 96 layers,
        // d_model 12288, 96 heads, context 2048; GPT-2's 50257-token vocabulary.
        p(
            "gpt-3-175b",
            "GPT-3 175B",
            "GPT",
            gpt(96, 12288, 96, 50257, 2048, 2048, Norm::LayerNorm, false),
            "Brown et al. 2020, Table 2.1",
        ),
        // Meta's OPT-13B config.json: 40 layers, hidden 5120, 40 heads, ffn 20480, vocab 50272,
        // 2048 positions + 2 offset rows. The vLLM paper's KV-cache example.
        p(
            "opt-13b",
            "OPT-13B",
            "OPT",
            ModelArch {
                ffn: 20480,
                ..gpt(40, 5120, 40, 50272, 2048, 2050, Norm::LayerNorm, false)
            },
            "Hugging Face facebook/opt-13b config.json",
        ),
        // BigScience BLOOM config.json: n_layer 70, hidden 14336, n_head 112, vocab 250880,
        // ALiBi (no position table), word-embedding LayerNorm, tied head.
        p(
            "bloom-176b",
            "BLOOM 176B",
            "BLOOM",
            gpt(70, 14336, 112, 250880, 2048, 0, Norm::LayerNorm, true),
            "Hugging Face bigscience/bloom config.json",
        ),
        // Meta Llama 2 config.json files (meta-llama/Llama-2-*-hf).
        p(
            "llama-2-7b",
            "Llama 2 7B",
            "Llama",
            llama(32, 4096, 32, 32, 11008, 32000, 4096),
            "meta-llama/Llama-2-7b-hf config.json",
        ),
        p(
            "llama-2-13b",
            "Llama 2 13B",
            "Llama",
            llama(40, 5120, 40, 40, 13824, 32000, 4096),
            "meta-llama/Llama-2-13b-hf config.json",
        ),
        p(
            "llama-2-70b",
            "Llama 2 70B",
            "Llama",
            llama(80, 8192, 64, 8, 28672, 32000, 4096),
            "meta-llama/Llama-2-70b-hf config.json",
        ),
        // Meta Llama 3 / 3.1 config.json files (meta-llama/Meta-Llama-3-8B, ...-70B, Llama-3.1-405B).
        p(
            "llama-3-8b",
            "Llama 3 8B",
            "Llama",
            llama(32, 4096, 32, 8, 14336, 128256, 8192),
            "meta-llama/Meta-Llama-3-8B config.json",
        ),
        p(
            "llama-3-70b",
            "Llama 3 70B",
            "Llama",
            llama(80, 8192, 64, 8, 28672, 128256, 8192),
            "meta-llama/Meta-Llama-3-70B config.json",
        ),
        p(
            "llama-3.1-405b",
            "Llama 3.1 405B",
            "Llama",
            llama(126, 16384, 128, 8, 53248, 128256, 131072),
            "meta-llama/Llama-3.1-405B config.json",
        ),
        // Mistral AI config.json files (mistralai/Mistral-7B-v0.1, Mixtral-8x7B-v0.1).
        p(
            "mistral-7b",
            "Mistral 7B",
            "Mistral",
            llama(32, 4096, 32, 8, 14336, 32000, 32768),
            "mistralai/Mistral-7B-v0.1 config.json",
        ),
        p(
            "mixtral-8x7b",
            "Mixtral 8x7B",
            "Mistral",
            ModelArch {
                experts: 8,
                active_experts: 2,
                ..llama(32, 4096, 32, 8, 14336, 32000, 32768)
            },
            "mistralai/Mixtral-8x7B-v0.1 config.json",
        ),
        // Qwen2.5 config.json files (see `qwen2_5`).
        p(
            "qwen2.5-7b",
            "Qwen2.5 7B",
            "Qwen",
            qwen2_5(28, 3584, 28, 4, 18944),
            "Qwen/Qwen2.5-7B config.json",
        ),
        p(
            "qwen2.5-14b",
            "Qwen2.5 14B",
            "Qwen",
            qwen2_5(48, 5120, 40, 8, 13824),
            "Qwen/Qwen2.5-14B config.json",
        ),
        p(
            "qwen2.5-32b",
            "Qwen2.5 32B",
            "Qwen",
            qwen2_5(64, 5120, 40, 8, 27648),
            "Qwen/Qwen2.5-32B config.json",
        ),
        p(
            "qwen2.5-72b",
            "Qwen2.5 72B",
            "Qwen",
            qwen2_5(80, 8192, 64, 8, 29568),
            "Qwen/Qwen2.5-72B config.json",
        ),
        // TII Falcon-40B config.json: 60 layers, hidden 8192, n_head 128, n_head_kv 8, GELU MLP
        // 4×hidden without biases, parallel attention/MLP with two LayerNorms, rotary, vocab 65024,
        // head tied to the embedding (the Transformers default, which the config does not override).
        p(
            "falcon-40b",
            "Falcon 40B",
            "Falcon",
            ModelArch {
                mlp: Mlp::Gelu,
                norm: Norm::LayerNorm,
                ffn: 32768,
                tied_embeddings: true,
                ..llama(60, 8192, 128, 8, 32768, 65024, 2048)
            },
            "tiiuae/falcon-40b config.json",
        ),
    ]
}

/// The preset with this id, if any.
pub fn find_model(id: &str) -> Option<ModelPreset> {
    model_presets().into_iter().find(|m| m.id == id)
}
