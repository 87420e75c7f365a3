//! A job to size, described by options: the one table of memory options ([`OPTIONS`]) from which the
//! CLI's arguments, the page's URL query and the report's setup echo are all made, so they accept
//! the same keys with the same defaults and the same parsers.
//!
//! A [`Job`] holds every option's value as typed fields; [`Job::to_setup`] turns it into the
//! [`Setup`] the estimate reads, and [`Job::from_setup`] goes back. Keys are the CLI's long names
//! without `--` and the URL's parameter names ([`super::keys`]).

use super::arch::{Mlp, ModelArch};
use super::error::MemoryError;
use super::gpus::{find_gpu, gpu_presets};
use super::keys::{self, OptionKey};
use super::models::{find_model, model_presets};
use super::options::{Convention, Dtype, Mode, Offload, Optimizer, Recompute, ZeroStage};
use super::setup::{
    LoraTargets, ModelSpec, Setup, MAX_BATCH, MAX_DEGREE, MAX_FFN, MAX_HEADS, MAX_HIDDEN,
    MAX_LAYERS, MAX_LORA_RANK, MAX_PARAMS, MAX_SEQ, MAX_VOCAB,
};
use super::step::{StepParams, DEFAULT_UTILISATION, MAX_GRAD_ACCUM};
use crate::numbers::Units;

/// A custom architecture's numbers (used when the model is `custom`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomArch {
    /// Transformer blocks.
    pub layers: u64,
    /// Hidden size.
    pub hidden: u64,
    /// Attention heads.
    pub heads: u64,
    /// KV heads; `None` means as many as attention heads (multi-head attention).
    pub kv_heads: Option<u64>,
    /// Feed-forward width; `None` means 4 × hidden (GPT-2/GPT-3).
    pub ffn: Option<u64>,
    /// Vocabulary size.
    pub vocab: u64,
    /// MLP shape.
    pub mlp: Mlp,
}

impl Default for CustomArch {
    /// A 1.3B-parameter GPT-style model (24 layers, hidden 2048, 16 heads, GELU, 4 × hidden FFN).
    /// Vocabulary 50304: GPT-2's 50257 tokens padded to a multiple of 64 as Megatron-LM and nanoGPT
    /// do, which suits this GPT-style default better than LLaMA's 32000.
    fn default() -> Self {
        Self {
            layers: 24,
            hidden: 2048,
            heads: 16,
            kv_heads: None,
            ffn: None,
            vocab: 50304,
            mlp: Mlp::Gelu,
        }
    }
}

impl CustomArch {
    /// The architecture, with `kv_heads` and `ffn` resolved (saturating, so absurd sizes reach
    /// validation instead of overflowing).
    pub fn arch(&self) -> ModelArch {
        ModelArch::custom(
            self.layers,
            self.hidden,
            self.heads,
            self.kv_heads.unwrap_or(self.heads),
            self.ffn.unwrap_or(self.hidden.saturating_mul(4)),
            self.vocab,
            self.mlp,
        )
    }
}

/// Everything a memory estimate is asked with: every option of [`OPTIONS`] as a typed field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// A preset id, or `None` for the custom architecture.
    pub model: Option<String>,
    /// A parameter count alone (model states only); when set it replaces `model`.
    pub params: Option<u64>,
    /// The custom architecture (used when `model` is `None`).
    pub custom: CustomArch,
    /// Mode.
    pub mode: Mode,
    /// Weight dtype.
    pub dtype: Dtype,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// ZeRO stage.
    pub zero: ZeroStage,
    /// Data-parallel degree.
    pub dp: u64,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// Pipeline-parallel degree.
    pub pp: u64,
    /// Sequence parallelism.
    pub sequence_parallel: bool,
    /// Micro-batch per GPU.
    pub batch: u64,
    /// Sequence length in tokens.
    pub seq: u64,
    /// Recomputation.
    pub recompute: Recompute,
    /// FlashAttention.
    pub flash_attention: bool,
    /// Offload.
    pub offload: Offload,
    /// KV-cache dtype.
    pub kv_dtype: Dtype,
    /// LoRA rank.
    pub lora_rank: u64,
    /// LoRA targets; `None` ("auto") means the mode's own ([`LoraTargets::for_mode`]: all linear
    /// layers for QLoRA, q and v for LoRA).
    pub lora_targets: Option<LoraTargets>,
    /// FP32 gradient-accumulation buffer.
    pub fp32_grad_accum: bool,
    /// Step time: share of the GPU's dense tensor peak sustained, in percent (1..=100).
    pub utilisation_percent: u64,
    /// Step time: micro-batches per optimizer step (gradient accumulation).
    pub grad_accum: u64,
    /// CUDA context and allocator reserve per GPU, in bytes.
    pub overhead_bytes: u64,
    /// GPU preset id, if a GPU is compared against.
    pub gpu: Option<String>,
    /// Bookkeeping convention.
    pub convention: Convention,
    /// GPUs per node.
    pub gpus_per_node: u64,
    /// GB or GiB.
    pub units: Units,
}

/// The model of [`Job::default`].
pub const DEFAULT_MODEL: &str = "llama-3-8b";

