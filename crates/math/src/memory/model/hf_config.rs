//! Any model from its Hugging Face `config.json`: the text is read into a [`ModelArch`] with the
//! same defaults Transformers applies when a field is absent, so the parameter count equals the sum
//! of the published checkpoint's tensor sizes.
//!
//! Supported `model_type`s: llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, gemma, gemma2,
//! gemma3 (its text model; a multimodal config's `text_config` is read and the vision tower is not
//! counted), gemma3_text, phi3, gpt2, gpt_neox, falcon, opt, deepseek_v2, deepseek_v3, gpt_oss.
//! Anything else, or a missing or malformed field, is a [`ConfigError`] that names it; nothing here
//! panics.

use crate::memory::model::arch::{Mla, Mlp, ModelArch, Norm};
use serde_json::{Map, Value};

/// A parsed config: what it is and its architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HfModel {
    /// The config's `model_type` (for a multimodal Gemma 3, that of its text model).
    pub model_type: String,
    /// The first entry of `architectures`, when present (e.g. `LlamaForCausalLM`).
    pub architecture: Option<String>,
    /// The architecture, ready for [`ModelArch::params`] and the memory estimate.
    pub arch: ModelArch,
    /// What was assumed or left out, one sentence each.
    pub notes: Vec<String>,
}

/// Why a config could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The text is not JSON; the message has serde_json's line and column.
    Json(String),
    /// The JSON is not an object.
    NotAnObject,
    /// No `model_type` field.
    MissingModelType,
    /// A `model_type` this parser does not know.
    UnknownModelType(String),
    /// A field the model type needs is absent (or null).
    MissingField {
        /// The config's model type.
        model_type: String,
        /// The field's name.
        field: String,
    },
    /// A field has the wrong type or an impossible value.
    BadField {
        /// The field's name.
        field: String,
        /// What is wrong with it.
        why: String,
    },
    /// A valid config of a variant this parser does not model (e.g. OPT-350m's projected embedding).
    Unsupported(String),
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Json(e) => write!(f, "config.json is not valid JSON: {e}"),
            ConfigError::NotAnObject => f.write_str("config.json must be a JSON object ({...})"),
            ConfigError::MissingModelType => f.write_str(
                "config.json has no \"model_type\" field: cannot tell which architecture it describes",
            ),
            ConfigError::UnknownModelType(t) => write!(
                f,
                "unknown model_type \"{t}\"; supported: {}",
                SUPPORTED.join(", ")
            ),
            ConfigError::MissingField { model_type, field } => write!(
                f,
                "config.json ({model_type}) is missing the field \"{field}\""
            ),
            ConfigError::BadField { field, why } => {
                write!(f, "config.json field \"{field}\" {why}")
            }
            ConfigError::Unsupported(what) => write!(f, "not supported: {what}"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The `model_type`s [`parse_config`] reads.
pub const SUPPORTED: &[&str] = &[
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "phi3",
    "gpt2",
    "gpt_neox",
    "falcon",
    "opt",
    "deepseek_v2",
    "deepseek_v3",
    "gpt_oss",
];

/// Largest value accepted for any size field; real configs stay far below it.
const MAX_FIELD: u64 = 1 << 32;

/// Parses a `config.json` text into an architecture.
///
/// Errors: invalid JSON (with line and column), a non-object, a missing or unknown `model_type`, a
/// missing required field (named), a field that is not a non-negative integer below 2^32 (or a
/// boolean where one is expected), or an architecture too large to count in 64 bits.
pub fn parse_config(text: &str) -> Result<HfModel, ConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ConfigError::Json(e.to_string()))?;
    let obj = value.as_object().ok_or(ConfigError::NotAnObject)?;
    let model_type = match obj.get("model_type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Null) | None => return Err(ConfigError::MissingModelType),
        Some(_) => {
            return Err(ConfigError::BadField {
                field: "model_type".into(),
                why: "must be a string".into(),
            })
        }
    };
    let architecture = obj
        .get("architectures")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut notes = Vec::new();
    let (model_type, fields) = if model_type == "gemma3" {
        match obj.get("text_config") {
            Some(Value::Object(text)) => {
                notes.push("multimodal Gemma 3: the text model only; the vision tower and projector are not counted".into());
                ("gemma3_text".to_string(), text)
            }
            Some(_) => {
                return Err(ConfigError::BadField {
                    field: "text_config".into(),
                    why: "must be an object".into(),
                })
            }
            None => (model_type, obj),
        }
    } else {
        (model_type, obj)
    };
    let f = Fields {
        obj: fields,
        model_type: &model_type,
    };
    let arch = match model_type.as_str() {
        "gpt2" => gpt2(&f)?,
        "gpt_neox" => gpt_neox(&f)?,
        "opt" => opt(&f)?,
        "falcon" => falcon(&f)?,
        "deepseek_v2" | "deepseek_v3" => deepseek(&f, model_type == "deepseek_v3")?,
        "gpt_oss" => gpt_oss(&f, &mut notes)?,
        "llama" | "mistral" | "mixtral" | "qwen2" | "qwen3" | "qwen3_moe" | "gemma" | "gemma2"
        | "gemma3_text" | "phi3" => llama_like(&f, &mut notes)?,
        other => return Err(ConfigError::UnknownModelType(other.to_string())),
    };
    check_size(&arch)?;
    Ok(HfModel {
        model_type,
        architecture,
        arch,
        notes,
    })
}

