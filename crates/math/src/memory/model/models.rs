//! Model presets, transcribed from each model's published configuration. Parameter counts are
//! computed from these numbers ([`ModelArch::params`]), never typed in; the tests compare them
//! with the published totals.

use crate::memory::model::arch::{Mla, Mlp, ModelArch, Norm};
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

/// A Qwen3 dense `config.json`: Llama's shape with an explicit `head_dim` of 128 (not hidden /
/// heads), RMSNorm on each query and key head, no biases, 151,936 tokens, 40,960 positions; the
/// head is `tied` to the embedding in the 0.6B, 1.7B and 4B.
fn qwen3(l: u64, h: u64, heads: u64, kv: u64, ffn: u64, tied: bool) -> ModelArch {
    ModelArch {
        head_dim: 128,
        qk_norm: true,
        tied_embeddings: tied,
        ..llama(l, h, heads, kv, ffn, 151936, 40960)
    }
}

/// A Qwen3 MoE `config.json` (`qwen3_moe`): Qwen3's attention, every block an MoE of 128 experts
/// `moe_ffn` wide (`moe_intermediate_size`; `intermediate_size` is unused) with 8 routed per token,
/// no shared experts, a router without bias, untied head.
fn qwen3_moe(l: u64, h: u64, heads: u64, kv: u64, moe_ffn: u64) -> ModelArch {
    ModelArch {
        experts: 128,
        active_experts: 8,
        ..qwen3(l, h, heads, kv, moe_ffn, false)
    }
}

/// A Gemma 3 text model (`gemma3_text`, with Transformers' defaults for the fields a multimodal
/// config's `text_config` leaves out): 262,208 tokens, 131,072 positions, an explicit `head_dim`,
/// four RMSNorms per block (input, post-attention, pre- and post-feedforward) plus RMSNorm on each
/// query and key head, no biases, tied head. One block in six attends globally; the other
/// `l - l / 6` attend within a 1,024-token sliding window. The MLP is gated GELU (tanh
/// approximation) with three matrices, gate, up and down: the parameter count only reads that
/// shape, which is `Mlp::Swiglu`'s.
fn gemma3(l: u64, h: u64, heads: u64, kv: u64, head_dim: u64, ffn: u64) -> ModelArch {
    ModelArch {
        head_dim,
        norms_per_layer: 4,
        qk_norm: true,
        tied_embeddings: true,
        sliding_window: 1024,
        sliding_layers: l - l / 6,
        ..llama(l, h, heads, kv, ffn, 262208, 131072)
    }
}