impl Default for Job {
    /// [`Setup::new`]'s defaults (full BF16 training with AdamW on one GPU, batch 1, sequence 2048)
    /// for Llama 3 8B, with no GPU to compare against.
    fn default() -> Self {
        Job {
            model: Some(DEFAULT_MODEL.into()),
            params: None,
            ..Job::from_setup(&Setup::new(ModelSpec::Params(1)))
        }
    }
}

/// How an option's value is read and written.
#[derive(Clone, Copy)]
pub enum Kind {
    /// A whole number in `min..=max` (scientific notation accepted: `7.5e9`).
    Count {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
        /// Reads the value (resolved, for fields with a derived default).
        get: fn(&Job) -> u64,
        /// Writes the value.
        put: fn(&mut Job, u64),
    },
    /// On or off: `1`/`true`/`yes` (or no value) and `0`/`false`/`no`.
    Flag {
        /// Reads the value.
        get: fn(&Job) -> bool,
        /// Writes the value.
        put: fn(&mut Job, bool),
    },
    /// Any other text: a name, a list, or a count with a special word.
    Text {
        /// Prints the value.
        get: fn(&Job) -> String,
        /// Parses and writes the value, or says why the text is refused.
        set: fn(&mut Job, &str) -> Result<(), String>,
    },
}

/// Which options belong together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Which model: `model`, `params`.
    Model,
    /// The custom architecture's numbers (only used with `model=custom`).
    Custom,
    /// Everything else about the job.
    Job,
}

/// One memory option: key, help, how it is parsed and printed. Its default is its value in
/// [`Job::default`] ([`MemoryOption::default_text`]).
#[derive(Clone, Copy)]
pub struct MemoryOption {
    /// Key and plain-words name.
    pub name: OptionKey,
    /// One line of help.
    pub help: &'static str,
    /// Placeholder for the value in help (`N`, `ID`, `NAME`).
    pub value_name: &'static str,
    /// Which options it belongs with.
    pub group: Group,
    /// How it is read and written.
    pub kind: Kind,
}

impl MemoryOption {
    /// Whether the option is an on/off flag.
    pub fn is_flag(&self) -> bool {
        matches!(self.kind, Kind::Flag { .. })
    }

    /// The option's value in `job`, as text that [`MemoryOption::set`] parses back.
    pub fn get(&self, job: &Job) -> String {
        match self.kind {
            Kind::Count { get, .. } => get(job).to_string(),
            Kind::Flag { get, .. } => u8::from(get(job)).to_string(),
            Kind::Text { get, .. } => get(job),
        }
    }

    /// The default value, as text.
    pub fn default_text(&self) -> String {
        self.get(&Job::default())
    }

    /// Parses `text` into `job`; on error `job` is unchanged and the error names the option.
    pub fn set(&self, job: &mut Job, text: &str) -> Result<(), MemoryError> {
        let option = self.name;
        let bad = |reason: String| MemoryError::BadValue {
            option,
            value: text.to_string(),
            reason,
        };
        match self.kind {
            Kind::Count { min, max, put, .. } => {
                let n = count(text).map_err(|r| bad(r.into()))?;
                if n < min {
                    return Err(if is_degree(option) {
                        MemoryError::NoGpu { option }
                    } else {
                        MemoryError::Zero { option }
                    });
                }
                if n > max {
                    return Err(MemoryError::TooLarge {
                        option,
                        value: n,
                        limit: max,
                    });
                }
                put(job, n);
            }
            Kind::Flag { put, .. } => put(job, flag(text).map_err(bad)?),
            Kind::Text { set, .. } => set(job, text).map_err(bad)?,
        }
        Ok(())
    }
}

fn is_degree(o: OptionKey) -> bool {
    [keys::DP, keys::TP, keys::PP, keys::GPUS_PER_NODE].contains(&o)
}

fn flag(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err("is not 1 or 0".into()),
    }
}

/// Parses a whole count ≥ 0, accepting scientific notation (`7.5e9`, `4096`); the error says why
/// in words that follow the text ("is not a number").
fn count(text: &str) -> Result<u64, &'static str> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    let v: f64 = t.parse().map_err(|_| "is not a number")?;
    if !v.is_finite() || v < 0.0 {
        return Err("must be a finite number ≥ 0");
    }
    if v.fract() != 0.0 || v >= 1.8e19 {
        return Err("must be a whole number below 1.8e19");
    }
    Ok(v as u64)
}

/// Parses a non-negative whole count, accepting scientific notation (`7.5e9`, `4096`). Errors
/// quote the text: `'-5' must be a finite number ≥ 0`, `'1.5' must be a whole number below 1.8e19`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    count(text).map_err(|reason| format!("'{text}' {reason}"))
}

/// Up to three ids closest to `wanted`: ids containing it first, then by edit distance.
pub fn closest(wanted: &str, ids: &[&str]) -> Vec<String> {
    let w = wanted.to_ascii_lowercase();
    let mut scored: Vec<(bool, usize, &str)> = ids
        .iter()
        .map(|id| (!id.contains(&w), edit_distance(&w, id), *id))
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, _, id)| id.to_string())
        .collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Parses one of `all` by its name, or says which names exist.
fn named<T: Copy + std::fmt::Display>(text: &str, all: &[T]) -> Result<T, String> {
    let wanted = text.trim().to_ascii_lowercase();
    all.iter()
        .copied()
        .find(|v| v.to_string() == wanted)
        .ok_or_else(|| {
            let names: Vec<String> = all.iter().map(T::to_string).collect();
            format!("is not one of {}", names.join(", "))
        })
}