/// Typed access to a config's fields, naming the field in every error.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
    model_type: &'a str,
}

impl Fields<'_> {
    /// The first of `names` that is present and not null, as a size.
    fn opt(&self, names: &[&str]) -> Result<Option<u64>, ConfigError> {
        for name in names {
            match self.obj.get(*name) {
                None | Some(Value::Null) => continue,
                Some(v) => return size(name, v).map(Some),
            }
        }
        Ok(None)
    }

    /// Like `opt`, but absent is an error naming the first name.
    fn req(&self, names: &[&str]) -> Result<u64, ConfigError> {
        self.opt(names)?.ok_or_else(|| ConfigError::MissingField {
            model_type: self.model_type.to_string(),
            field: names[0].to_string(),
        })
    }

    /// A boolean, `default` when absent or null.
    fn flag(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        match self.obj.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(ConfigError::BadField {
                field: name.into(),
                why: "must be true or false".into(),
            }),
        }
    }

    /// A string, if present.
    fn text(&self, name: &str) -> Option<&str> {
        self.obj.get(name).and_then(Value::as_str)
    }

    /// Whether the dropout probability `name` is above 0 (absent or null: `default`); a value that
    /// is not a number from 0 to 1 is an error naming the field.
    fn dropout(&self, name: &str, default: bool) -> Result<bool, ConfigError> {
        match self.obj.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match v.as_f64() {
                Some(p) if (0.0..=1.0).contains(&p) => Ok(p > 0.0),
                _ => Err(ConfigError::BadField {
                    field: name.into(),
                    why: "must be a probability from 0 to 1".into(),
                }),
            },
        }
    }
}

/// A non-negative integer size below [`MAX_FIELD`] (an integral float such as `4096.0` is accepted).
fn size(name: &str, v: &Value) -> Result<u64, ConfigError> {
    let bad = |why: &str| ConfigError::BadField {
        field: name.to_string(),
        why: why.to_string(),
    };
    let n = match v {
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(u), _) => u,
            (None, Some(x)) if x >= 0.0 && x.fract() == 0.0 && x < MAX_FIELD as f64 => x as u64,
            _ => return Err(bad("must be a non-negative whole number")),
        },
        _ => return Err(bad("must be a number")),
    };
    if n >= MAX_FIELD {
        return Err(bad("is larger than any model has (limit 2^32)"));
    }
    Ok(n)
}

fn positive(field: &str, v: u64) -> Result<u64, ConfigError> {
    if v == 0 {
        return Err(ConfigError::BadField {
            field: field.into(),
            why: "must be at least 1".into(),
        });
    }
    Ok(v)
}

/// The fields every decoder shares: layers, hidden, heads, vocabulary.
struct Core {
    layers: u64,
    hidden: u64,
    heads: u64,
    vocab: u64,
}

fn core(f: &Fields, layers: &[&str], hidden: &[&str], heads: &[&str]) -> Result<Core, ConfigError> {
    Ok(Core {
        layers: positive(layers[0], f.req(layers)?)?,
        hidden: positive(hidden[0], f.req(hidden)?)?,
        heads: positive(heads[0], f.req(heads)?)?,
        vocab: positive("vocab_size", f.req(&["vocab_size"])?)?,
    })
}

fn base(c: &Core) -> ModelArch {
    ModelArch {
        layers: c.layers,
        hidden: c.hidden,
        heads: c.heads,
        kv_heads: c.heads,
        head_dim: c.hidden / c.heads,
        vocab: c.vocab,
        ..ModelArch::DENSE_EXTRAS
    }
}