/// An OpenAI gpt-oss `config.json` (`gpt_oss`): `l` blocks, each an MoE of `experts` gated
/// experts 2,880 wide with 4 routed per token; hidden 2,880, 64 query heads of 64 (queries 4,096
/// wide) and 8 KV heads; biases on Q, K, V, O, on each expert's gate/up (2 × ffn) and down
/// (hidden) and on the router; a learned attention-sink logit per query head in each block
/// (`sinks` in gpt-oss's `model.py`; not a config field); RMSNorm, untied head, 201,088 tokens,
/// 131,072 positions. The even-numbered blocks attend within a 128-token window (`layer_types`
/// alternates, sliding first).
fn gpt_oss(l: u64, experts: u64) -> ModelArch {
    ModelArch {
        head_dim: 64,
        qkv_bias: true,
        out_bias: true,
        mlp_bias: true,
        experts,
        active_experts: 4,
        router_bias: true,
        attention_sinks: true,
        sliding_window: 128,
        sliding_layers: l.div_ceil(2),
        ..llama(l, 2880, 64, 8, 2880, 201088, 131072)
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
        // Llama 3.1: Llama 3's shapes with 131,072 positions (rope_scaling "llama3", factor 8).
        p(
            "llama-3.1-8b",
            "Llama 3.1 8B",
            "Llama",
            llama(32, 4096, 32, 8, 14336, 128256, 131072),
            "meta-llama/Llama-3.1-8B config.json",
        ),
        p(
            "llama-3.1-70b",
            "Llama 3.1 70B",
            "Llama",
            llama(80, 8192, 64, 8, 28672, 128256, 131072),
            "meta-llama/Llama-3.1-70B config.json",
        ),
        p(
            "llama-3.1-405b",
            "Llama 3.1 405B",
            "Llama",
            llama(126, 16384, 128, 8, 53248, 128256, 131072),
            "meta-llama/Llama-3.1-405B config.json",
        ),
        // Llama 3.3 70B Instruct: 3.1-70B's shape; the config only adds an explicit head_dim 128.
        p(
            "llama-3.3-70b",
            "Llama 3.3 70B",
            "Llama",
            llama(80, 8192, 64, 8, 28672, 128256, 131072),
            "meta-llama/Llama-3.3-70B-Instruct config.json",
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
        p(
            "mixtral-8x22b",
            "Mixtral 8x22B",
            "Mistral",
            ModelArch {
                experts: 8,
                active_experts: 2,
                ..llama(56, 6144, 48, 8, 16384, 32768, 65536)
            },
            "mistralai/Mixtral-8x22B-v0.1 config.json",
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
        // Qwen3 config.json files (see `qwen3`; Qwen3 technical report, Table 1, agrees on layers,
        // heads and tying).
        p(
            "qwen3-0.6b",
            "Qwen3 0.6B",
            "Qwen",
            qwen3(28, 1024, 16, 8, 3072, true),
            "Qwen/Qwen3-0.6B config.json",
        ),
        p(
            "qwen3-1.7b",
            "Qwen3 1.7B",
            "Qwen",
            qwen3(28, 2048, 16, 8, 6144, true),
            "Qwen/Qwen3-1.7B config.json",
        ),
        p(
            "qwen3-4b",
            "Qwen3 4B",
            "Qwen",
            qwen3(36, 2560, 32, 8, 9728, true),
            "Qwen/Qwen3-4B config.json",
        ),
        p(
            "qwen3-8b",
            "Qwen3 8B",
            "Qwen",
            qwen3(36, 4096, 32, 8, 12288, false),
            "Qwen/Qwen3-8B config.json",
        ),
        p(
            "qwen3-14b",
            "Qwen3 14B",
            "Qwen",
            qwen3(40, 5120, 40, 8, 17408, false),
            "Qwen/Qwen3-14B config.json",
        ),
        p(
            "qwen3-32b",
            "Qwen3 32B",
            "Qwen",
            qwen3(64, 5120, 64, 8, 25600, false),
            "Qwen/Qwen3-32B config.json",
        ),
        // Qwen3 MoE config.json files (see `qwen3_moe`; technical report Table 2).
        p(
            "qwen3-30b-a3b",
            "Qwen3 30B-A3B",
            "Qwen",
            qwen3_moe(48, 2048, 32, 4, 768),
            "Qwen/Qwen3-30B-A3B config.json",
        ),
        p(
            "qwen3-235b-a22b",
            "Qwen3 235B-A22B",
            "Qwen",
            qwen3_moe(94, 4096, 64, 4, 1536),
            "Qwen/Qwen3-235B-A22B config.json",
        ),
        // Google Gemma 3 text models (see `gemma3`). The 1B is text-only, with a 262,144-token
        // vocabulary, 32,768 positions and a 512-token window; the 4B, 12B and 27B ship as
        // multimodal configs, of which this is the `text_config` (the vision tower is not counted).
        p(
            "gemma-3-1b",
            "Gemma 3 1B",
            "Gemma",
            ModelArch {
                vocab: 262144,
                max_seq: 32768,
                sliding_window: 512,
                ..gemma3(26, 1152, 4, 1, 256, 6912)
            },
            "google/gemma-3-1b-pt config.json",
        ),
        p(
            "gemma-3-4b",
            "Gemma 3 4B text",
            "Gemma",
            gemma3(34, 2560, 8, 4, 256, 10240),
            "google/gemma-3-4b-it config.json text_config, with Transformers' Gemma3TextConfig defaults",
        ),
        p(
            "gemma-3-12b",
            "Gemma 3 12B text",
            "Gemma",
            gemma3(48, 3840, 16, 8, 256, 15360),
            "google/gemma-3-12b-it config.json text_config, with Transformers' Gemma3TextConfig defaults",
        ),
        // The 27B's heads are 128 wide: its queries are 32 × 128 = 4096, not hidden 5376.
        p(
            "gemma-3-27b",
            "Gemma 3 27B text",
            "Gemma",
            gemma3(62, 5376, 32, 16, 128, 21504),
            "google/gemma-3-27b-it config.json text_config, with Transformers' Gemma3TextConfig defaults",
        ),
        // DeepSeek-V3 config.json (R1 has the same shape): multi-head latent attention, 3 dense
        // blocks (intermediate 18432) then 58 MoE blocks of 256 routed experts (8 per token) plus
        // one shared, each 2048 wide; the router's per-expert correction bias; untied head. The
        // main model only: the download's multi-token-prediction module (`num_nextn_predict_layers`
        // 1, loaded as layer 61: 11.6B parameters of its own plus copies of the embedding and
        // head, 13.5B in the files) serves only speculative decoding, and engines load it only
        // when asked to.
        p(
            "deepseek-v3",
            "DeepSeek-V3",
            "DeepSeek",
            ModelArch {
                layers: 61,
                hidden: 7168,
                heads: 128,
                kv_heads: 128,
                head_dim: 128 + 64,
                ffn: 2048,
                vocab: 129280,
                max_seq: 163840,
                experts: 256,
                active_experts: 8,
                shared_experts: 1,
                dense_layers: 3,
                dense_ffn: 18432,
                router_bias: true,
                mla: Some(Mla {
                    q_lora_rank: 1536,
                    kv_lora_rank: 512,
                    qk_nope_head_dim: 128,
                    qk_rope_head_dim: 64,
                    v_head_dim: 128,
                }),
                ..ModelArch::DENSE_EXTRAS
            },
            "deepseek-ai/DeepSeek-V3 config.json; main model only, without the multi-token-prediction module (layer 61) that the download adds for speculative decoding",
        ),
        // OpenAI gpt-oss config.json files (see `gpt_oss`); the checkpoints store the experts in
        // MXFP4 and the rest in BF16 (`quant_method: mxfp4`).
        p(
            "gpt-oss-20b",
            "gpt-oss-20b",
            "gpt-oss",
            gpt_oss(24, 32),
            "openai/gpt-oss-20b config.json; attention sinks from openai/gpt-oss gpt_oss/torch/model.py",
        ),
        p(
            "gpt-oss-120b",
            "gpt-oss-120b",
            "gpt-oss",
            gpt_oss(36, 128),
            "openai/gpt-oss-120b config.json; attention sinks from openai/gpt-oss gpt_oss/torch/model.py",
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