const MLPS: [Mlp; 2] = [Mlp::Gelu, Mlp::Swiglu];

/// The name of an MLP shape in options: `gelu` or `swiglu`.
pub const fn mlp_name(m: Mlp) -> &'static str {
    match m {
        Mlp::Gelu => "gelu",
        Mlp::Swiglu => "swiglu",
    }
}

fn parse_mlp(text: &str) -> Result<Mlp, String> {
    let wanted = text.trim().to_ascii_lowercase();
    MLPS.iter()
        .copied()
        .find(|m| mlp_name(*m) == wanted)
        .ok_or_else(|| "is not one of gelu, swiglu".into())
}

const UNITS: [Units; 2] = [Units::Gb, Units::Gib];

/// LoRA targets as `q,v` (in the order q, k, v, o, mlp), or `none`.
pub fn lora_targets_text(t: LoraTargets) -> String {
    let names: Vec<&str> = [
        (t.q, "q"),
        (t.k, "k"),
        (t.v, "v"),
        (t.o, "o"),
        (t.mlp, "mlp"),
    ]
    .into_iter()
    .filter_map(|(on, n)| on.then_some(n))
    .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(",")
    }
}

fn parse_lora_targets(text: &str) -> Result<LoraTargets, String> {
    let mut t = LoraTargets {
        q: false,
        k: false,
        v: false,
        o: false,
        mlp: false,
    };
    match text.trim() {
        "none" => return Ok(t),
        "all" => return Ok(LoraTargets::ALL_LINEAR),
        _ => {}
    }
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "q" => t.q = true,
            "k" => t.k = true,
            "v" => t.v = true,
            "o" => t.o = true,
            "mlp" => t.mlp = true,
            other => {
                return Err(format!(
                    "names '{other}': targets are q, k, v, o and mlp (or all, none, auto)"
                ))
            }
        }
    }
    Ok(t)
}

fn set_model(j: &mut Job, text: &str) -> Result<(), String> {
    let t = text.trim();
    if t == "custom" {
        j.model = None;
    } else {
        let m = find_model(t).ok_or_else(|| {
            let ids: Vec<&str> = model_presets().iter().map(|m| m.id).collect();
            format!(
                "is not a model preset or custom; closest: {}",
                closest(t, &ids).join(", ")
            )
        })?;
        j.model = Some(m.id.into());
    }
    j.params = None;
    Ok(())
}

fn set_params(j: &mut Job, text: &str) -> Result<(), String> {
    if text.trim() == "none" {
        j.params = None;
        return Ok(());
    }
    let n = count(text)?;
    if n == 0 || n > MAX_PARAMS {
        return Err(format!("is outside 1..={MAX_PARAMS}"));
    }
    j.params = Some(n);
    Ok(())
}

fn set_gpu(j: &mut Job, text: &str) -> Result<(), String> {
    let t = text.trim();
    if t == "none" || t.is_empty() {
        j.gpu = None;
        return Ok(());
    }
    let g = find_gpu(t).ok_or_else(|| {
        let ids: Vec<&str> = gpu_presets().iter().map(|g| g.id).collect();
        format!(
            "is not a GPU preset; closest: {}",
            closest(t, &ids).join(", ")
        )
    })?;
    j.gpu = Some(g.id.into());
    Ok(())
}

fn auto_text(v: Option<u64>) -> String {
    v.map_or_else(|| "auto".into(), |n| n.to_string())
}

/// A count option with `min..=max` on the field `$f`.
macro_rules! count_option {
    ($name:expr, $help:literal, $min:expr, $max:expr, $group:expr, |$j:ident| $f:expr) => {
        MemoryOption {
            name: $name,
            help: $help,
            value_name: "N",
            group: $group,
            kind: Kind::Count {
                min: $min,
                max: $max,
                get: |$j| $f,
                put: |$j, n| $f = n,
            },
        }
    };
}

/// A named-choice option (a `named_enum!` type) on the field `$f`.
macro_rules! choice_option {
    ($name:expr, $help:literal, $all:expr, |$j:ident| $f:expr) => {
        MemoryOption {
            name: $name,
            help: $help,
            value_name: "NAME",
            group: Group::Job,
            kind: Kind::Text {
                get: |$j| $f.to_string(),
                set: |$j, t| {
                    $f = named(t, $all)?;
                    Ok(())
                },
            },
        }
    };
}

/// A flag option on the field `$f`.
macro_rules! flag_option {
    ($name:expr, $help:literal, |$j:ident| $f:expr) => {
        MemoryOption {
            name: $name,
            help: $help,
            value_name: "",
            group: Group::Job,
            kind: Kind::Flag {
                get: |$j| $f,
                put: |$j, on| $f = on,
            },
        }
    };
}