/// GPT-2: learned positions, LayerNorm, biases everywhere, a 4h GELU MLP unless `n_inner`, tied head.
fn gpt2(f: &Fields) -> Result<ModelArch, ConfigError> {
    let c = core(f, &["n_layer"], &["n_embd"], &["n_head"])?;
    let positions = f.req(&["n_positions"])?;
    Ok(ModelArch {
        ffn: f.opt(&["n_inner"])?.unwrap_or(4 * c.hidden),
        mlp: Mlp::Gelu,
        norm: Norm::LayerNorm,
        max_seq: positions,
        position_embeddings: positions,
        qkv_bias: true,
        out_bias: true,
        mlp_bias: true,
        tied_embeddings: f.flag("tie_word_embeddings", true)?,
        // Transformers' GPT2Config defaults: gelu_new, every dropout 0.1.
        gelu_ops: f.text("activation_function").unwrap_or("gelu_new") == "gelu_new",
        attention_dropout: f.dropout("attn_pdrop", true)?,
        residual_dropout: f.dropout("resid_pdrop", true)?,
        ..base(&c)
    })
}

/// GPT-NeoX (Pythia): rotary, LayerNorm, biases (attention_bias, default true), untied head.
fn gpt_neox(f: &Fields) -> Result<ModelArch, ConfigError> {
    let c = core(
        f,
        &["num_hidden_layers"],
        &["hidden_size"],
        &["num_attention_heads"],
    )?;
    let bias = f.flag("attention_bias", true)?;
    Ok(ModelArch {
        ffn: f.req(&["intermediate_size"])?,
        mlp: Mlp::Gelu,
        norm: Norm::LayerNorm,
        max_seq: f.opt(&["max_position_embeddings"])?.unwrap_or(2048),
        qkv_bias: bias,
        out_bias: bias,
        mlp_bias: true,
        tied_embeddings: f.flag("tie_word_embeddings", false)?,
        ..base(&c)
    })
}

/// OPT: learned positions with OPT's offset of 2 rows, LayerNorm, ReLU MLP of `ffn_dim`, tied head.
fn opt(f: &Fields) -> Result<ModelArch, ConfigError> {
    let c = core(
        f,
        &["num_hidden_layers"],
        &["hidden_size"],
        &["num_attention_heads"],
    )?;
    if let Some(proj) = f.opt(&["word_embed_proj_dim"])? {
        if proj != c.hidden {
            return Err(ConfigError::Unsupported(format!(
                "OPT with word_embed_proj_dim {proj} ≠ hidden_size {} (opt-350m's projected embedding)",
                c.hidden
            )));
        }
    }
    if !f.flag("do_layer_norm_before", true)? {
        return Err(ConfigError::Unsupported(
            "OPT with do_layer_norm_before false (post-LN, no final norm)".into(),
        ));
    }
    let positions = f.opt(&["max_position_embeddings"])?.unwrap_or(2048);
    let bias = f.flag("enable_bias", true)?;
    Ok(ModelArch {
        ffn: f.req(&["ffn_dim"])?,
        mlp: Mlp::Gelu,
        norm: Norm::LayerNorm,
        max_seq: positions,
        position_embeddings: positions + 2,
        qkv_bias: bias,
        out_bias: bias,
        mlp_bias: bias,
        tied_embeddings: f.flag("tie_word_embeddings", true)?,
        // Transformers' OPTConfig defaults: dropout 0.1, attention_dropout 0.
        attention_dropout: f.dropout("attention_dropout", false)?,
        residual_dropout: f.dropout("dropout", true)?,
        ..base(&c)
    })
}

/// Falcon: rotary (ALiBi is not a table either), LayerNorm, GELU MLP of 4h unless
/// `ffn_hidden_size`, multi-query or grouped KV heads, one norm per block for the original parallel
/// block and two for the new decoder architecture, tied head.
fn falcon(f: &Fields) -> Result<ModelArch, ConfigError> {
    let c = core(
        f,
        &["num_hidden_layers", "n_layer"],
        &["hidden_size"],
        &["num_attention_heads", "n_head"],
    )?;
    let new_arch = f.flag("new_decoder_architecture", false)?;
    let kv_heads = if new_arch {
        f.req(&["num_kv_heads", "n_head_kv"])?
    } else if f.flag("multi_query", true)? {
        1
    } else {
        c.heads
    };
    let parallel = f.flag("parallel_attn", true)?;
    let bias = f.flag("bias", false)?;
    Ok(ModelArch {
        kv_heads,
        ffn: f.opt(&["ffn_hidden_size"])?.unwrap_or(4 * c.hidden),
        mlp: Mlp::Gelu,
        norm: Norm::LayerNorm,
        norms_per_layer: if parallel && !new_arch { 1 } else { 2 },
        max_seq: f.opt(&["max_position_embeddings"])?.unwrap_or(2048),
        qkv_bias: bias,
        out_bias: bias,
        mlp_bias: bias,
        tied_embeddings: f.flag("tie_word_embeddings", true)?,
        ..base(&c)
    })
}

/// Llama and the models that share its block: RMSNorm, rotary, a gated MLP; the differences are
/// defaults (tied head, biases), extra norms (Gemma 2/3, Qwen3), MoE (Mixtral, Qwen3-MoE) and
/// sliding windows.
fn llama_like(f: &Fields, notes: &mut Vec<String>) -> Result<ModelArch, ConfigError> {
    let t = f.model_type;
    let c = core(
        f,
        &["num_hidden_layers"],
        &["hidden_size"],
        &["num_attention_heads"],
    )?;
    let kv_heads = positive(
        "num_key_value_heads",
        f.opt(&["num_key_value_heads"])?.unwrap_or(c.heads),
    )?;
    let gemma = t.starts_with("gemma");
    let head_dim = match f.opt(&["head_dim"])? {
        Some(d) => positive("head_dim", d)?,
        None if gemma => 256,
        None => c.hidden / c.heads,
    };
    let tied_default = gemma;
    // Llama and Gemma: `attention_bias` on q, k, v and o; Qwen2: biases on q, k, v only.
    let attention_bias = f.flag("attention_bias", false)?;
    let (qkv_bias, out_bias) = match t {
        "qwen2" => (true, false),
        "llama" | "qwen3" | "qwen3_moe" | "gemma" | "gemma2" | "gemma3_text" => {
            (attention_bias, attention_bias)
        }
        _ => (false, false),
    };
    let (experts, active_experts, ffn) = match t {
        "mixtral" => (
            positive("num_local_experts", f.req(&["num_local_experts"])?)?,
            positive("num_experts_per_tok", f.req(&["num_experts_per_tok"])?)?,
            f.req(&["intermediate_size"])?,
        ),
        // Qwen3-MoE: every block sparse (`decoder_sparse_step` 1, no `mlp_only_layers`), each
        // expert `moe_intermediate_size` wide, a router without bias, no shared expert.
        "qwen3_moe" => {
            let dense_layers = f.obj.get("mlp_only_layers").and_then(Value::as_array);
            if f.opt(&["decoder_sparse_step"])?.unwrap_or(1) != 1
                || dense_layers.is_some_and(|l| !l.is_empty())
            {
                return Err(ConfigError::Unsupported(
                    "qwen3_moe with dense blocks (decoder_sparse_step other than 1 or mlp_only_layers)"
                        .into(),
                ));
            }
            (
                positive("num_experts", f.req(&["num_experts"])?)?,
                positive("num_experts_per_tok", f.req(&["num_experts_per_tok"])?)?,
                f.req(&["moe_intermediate_size"])?,
            )
        }
        _ => (1, 1, f.req(&["intermediate_size"])?),
    };
    let mut arch = ModelArch {
        kv_heads,
        head_dim,
        ffn,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        norms_per_layer: if matches!(t, "gemma2" | "gemma3_text") {
            4
        } else {
            2
        },
        max_seq: f.opt(&["max_position_embeddings"])?.unwrap_or(4096),
        qkv_bias,
        out_bias,
        mlp_bias: t == "llama" && f.flag("mlp_bias", false)?,
        tied_embeddings: f.flag("tie_word_embeddings", tied_default)?,
        experts,
        active_experts,
        qk_norm: matches!(t, "qwen3" | "qwen3_moe" | "gemma3_text"),
        ..base(&c)
    };
    let (window, sliding) = sliding_window(f, c.layers)?;
    arch.sliding_window = window;
    arch.sliding_layers = sliding;
    if window > 0 && sliding > 0 && sliding < c.layers {
        notes.push(format!(
            "sliding window of {window} tokens on {sliding} of {} layers",
            c.layers
        ));
    }
    Ok(arch)
}