/// Every memory option, in help and URL order. The CLI's `memory` arguments, the page's URL query
/// and the report's `setup` echo are made from this table.
pub const OPTIONS: &[MemoryOption] = &[
    MemoryOption {
        name: keys::MODEL,
        help: "Model preset id (see `bitbudget models`), or custom for the layers/hidden/heads/... numbers",
        value_name: "ID",
        group: Group::Model,
        kind: Kind::Text {
            get: |j| j.model.clone().unwrap_or_else(|| "custom".into()),
            set: set_model,
        },
    },
    MemoryOption {
        name: keys::PARAMS,
        help: "Parameter count only (model states; no activations or KV cache), e.g. 7.5e9",
        value_name: "N",
        group: Group::Model,
        kind: Kind::Text {
            get: |j| j.params.map_or_else(|| "none".into(), |n| n.to_string()),
            set: set_params,
        },
    },
    count_option!(keys::LAYERS, "Custom architecture: transformer blocks", 1, MAX_LAYERS, Group::Custom, |j| j.custom.layers),
    count_option!(keys::HIDDEN, "Custom architecture: hidden size", 1, MAX_HIDDEN, Group::Custom, |j| j.custom.hidden),
    count_option!(keys::HEADS, "Custom architecture: attention heads", 1, MAX_HEADS, Group::Custom, |j| j.custom.heads),
    MemoryOption {
        name: keys::KV_HEADS,
        help: "Custom architecture: KV heads (auto = as many as attention heads)",
        value_name: "N",
        group: Group::Custom,
        kind: Kind::Text {
            get: |j| auto_text(j.custom.kv_heads),
            set: |j, t| {
                j.custom.kv_heads = auto_count(t, MAX_HEADS)?;
                Ok(())
            },
        },
    },
    MemoryOption {
        name: keys::FFN,
        help: "Custom architecture: feed-forward size (auto = 4 × hidden)",
        value_name: "N",
        group: Group::Custom,
        kind: Kind::Text {
            get: |j| auto_text(j.custom.ffn),
            set: |j, t| {
                j.custom.ffn = auto_count(t, MAX_FFN)?;
                Ok(())
            },
        },
    },
    count_option!(keys::VOCAB, "Custom architecture: vocabulary size", 1, MAX_VOCAB, Group::Custom, |j| j.custom.vocab),
    MemoryOption {
        name: keys::MLP,
        help: "Custom architecture: gelu (2 matrices) or swiglu (3 matrices)",
        value_name: "NAME",
        group: Group::Custom,
        kind: Kind::Text {
            get: |j| mlp_name(j.custom.mlp).into(),
            set: |j, t| {
                j.custom.mlp = parse_mlp(t)?;
                Ok(())
            },
        },
    },
    choice_option!(keys::MODE, "train, lora, qlora or inference", Mode::ALL, |j| j.mode),
    choice_option!(keys::DTYPE, "Weight dtype: fp32, fp16, bf16, fp8, int8 or int4", Dtype::ALL, |j| j.dtype),
    choice_option!(keys::OPTIMIZER, "adamw, adamw-8bit, sgd-momentum or sgd", Optimizer::ALL, |j| j.optimizer),
    MemoryOption {
        name: keys::ZERO,
        help: "ZeRO stage 0-3 (0 = DDP), or FSDP no_shard / shard_grad_op / full_shard",
        value_name: "STAGE",
        group: Group::Job,
        kind: Kind::Text {
            get: |j| j.zero.to_string(),
            set: |j, t| {
                j.zero = t.parse().map_err(|_| {
                    "is not a ZeRO stage: 0, 1, 2, 3, no_shard, shard_grad_op or full_shard"
                        .to_string()
                })?;
                Ok(())
            },
        },
    },
    count_option!(keys::DP, "Data-parallel degree", 1, MAX_DEGREE, Group::Job, |j| j.dp),
    count_option!(keys::TP, "Tensor-parallel degree", 1, MAX_DEGREE, Group::Job, |j| j.tp),
    count_option!(keys::PP, "Pipeline-parallel degree", 1, MAX_DEGREE, Group::Job, |j| j.pp),
    flag_option!(keys::SEQUENCE_PARALLEL, "Megatron sequence parallelism", |j| j.sequence_parallel),
    count_option!(keys::BATCH, "Micro-batch per GPU (sequences)", 1, MAX_BATCH, Group::Job, |j| j.batch),
    count_option!(keys::SEQ, "Sequence length in tokens", 1, MAX_SEQ, Group::Job, |j| j.seq),
    choice_option!(keys::RECOMPUTE, "Activation recomputation: none, selective or full", Recompute::ALL, |j| j.recompute),
    flag_option!(keys::FLASH_ATTENTION, "FlashAttention (no s×s score matrices)", |j| j.flash_attention),
    choice_option!(keys::OFFLOAD, "CPU offload: none, optimizer or all", Offload::ALL, |j| j.offload),
    choice_option!(keys::KV_DTYPE, "KV-cache dtype: fp32, fp16, bf16, fp8, int8 or int4", Dtype::ALL, |j| j.kv_dtype),
    count_option!(keys::LORA_RANK, "LoRA rank", 1, MAX_LORA_RANK, Group::Job, |j| j.lora_rank),
    MemoryOption {
        name: keys::LORA_TARGETS,
        help: "LoRA targets, comma separated from q,k,v,o,mlp, or all, none, or auto (all linear layers for qlora as in the QLoRA paper, q,v for lora as in the LoRA paper)",
        value_name: "LIST",
        group: Group::Job,
        kind: Kind::Text {
            get: |j| j.lora_targets.map_or_else(|| "auto".into(), lora_targets_text),
            set: |j, t| {
                j.lora_targets = match t.trim() {
                    "auto" => None,
                    _ => Some(parse_lora_targets(t)?),
                };
                Ok(())
            },
        },
    },
    flag_option!(keys::FP32_GRAD_ACCUM, "FP32 gradient-accumulation buffer (+4 B per trainable parameter)", |j| j.fp32_grad_accum),
    count_option!(keys::UTILISATION, "Step time: percent of the GPU's dense 16-bit tensor peak sustained", 1, 100, Group::Job, |j| j.utilisation_percent),
    count_option!(keys::GRAD_ACCUM, "Step time: micro-batches per optimizer step (gradient accumulation)", 1, MAX_GRAD_ACCUM, Group::Job, |j| j.grad_accum),
    count_option!(keys::OVERHEAD, "CUDA context and allocator reserve per GPU, in bytes (default 1 GiB)", 0, 1 << 40, Group::Job, |j| j.overhead_bytes),
    MemoryOption {
        name: keys::GPU,
        help: "GPU preset id to compare against (see `bitbudget gpus`), or none",
        value_name: "ID",
        group: Group::Job,
        kind: Kind::Text {
            get: |j| j.gpu.clone().unwrap_or_else(|| "none".into()),
            set: set_gpu,
        },
    },
    choice_option!(keys::CONVENTION, "Model-state bookkeeping: bitbudget, zero, hf-megatron or deepspeed", Convention::ALL, |j| j.convention),
    count_option!(keys::GPUS_PER_NODE, "GPUs per node (DeepSpeed's CPU estimate is per node)", 1, MAX_DEGREE, Group::Job, |j| j.gpus_per_node),
    choice_option!(keys::UNITS, "gb (10^9 bytes) or gib (2^30 bytes) in text and formulas", &UNITS, |j| j.units),
];