/// The sliding window and how many layers use it: an explicit `layer_types` list when the config
/// has one, else each family's rule (Mistral/Mixtral/Phi-3: every layer; Qwen2/3 with
/// `use_sliding_window`: layers from `max_window_layers` on; Gemma 2 and gpt-oss: every other
/// layer from the first; Gemma 3: all but every `sliding_window_pattern`-th).
fn sliding_window(f: &Fields, layers: u64) -> Result<(u64, u64), ConfigError> {
    let window = match f.opt(&["sliding_window"])? {
        Some(w) => w,
        // GptOssConfig's default.
        None if f.model_type == "gpt_oss" => 128,
        None => return Ok((0, 0)),
    };
    if let Some(Value::Array(types)) = f.obj.get("layer_types") {
        let sliding = types
            .iter()
            .filter(|v| v.as_str() == Some("sliding_attention"))
            .count() as u64;
        return Ok((window, sliding.min(layers)));
    }
    let sliding = match f.model_type {
        "mistral" | "mixtral" | "phi3" => layers,
        "qwen2" | "qwen3" | "qwen3_moe" if f.flag("use_sliding_window", false)? => {
            layers.saturating_sub(f.opt(&["max_window_layers"])?.unwrap_or(layers))
        }
        // gpt-oss: layers 0, 2, 4, … (GptOssConfig's default layer_types).
        "gemma2" | "gpt_oss" => layers.div_ceil(2),
        "gemma3_text" => {
            let pattern = f.opt(&["sliding_window_pattern"])?.unwrap_or(6).max(1);
            layers - layers / pattern
        }
        _ => 0,
    };
    Ok((if sliding > 0 { window } else { 0 }, sliding))
}

/// DeepSeek-V2/V3: multi-head latent attention, routed plus shared experts, leading dense blocks,
/// untied head; V3's router adds a per-expert score-correction bias.
fn deepseek(f: &Fields, v3: bool) -> Result<ModelArch, ConfigError> {
    let c = core(
        f,
        &["num_hidden_layers"],
        &["hidden_size"],
        &["num_attention_heads"],
    )?;
    let mla = Mla {
        q_lora_rank: f.opt(&["q_lora_rank"])?.unwrap_or(0),
        kv_lora_rank: positive("kv_lora_rank", f.req(&["kv_lora_rank"])?)?,
        qk_nope_head_dim: f.req(&["qk_nope_head_dim"])?,
        qk_rope_head_dim: f.req(&["qk_rope_head_dim"])?,
        v_head_dim: positive("v_head_dim", f.req(&["v_head_dim"])?)?,
    };
    let head_dim = positive(
        "qk_nope_head_dim",
        mla.qk_nope_head_dim + mla.qk_rope_head_dim,
    )?;
    if f.opt(&["moe_layer_freq"])?.unwrap_or(1) != 1 {
        return Err(ConfigError::Unsupported(
            "DeepSeek with moe_layer_freq other than 1".into(),
        ));
    }
    let experts = f.opt(&["n_routed_experts"])?;
    let (experts, active, shared, dense_layers, ffn) = match experts {
        Some(e) if e > 0 => (
            e,
            positive("num_experts_per_tok", f.req(&["num_experts_per_tok"])?)?,
            f.opt(&["n_shared_experts"])?.unwrap_or(0),
            f.opt(&["first_k_dense_replace"])?.unwrap_or(0),
            f.req(&["moe_intermediate_size"])?,
        ),
        _ => (1, 1, 0, 0, f.req(&["intermediate_size"])?),
    };
    if f.text("topk_method") == Some("noaux_tc") && !v3 {
        return Err(ConfigError::Unsupported(
            "deepseek_v2 with topk_method noaux_tc".into(),
        ));
    }
    Ok(ModelArch {
        kv_heads: c.heads,
        head_dim,
        ffn,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        max_seq: f.opt(&["max_position_embeddings"])?.unwrap_or(4096),
        out_bias: f.flag("attention_bias", false)?,
        tied_embeddings: f.flag("tie_word_embeddings", false)?,
        experts,
        active_experts: active.min(experts),
        shared_experts: shared,
        dense_layers: dense_layers.min(c.layers),
        dense_ffn: if dense_layers > 0 {
            f.req(&["intermediate_size"])?
        } else {
            0
        },
        router_bias: v3 && experts > 1,
        mla: Some(mla),
        ..base(&c)
    })
}

/// gpt-oss: every block an MoE of `num_local_experts` gated experts with biases (gate/up 2 × ffn,
/// down hidden), a router with a bias, biases on Q, K, V and O, a learned attention-sink logit
/// per query head, RMSNorm, untied head; the even-numbered blocks attend within a sliding window.
/// Absent fields take Transformers' `GptOssConfig` defaults (8 KV heads, head_dim 64, 4 experts
/// per token, a 128-token window, 131,072 positions); `num_local_experts` is required.
fn gpt_oss(f: &Fields, notes: &mut Vec<String>) -> Result<ModelArch, ConfigError> {
    let c = core(
        f,
        &["num_hidden_layers"],
        &["hidden_size"],
        &["num_attention_heads"],
    )?;
    let experts = positive("num_local_experts", f.req(&["num_local_experts"])?)?;
    let active = positive(
        "num_experts_per_tok",
        f.opt(&["num_experts_per_tok", "experts_per_token"])?
            .unwrap_or(4),
    )?;
    // Transformers' GptOssAttention always has biases; the config writes attention_bias true.
    let bias = f.flag("attention_bias", true)?;
    let mut arch = ModelArch {
        kv_heads: positive(
            "num_key_value_heads",
            f.opt(&["num_key_value_heads"])?.unwrap_or(8),
        )?,
        head_dim: positive("head_dim", f.opt(&["head_dim"])?.unwrap_or(64))?,
        ffn: f.req(&["intermediate_size"])?,
        max_seq: f.opt(&["max_position_embeddings"])?.unwrap_or(131072),
        qkv_bias: bias,
        out_bias: bias,
        mlp_bias: true,
        tied_embeddings: f.flag("tie_word_embeddings", false)?,
        experts,
        active_experts: active,
        router_bias: true,
        attention_sinks: true,
        ..base(&c)
    };
    notes.push(format!(
        "attention sinks: one learned logit per query head in each block ({} per block), which \
         the config does not list but every gpt-oss checkpoint holds",
        c.heads
    ));
    let (window, sliding) = sliding_window(f, c.layers)?;
    arch.sliding_window = window;
    arch.sliding_layers = sliding;
    if sliding > 0 {
        let rule = if f.obj.get("layer_types").is_some_and(Value::is_array) {
            "as layer_types lists"
        } else {
            "no layer_types: assumed on the even-numbered layers, as gpt-oss alternates"
        };
        notes.push(format!(
            "sliding window of {window} tokens on {sliding} of {} layers ({rule})",
            c.layers
        ));
    }
    Ok(arch)
}

/// Rejects architectures whose parameter count would not fit comfortably in 64 bits (the exact
/// count uses u64 arithmetic), with a bound computed in f64 from the same terms.
pub(crate) fn check_size(a: &ModelArch) -> Result<(), ConfigError> {
    let x = |v: u64| v as f64;
    let width = x(a.heads) * x(a.head_dim.max(a.mla.map_or(0, |m| m.v_head_dim)));
    let latent = a.mla.map_or(0.0, |m| {
        x(m.q_lora_rank + m.kv_lora_rank + m.qk_rope_head_dim)
    });
    let attention = (x(a.hidden) + latent + 2.0) * (4.0 * width.max(x(a.hidden)) + 4.0 * latent);
    let mlp = (x(a.experts) + x(a.shared_experts) + 1.0)
        * 3.0
        * (x(a.hidden) + 1.0)
        * (x(a.ffn.max(a.dense_ffn)) + 1.0);
    let embed = (2.0 * x(a.vocab) + x(a.position_embeddings) + 4.0) * x(a.hidden);
    let total = x(a.layers) * (attention + mlp + 8.0 * x(a.hidden)) + embed;
    if total > 1e17 {
        return Err(ConfigError::BadField {
            field: "num_hidden_layers".into(),
            why: format!(
                "and the other sizes describe about {total:.1e} parameters, far beyond any model"
            ),
        });
    }
    if a.heads % a.kv_heads != 0 {
        return Err(ConfigError::BadField {
            field: "num_key_value_heads".into(),
            why: format!(
                "({}) must divide the {} attention heads",
                a.kv_heads, a.heads
            ),
        });
    }
    if a.head_dim == 0 {
        return Err(ConfigError::BadField {
            field: "hidden_size".into(),
            why: format!(
                "({}) is smaller than the {} attention heads",
                a.hidden, a.heads
            ),
        });
    }
    if a.active_experts > a.experts {
        return Err(ConfigError::BadField {
            field: "num_experts_per_tok".into(),
            why: format!("({}) exceeds the {} experts", a.active_experts, a.experts),
        });
    }
    Ok(())
}