/// Why weights of `dtype` cannot be used in `mode`, in plain words, or `None` when they can: full
/// training needs floating-point weights (integer formats have no gradients to step with).
pub fn dtype_refused(mode: Mode, dtype: Dtype) -> Option<&'static str> {
    match (mode, dtype) {
        (Mode::Train, Dtype::Int8 | Dtype::Int4) => {
            Some("full training needs floating-point weights: integer weights are for serving (or QLoRA's frozen base)")
        }
        _ => None,
    }
}

fn auto_count(text: &str, max: u64) -> Result<Option<u64>, String> {
    if text.trim() == "auto" {
        return Ok(None);
    }
    let n = count(text)?;
    if n == 0 || n > max {
        return Err(format!("is outside 1..={max} (or auto)"));
    }
    Ok(Some(n))
}

/// The option with `key`, if there is one.
pub fn find_option(key: &str) -> Option<&'static MemoryOption> {
    OPTIONS.iter().find(|o| o.name.key == key)
}

impl Job {
    /// Applies one option by key. `None` for a key that is not a memory option; on a bad value the
    /// job is unchanged and the error names the option.
    pub fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), MemoryError>> {
        find_option(key).map(|o| o.set(self, value))
    }

    /// A job from `(key, value)` pairs, strictly: an unknown key or a bad value is an error.
    /// Setting custom-architecture numbers without `model` selects `custom`; giving both `model`
    /// and a parameter count (`params` other than `none`) is [`MemoryError::ModelAndParams`];
    /// giving none of model, parameter count or custom numbers is [`MemoryError::NoModel`].
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Job, MemoryError> {
        let mut job = Job::default();
        let (mut model, mut params, mut custom) = (false, false, false);
        for (key, value) in pairs {
            let o =
                find_option(key).ok_or_else(|| MemoryError::UnknownOption { key: key.into() })?;
            o.set(&mut job, value)?;
            model |= o.name == keys::MODEL;
            params |= o.name == keys::PARAMS && job.params.is_some();
            custom |= o.group == Group::Custom;
        }
        match (model, params, custom) {
            (true, true, _) => Err(MemoryError::ModelAndParams),
            (false, false, false) => Err(MemoryError::NoModel),
            (false, false, true) => {
                job.model = None;
                Ok(job)
            }
            _ => Ok(job),
        }
    }

    /// Whether option `o` says something about this job: custom-architecture numbers only with
    /// the custom model, `params` only when set, `model` only without `params`.
    pub fn uses(&self, o: &MemoryOption) -> bool {
        match (o.group, o.name) {
            (Group::Custom, _) => self.model.is_none() && self.params.is_none(),
            (Group::Model, keys::PARAMS) => self.params.is_some(),
            (Group::Model, _) => self.params.is_none(),
            (Group::Job, _) => true,
        }
    }

    /// `(key, value)` of every option this job uses ([`Job::uses`]), in table order; with
    /// `changed_only`, only values that differ from the default (the model or parameter count is
    /// always included). [`Job::from_pairs`] of the result gives back an equal setup.
    pub fn to_pairs(&self, changed_only: bool) -> Vec<(&'static str, String)> {
        OPTIONS
            .iter()
            .filter(|o| self.uses(o))
            .map(|o| (o, o.get(self)))
            .filter(|(o, v)| !changed_only || o.group == Group::Model || *v != o.default_text())
            .map(|(o, v)| (o.name.key, v))
            .collect()
    }

    /// The value of a count option (`dp`, `seq`, `layers`, `kv-heads`, `ffn`, ...), with derived
    /// defaults resolved (`kv-heads` auto = heads, `ffn` auto = 4 × hidden); `None` for other keys.
    pub fn count(&self, key: &str) -> Option<u64> {
        let c = &self.custom;
        match (find_option(key)?.kind, key) {
            (_, "kv-heads") => Some(c.kv_heads.unwrap_or(c.heads)),
            (_, "ffn") => Some(c.ffn.unwrap_or(c.hidden.saturating_mul(4))),
            (Kind::Count { get, .. }, _) => Some(get(self)),
            _ => None,
        }
    }

    /// The LoRA targets in force: the ones chosen, or the mode's own ([`LoraTargets::for_mode`]).
    pub fn lora_targets(&self) -> LoraTargets {
        self.lora_targets
            .unwrap_or_else(|| LoraTargets::for_mode(self.mode))
    }

    /// Why option `key` says nothing about this job, in plain words, or `None` when it applies.
    /// The page disables such a control and shows the reason; the estimate ignores the value.
    pub fn not_applicable(&self, key: OptionKey) -> Option<&'static str> {
        let (serving, adapters) = (
            self.mode == Mode::Inference,
            matches!(self.mode, Mode::Lora | Mode::Qlora),
        );
        match key {
            keys::DTYPE if self.mode == Mode::Qlora => {
                Some("QLoRA stores the block weights in NF4 and the rest in BF16, whatever is chosen here")
            }
            keys::OPTIMIZER if serving => Some("Serving updates no weights, so there is no optimizer"),
            keys::FP32_GRAD_ACCUM if serving => Some("Serving computes no gradients"),
            keys::RECOMPUTE if serving => Some("Serving runs no backward pass, so nothing is recomputed"),
            keys::ZERO if serving => Some("ZeRO shards training state; serving replicas each hold the whole model"),
            keys::KV_DTYPE if !serving => Some("Only serving keeps a KV cache"),
            keys::LORA_RANK | keys::LORA_TARGETS if !adapters => {
                Some("Adapters exist only in LoRA and QLoRA")
            }
            _ => None,
        }
    }

    /// Puts back the default for a value that cannot work with the rest of the job, and says what
    /// it did in plain words: full training with integer weights (int8, int4) becomes BF16
    /// training. `None` when nothing had to change.
    pub fn settle(&mut self) -> Option<String> {
        if self.mode == Mode::Train && dtype_refused(self.mode, self.dtype).is_some() {
            let was = self.dtype;
            self.dtype = Job::default().dtype;
            return Some(format!(
                "Full training needs floating-point weights, so {was} weights (for serving or QLoRA) were replaced by {}.",
                self.dtype
            ));
        }
        None
    }

    /// The setup this job describes. `params` wins over `model`; a `model` id that is not a preset
    /// (possible only when the field is set directly) reads as the custom architecture.
    pub fn to_setup(&self) -> Setup {
        let model = match (self.params, self.model.as_deref().and_then(find_model)) {
            (Some(n), _) => ModelSpec::Params(n),
            (None, Some(m)) => ModelSpec::Arch {
                name: m.id.into(),
                arch: Box::new(m.arch),
            },
            (None, None) => ModelSpec::Arch {
                name: "custom".into(),
                arch: Box::new(self.custom.arch()),
            },
        };
        Setup {
            mode: self.mode,
            dtype: self.dtype,
            optimizer: self.optimizer,
            zero: self.zero,
            dp: self.dp,
            tp: self.tp,
            pp: self.pp,
            sequence_parallel: self.sequence_parallel,
            batch: self.batch,
            seq: self.seq,
            recompute: self.recompute,
            flash_attention: self.flash_attention,
            offload: self.offload,
            kv_dtype: self.kv_dtype,
            lora_rank: self.lora_rank,
            lora_targets: self.lora_targets(),
            fp32_grad_accum: self.fp32_grad_accum,
            overhead_bytes: self.overhead_bytes,
            gpu: self.gpu.as_deref().and_then(find_gpu),
            convention: self.convention,
            gpus_per_node: self.gpus_per_node,
            units: self.units,
            ..Setup::new(model)
        }
    }

    /// The step-time knobs of this job: utilisation, micro-batches per step and GPUs per node
    /// (the network bandwidth keeps [`StepParams::default`]'s).
    pub fn step_params(&self) -> StepParams {
        StepParams {
            utilisation: self.utilisation_percent as f64 / 100.0,
            grad_accum_steps: self.grad_accum,
            gpus_per_node: self.gpus_per_node,
            ..StepParams::default()
        }
    }

    /// The job that describes `s` with the step knobs of `p` (utilisation rounded to a whole
    /// percent; the network bandwidth is not an option and is dropped).
    pub fn from_setup_and_step(s: &Setup, p: &StepParams) -> Job {
        Job {
            utilisation_percent: (p.utilisation * 100.0).round().clamp(1.0, 100.0) as u64,
            grad_accum: p.grad_accum_steps,
            ..Job::from_setup(s)
        }
    }

    /// The job that describes `s` (step knobs at their defaults): a preset when the architecture is a preset's, otherwise the
    /// custom numbers (an architecture with features custom numbers cannot express, such as
    /// experts, loses them).
    pub fn from_setup(s: &Setup) -> Job {
        let mut j = Job {
            mode: s.mode,
            dtype: s.dtype,
            optimizer: s.optimizer,
            zero: s.zero,
            dp: s.dp,
            tp: s.tp,
            pp: s.pp,
            sequence_parallel: s.sequence_parallel,
            batch: s.batch,
            seq: s.seq,
            recompute: s.recompute,
            flash_attention: s.flash_attention,
            offload: s.offload,
            kv_dtype: s.kv_dtype,
            lora_rank: s.lora_rank,
            lora_targets: (s.lora_targets != LoraTargets::for_mode(s.mode))
                .then_some(s.lora_targets),
            fp32_grad_accum: s.fp32_grad_accum,
            utilisation_percent: (DEFAULT_UTILISATION * 100.0).round() as u64,
            grad_accum: 1,
            overhead_bytes: s.overhead_bytes,
            gpu: s.gpu.as_ref().map(|g| g.id.into()),
            convention: s.convention,
            gpus_per_node: s.gpus_per_node,
            units: s.units,
            model: None,
            params: None,
            custom: CustomArch::default(),
        };
        match &s.model {
            ModelSpec::Params(n) => j.params = Some(*n),
            ModelSpec::Arch { name, arch } => match find_model(name) {
                Some(m) if m.arch == **arch => j.model = Some(m.id.into()),
                _ => {
                    j.model = None;
                    j.custom = CustomArch {
                        layers: arch.layers,
                        hidden: arch.hidden,
                        heads: arch.heads,
                        kv_heads: Some(arch.kv_heads),
                        ffn: Some(arch.ffn),
                        vocab: arch.vocab,
                        mlp: arch.mlp,
                    };
                }
            },
        }
        j
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value other than the default for every option, as the CLI would be given it.
    const NON_DEFAULT: &[(&str, &str)] = &[
        ("layers", "4"),
        ("hidden", "256"),
        ("heads", "8"),
        ("kv-heads", "2"),
        ("ffn", "700"),
        ("vocab", "1000"),
        ("mlp", "swiglu"),
        ("mode", "lora"),
        ("dtype", "fp16"),
        ("optimizer", "adamw-8bit"),
        ("zero", "2"),
        ("dp", "4"),
        ("tp", "2"),
        ("pp", "2"),
        ("sequence-parallel", ""),
        ("batch", "3"),
        ("seq", "1024"),
        ("recompute", "selective"),
        ("flash-attention", "1"),
        ("offload", "optimizer"),
        ("kv-dtype", "fp8"),
        ("lora-rank", "8"),
        ("lora-targets", "q,k,o,mlp"),
        ("fp32-grad-accum", "yes"),
        ("utilisation", "55"),
        ("grad-accum", "4"),
        ("overhead", "5e8"),
        ("gpu", "a100-80gb"),
        ("convention", "deepspeed"),
        ("gpus-per-node", "4"),
        ("units", "gib"),
    ];

    fn url(job: &Job) -> String {
        job.to_pairs(true)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    fn from_url(text: &str) -> Job {
        Job::from_pairs(text.split('&').map(|p| p.split_once('=').unwrap())).unwrap()
    }

    #[test]
    fn every_option_goes_from_cli_args_through_the_url_to_the_same_setup_and_back() {
        let covered: Vec<&str> = NON_DEFAULT.iter().map(|(k, _)| *k).collect();
        for o in OPTIONS {
            let k = o.name.key;
            assert!(
                covered.contains(&k) || o.group == Group::Model,
                "{k} is not exercised"
            );
        }
        let cli = Job::from_pairs(NON_DEFAULT.iter().copied()).unwrap();
        for (k, v) in NON_DEFAULT {
            let o = find_option(k).unwrap();
            assert_ne!(o.get(&cli), o.default_text(), "{k}={v} is the default");
        }
        let setup = cli.to_setup();
        let through_url = from_url(&url(&cli));
        assert_eq!(through_url.to_setup(), setup);
        assert_eq!(through_url.step_params(), cli.step_params());
        assert_eq!(
            Job::from_setup_and_step(&setup, &cli.step_params()).step_params(),
            cli.step_params()
        );
        let back = Job::from_setup(&through_url.to_setup());
        assert_eq!(back.to_setup(), setup);
        assert_eq!(from_url(&url(&back)).to_setup(), setup);
        // With a preset and with a parameter count.
        for pairs in [
            vec![("model", "gpt2"), ("dp", "8")],
            vec![("params", "7.5e9"), ("zero", "3")],
        ] {
            let job = Job::from_pairs(pairs).unwrap();
            let again = from_url(&url(&Job::from_setup(&job.to_setup())));
            assert_eq!(again.to_setup(), job.to_setup());
        }
    }

    #[test]
    fn bad_values_name_the_option_and_leave_the_job_unchanged() {
        let mut j = Job::default();
        let msg = |r: Option<Result<(), MemoryError>>| r.unwrap().unwrap_err().to_string();
        assert_eq!(
            msg(j.apply("dp", "0")),
            "data-parallel degree is 0: at least one GPU is needed"
        );
        assert_eq!(
            msg(j.apply("seq", "NaN")),
            "sequence length: 'NaN' must be a finite number ≥ 0"
        );
        assert_eq!(
            msg(j.apply("seq", "1e400")),
            "sequence length: '1e400' must be a finite number ≥ 0"
        );
        assert!(msg(j.apply("model", "lama-3-8b")).contains("closest: llama-3-8b"));
        assert!(msg(j.apply("gpu", "h100")).contains("closest: h100-80gb"));
        assert!(msg(j.apply("mlp", "relu")).contains("gelu, swiglu"));
        assert!(msg(j.apply("zero", "7")).contains("not a ZeRO stage"));
        assert!(msg(j.apply("lora-targets", "q,x")).contains("'x'"));
        assert_eq!(j.apply("nonsense", "1"), None);
        assert_eq!(j, Job::default());
    }

    #[test]
    fn custom_numbers_without_a_model_select_the_custom_model() {
        let j = Job::from_pairs([("layers", "2"), ("hidden", "64"), ("heads", "4")]).unwrap();
        assert_eq!(j.model, None);
        let a = j.to_setup().arch().cloned().unwrap();
        assert_eq!((a.ffn, a.kv_heads, a.vocab), (256, 4, 50304));
    }

    #[test]
    fn a_model_and_a_parameter_count_together_or_neither_are_refused() {
        assert_eq!(
            Job::from_pairs([("model", "gpt2"), ("params", "1e9")]),
            Err(MemoryError::ModelAndParams)
        );
        assert_eq!(Job::from_pairs([("dp", "2")]), Err(MemoryError::NoModel));
    }

    #[test]
    fn counts_accept_scientific_and_reject_nonsense() {
        assert_eq!(parse_count("7.5e9"), Ok(7_500_000_000));
        assert_eq!(parse_count("4096"), Ok(4096));
        assert_eq!(
            parse_count("-1"),
            Err("'-1' must be a finite number ≥ 0".into())
        );
        assert!(parse_count("NaN").is_err());
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("1e300").is_err());
        assert!(parse_count("seven").unwrap_err().contains("not a number"));
    }

    #[test]
    fn closest_ids_suggest_the_typo() {
        assert_eq!(
            closest("lama-3-8b", &["gpt2", "llama-3-8b", "llama-2-7b"])[0],
            "llama-3-8b"
        );
    }

    /// QLoRA adapts every linear layer by default, as its paper does (Dettmers et al. 2023); LoRA
    /// q and v (Hu et al. 2021). The CLI and the URL read the same default from the table.
    #[test]
    fn qlora_defaults_to_all_linear_layers_and_lora_to_q_and_v() {
        let qlora = Job::from_pairs([("model", "llama-3-70b"), ("mode", "qlora")]).unwrap();
        assert_eq!(qlora.to_setup().lora_targets, LoraTargets::ALL_LINEAR);
        let lora = Job::from_pairs([("model", "llama-3-70b"), ("mode", "lora")]).unwrap();
        assert_eq!(lora.to_setup().lora_targets, LoraTargets::default());
        assert_eq!(find_option("lora-targets").unwrap().default_text(), "auto");
        let chosen = Job::from_pairs([
            ("model", "gpt2"),
            ("mode", "qlora"),
            ("lora-targets", "q,v"),
        ])
        .unwrap();
        assert_eq!(chosen.to_setup().lora_targets, LoraTargets::default());
        assert_eq!(
            Job::from_setup(&chosen.to_setup()).to_pairs(true)[2],
            ("lora-targets", "q,v".into())
        );
    }

    #[test]
    fn options_that_do_not_apply_say_why() {
        let serve = Job::from_pairs([("model", "gpt2"), ("mode", "inference")]).unwrap();
        assert!(serve.not_applicable(keys::OPTIMIZER).is_some());
        assert!(serve.not_applicable(keys::ZERO).is_some());
        assert!(serve.not_applicable(keys::KV_DTYPE).is_none());
        assert!(serve.not_applicable(keys::LORA_TARGETS).is_some());
        let train = Job::default();
        assert!(train.not_applicable(keys::KV_DTYPE).is_some());
        assert!(train.not_applicable(keys::DTYPE).is_none());
        let qlora = Job::from_pairs([("model", "gpt2"), ("mode", "qlora")]).unwrap();
        assert!(qlora.not_applicable(keys::DTYPE).unwrap().contains("NF4"));
        assert!(qlora.not_applicable(keys::LORA_RANK).is_none());
    }

    /// From a link, full training with int4 weights used to stay invalid (and the page showed
    /// 0 GB); settling puts back BF16 with a note.
    #[test]
    fn training_with_integer_weights_settles_on_the_default_with_a_note() {
        let mut j = Job::from_pairs([("model", "gpt2"), ("dtype", "int4")]).unwrap();
        assert!(j.to_setup().validate().is_err());
        let note = j.settle().expect("a note");
        assert!(note.contains("int4") && note.contains("bf16"), "{note}");
        assert!(j.to_setup().validate().is_ok());
        assert_eq!(j.settle(), None);
        let mut serve =
            Job::from_pairs([("model", "gpt2"), ("mode", "inference"), ("dtype", "int4")]).unwrap();
        assert_eq!(serve.settle(), None);
        assert_eq!(dtype_refused(Mode::Inference, Dtype::Int4), None);
    }

    #[test]
    fn the_default_job_is_valid() {
        assert!(super::super::estimate(&Job::default().to_setup()).is_ok());
    }
}
