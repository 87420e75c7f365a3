//! A job to size, described by options: the one table of memory options ([`OPTIONS`]) from which
//! the
//! CLI's arguments, the page's URL query and the report's setup echo are all made, so they accept
//! the same keys with the same defaults and the same parsers.
//!
//! A [`Job`] holds every option's value as typed fields; [`Job::to_setup`] turns it into the
//! [`Setup`] the estimate reads, and [`Job::from_setup`] goes back. Keys are the CLI's long names
//! without `--` and the URL's parameter names ([`super::keys`]).

use super::error::MemoryError;
use super::keys::{self, OptionKey};
use super::model::arch::{Mlp, ModelArch};
use super::model::arch_text::{arch_from_text, arch_to_text};
use super::model::gpus::{find_gpu, gpu_presets};
use super::model::hf_config::{parse_config, ConfigError};
use super::model::models::{find_model, model_presets};
use super::options::{
    Convention, Dtype, Mode, Moments, Offload, Optimizer, OptimizerStep, Precision, Recompute,
};
use super::recipe::param_gather_refused;
use super::setup::{
    LoraTargets, ModelSpec, RunOptions, Setup, MAX_BATCH, MAX_DEGREE, MAX_EXPERT_LOAD_PERCENT,
    MAX_FFN, MAX_HEADS, MAX_HIDDEN, MAX_LAYERS, MAX_LORA_RANK, MAX_MTP_MODULES, MAX_PARAMS,
    MAX_SEQ, MAX_VOCAB,
};
use super::step::{StepParams, DEFAULT_UTILISATION, MAX_GRAD_ACCUM};

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
    /// The custom numbers closest to `arch` (what a link can carry of an architecture that has
    /// features they cannot express, such as experts or MLA).
    pub fn of(arch: &ModelArch) -> CustomArch {
        CustomArch {
            layers: arch.layers,
            hidden: arch.hidden,
            heads: arch.heads,
            kv_heads: Some(arch.kv_heads),
            ffn: Some(arch.ffn),
            vocab: arch.vocab,
            mlp: arch.mlp,
        }
    }

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

/// Everything a memory estimate is asked with: every option of [`OPTIONS`] as a typed field. The
/// options it shares with [`Setup`] live once, in [`RunOptions`] (read as `job.dp` through
/// `Deref`); `Job` adds the unresolved model, GPU and LoRA targets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// A preset id, or `None` for the custom architecture.
    pub model: Option<String>,
    /// A parameter count alone (model states only); when set it replaces `model`.
    pub params: Option<u64>,
    /// The custom architecture (used when `model` is `None`).
    pub custom: CustomArch,
    /// LoRA targets; `None` ("auto") means the mode's own ([`LoraTargets::for_mode`]: all linear
    /// layers for QLoRA, q and v for LoRA).
    pub lora_targets: Option<LoraTargets>,
    /// Step time: share of the GPU's dense tensor peak sustained, in percent (1..=100).
    pub utilisation_percent: u64,
    /// Step time: micro-batches per optimizer step (gradient accumulation).
    pub grad_accum: u64,
    /// GPU preset id, if a GPU is compared against.
    pub gpu: Option<String>,
    /// A model read from a Hugging Face `config.json` ([`Job::load_config`]). It is in force while
    /// the model is custom and the custom numbers are still the ones it was loaded with; a link
    /// carries only those numbers.
    pub config: Option<LoadedConfig>,
    /// Mode, precision, parallelism and the rest, as the estimate reads them.
    pub run: RunOptions,
    /// Multi-token prediction modules to train ([`ModelArch::mtp_modules`]; full training with
    /// Megatron-LM's recipes only, else ignored and the option says why).
    pub mtp: u64,
}

/// An architecture read from a Hugging Face `config.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedConfig {
    /// Its name in reports: `config.json (llama)`.
    pub name: String,
    /// The architecture, exactly as the config describes it.
    pub arch: ModelArch,
}

impl LoadedConfig {
    /// The config's `model_type`, from its name "config.json (llama)".
    pub fn model_type(&self) -> &str {
        self.name
            .strip_prefix("config.json (")
            .and_then(|n| n.strip_suffix(')'))
            .unwrap_or("config")
    }
}

super::setup::deref_to_run_options!(Job);

mod parse;
use parse::{
    auto_count, auto_text, count, flag, known_id, named, parse_lora_targets, parse_mlp, UNITS,
};
pub use parse::{closest, lora_targets_text, mlp_name, parse_count};

/// The model of [`Job::default`].
pub const DEFAULT_MODEL: &str = "llama-3-8b";

impl Default for Job {
    /// [`Setup::new`]'s defaults (full BF16 training with AdamW on one GPU, batch 1, sequence 2048)
    /// for Llama 3 8B, with no GPU to compare against.
    fn default() -> Self {
        Job {
            model: Some(DEFAULT_MODEL.into()),
            params: None,
            custom: CustomArch::default(),
            lora_targets: None,
            utilisation_percent: (DEFAULT_UTILISATION * 100.0).round() as u64,
            grad_accum: 1,
            gpu: None,
            config: None,
            run: RunOptions::default(),
            mtp: 0,
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
                    return Err(match (n, min) {
                        (0, _) if is_degree(option) => MemoryError::NoGpu { option },
                        (_, 1) => MemoryError::Zero { option },
                        _ => bad(format!("is below the least accepted value, {min}")),
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
    [
        keys::DP,
        keys::TP,
        keys::PP,
        keys::CP,
        keys::EP,
        keys::GPUS_PER_NODE,
    ]
    .contains(&o)
}

fn set_model(j: &mut Job, text: &str) -> Result<(), String> {
    let t = text.trim();
    if t == "custom" {
        j.model = None;
    } else {
        let ids: Vec<&str> = model_presets().iter().map(|m| m.id).collect();
        j.model = Some(known_id(t, &ids, "a model preset or custom")?);
    }
    j.params = None;
    Ok(())
}

fn set_arch(j: &mut Job, text: &str) -> Result<(), String> {
    if text.trim() == "none" {
        j.config = None;
        return Ok(());
    }
    let (model_type, arch) = arch_from_text(text)?;
    j.model = None;
    j.params = None;
    j.custom = CustomArch::of(&arch);
    j.config = Some(LoadedConfig {
        name: format!("config.json ({model_type})"),
        arch,
    });
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
    let ids: Vec<&str> = gpu_presets().iter().map(|g| g.id).collect();
    j.gpu = Some(known_id(t, &ids, "a GPU preset")?);
    Ok(())
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

/// A custom-architecture count that may be `auto` (`None`) on the `Option<u64>` field `$f`,
/// at most `$max`.
macro_rules! auto_count_option {
    ($name:expr, $help:literal, $max:expr, |$j:ident| $f:expr) => {
        MemoryOption {
            name: $name,
            help: $help,
            value_name: "N",
            group: Group::Custom,
            kind: Kind::Text {
                get: |$j| auto_text($f),
                set: |$j, t| {
                    $f = auto_count(t, $max)?;
                    Ok(())
                },
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
    auto_count_option!(keys::KV_HEADS, "Custom architecture: KV heads (auto = as many as attention heads)", MAX_HEADS, |j| j.custom.kv_heads),
    auto_count_option!(keys::FFN, "Custom architecture: feed-forward size (auto = 4 × hidden)", MAX_FFN, |j| j.custom.ffn),
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
    MemoryOption {
        name: keys::ARCH,
        help: "A whole architecture as the page's links write it (a config.json's model, MoE, MLA and windows included), or none",
        value_name: "TEXT",
        group: Group::Custom,
        kind: Kind::Text {
            get: |j| {
                j.config_in_force()
                    .map_or_else(|| "none".into(), |c| arch_to_text(c.model_type(), &c.arch))
            },
            set: set_arch,
        },
    },
    choice_option!(keys::MODE, "train, lora or qlora (inference: sized by `serve`, as the engines account for it)", Mode::ALL, |j| j.mode),
    choice_option!(keys::DTYPE, "Weight dtype: fp32, fp16, bf16, fp8, int8 or int4 (a llama.cpp file type, q4_k_m ..., is served: `serve`)", Dtype::ALL, |j| j.dtype),
    choice_option!(keys::OPTIMIZER, "adamw, adamw-8bit, sgd-momentum or sgd", Optimizer::ALL, |j| j.optimizer),
    choice_option!(keys::PRECISION, "Training precision recipe: mixed (16-bit weights and gradients, FP32 master copy in the optimizer), autocast (FP32 parameters, gradients and moments; torch.autocast runs the matmuls in the weight dtype), pure (everything in the weight dtype, no master copy), or an FP8/FP4 recipe that keeps low-precision copies of the block linears beside the weights: fp8-delayed (Transformer Engine's delayed scaling), fp8-current (tensorwise), fp8-rowwise (torchao), fp8-blockwise (DeepSeek-V3's 1x128 tiles and 128x128 blocks), mxfp8 or nvfp4 (Blackwell). Mixed and the FP8/FP4 recipes count Megatron's fused-kernel activations; autocast and pure count the tensors Transformers (and peft, for LoRA/QLoRA) saves", Precision::ALL, |j| j.precision),
    choice_option!(keys::MOMENTS, "Adam's moments: fp32, or bf16 as DeepSeek-V3 kept them (mixed precision and the FP8/FP4 recipes)", Moments::ALL, |j| j.moments),
    flag_option!(keys::FP8_PARAM_GATHER, "FP8/FP4 recipes: the quantized weights are the parameters the sharded optimizer all-gathers, with no 16-bit copy (Megatron-LM --fp8-param-gather; needs ZeRO 1 or above)", |j| j.fp8_param_gather),
    choice_option!(keys::OPTIMIZER_STEP, "Optimizer implementation: fused (one kernel, no step temporaries) or foreach (PyTorch's default on CUDA: a temporary the size of the parameters in Adam's step)", OptimizerStep::ALL, |j| j.optimizer_step),
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
    count_option!(keys::VPP, "Virtual pipeline stages per GPU (interleaved 1F1B): each GPU holds vpp runs of layers; the bubble shrinks by vpp, the first stage holds a little more", 1, MAX_DEGREE, Group::Job, |j| j.vpp),
    count_option!(keys::CP, "Context-parallel degree: each sequence split over cp GPUs, keys and values passed round a ring (Megatron-LM, torchtitan)", 1, MAX_DEGREE, Group::Job, |j| j.cp),
    count_option!(keys::EP, "Expert-parallel degree: the routed experts divided over ep of the dp × cp × tp GPUs (mixture-of-experts models)", 1, MAX_DEGREE, Group::Job, |j| j.ep),
    MemoryOption {
        name: keys::ETP,
        help: "Expert tensor-parallel degree: each routed expert split over etp GPUs (auto = as tp, Megatron-LM's default)",
        value_name: "N",
        group: Group::Job,
        kind: Kind::Text {
            get: |j| auto_text(j.etp),
            set: |j, t| {
                j.etp = auto_count(t, MAX_DEGREE)?;
                Ok(())
            },
        },
    },
    count_option!(keys::MTP, "Multi-token prediction modules trained after the last block (DeepSeek-V3: 1), each a block with its projection, norms and logits, on the last pipeline stage", 0, MAX_MTP_MODULES, Group::Job, |j| j.mtp),
    count_option!(keys::EXPERT_LOAD, "MoE: the busiest GPU's routed tokens in percent of even routing (100): the capacity factor × 100 when tokens above it are dropped, or a dropless router's imbalance", 100, MAX_EXPERT_LOAD_PERCENT, Group::Job, |j| j.expert_load_percent),
    flag_option!(keys::SEQUENCE_PARALLEL, "Megatron sequence parallelism", |j| j.sequence_parallel),
    count_option!(keys::BATCH, "Micro-batch per GPU (sequences)", 1, MAX_BATCH, Group::Job, |j| j.batch),
    count_option!(keys::SEQ, "Sequence length in tokens", 1, MAX_SEQ, Group::Job, |j| j.seq),
    choice_option!(keys::RECOMPUTE, "Activation recomputation: none, selective, full, or layer (Hugging Face's gradient checkpointing: one decoder layer at a time)", Recompute::ALL, |j| j.recompute),
    flag_option!(keys::FLASH_ATTENTION, "Attention kernel: on = SDPA/FlashAttention (no s×s scores stored), off = eager attention (softmax scores stored)", |j| j.flash_attention),
    choice_option!(keys::OFFLOAD, "CPU offload: none, optimizer or all", Offload::ALL, |j| j.offload),
    choice_option!(keys::KV_DTYPE, "KV-cache dtype of a serving job: fp32, fp16, bf16, fp8, int8 or int4 (passed on to `serve`)", Dtype::PLAIN, |j| j.kv_dtype),
    count_option!(keys::LORA_RANK, "LoRA rank", 1, MAX_LORA_RANK, Group::Job, |j| j.lora_rank),
    flag_option!(keys::LORA_DROPOUT, "LoRA dropout > 0 (peft keeps a dropped-out copy of each adapted layer's input)", |j| j.lora_dropout),
    choice_option!(keys::ADAPTER_DTYPE, "LoRA adapter dtype: fp32 (peft's default), bf16 or fp16", Dtype::ALL, |j| j.adapter_dtype),
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
        (Mode::Train | Mode::Lora | Mode::Qlora, d) if d.is_gguf() => {
            Some(super::options::GGUF_SERVING_ONLY)
        }
        _ => None,
    }
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
            keys::OPTIMIZER | keys::OPTIMIZER_STEP if serving => Some("Serving updates no weights, so there is no optimizer"),
            keys::PRECISION if serving => Some("Serving keeps no gradients or optimizer states: the weights are in their dtype"),
            keys::FP32_GRAD_ACCUM if serving => Some("Serving computes no gradients"),
            keys::RECOMPUTE if serving => Some("Serving runs no backward pass, so nothing is recomputed"),
            keys::ZERO if serving => Some("ZeRO shards training state; serving replicas each hold the whole model"),
            keys::KV_DTYPE if !serving => Some("Only serving keeps a KV cache"),
            keys::VPP if self.pp == 1 => Some("Virtual stages interleave a pipeline's stages: choose pipeline parallel 2 or more"),
            keys::CP if serving => Some("Context parallelism is modelled for training; serving splits long prompts by chunked prefill (the Serve page)"),
            keys::MTP if !self.trains_mtp() => {
                Some("Multi-token prediction modules are modelled for full training with Megatron-LM's recipes (mixed, FP8, FP4)")
            }
            keys::EP | keys::ETP | keys::EXPERT_LOAD if self.mode != Mode::Train => {
                Some("Expert parallelism is modelled for full training of mixture-of-experts models")
            }
            keys::MOMENTS if serving || adapters => {
                Some("Only full training chooses the moments' type here (adapters keep FP32 moments)")
            }
            keys::MOMENTS if matches!(self.precision, Precision::Autocast | Precision::Pure) => {
                Some("Autocast and pure training keep the moments in the parameters' dtype")
            }
            keys::FP8_PARAM_GATHER if self.mode != Mode::Train => {
                Some("Only full training keeps quantized weights to gather")
            }
            keys::FP8_PARAM_GATHER => param_gather_refused(self.precision, self.zero.0),
            keys::LORA_RANK | keys::LORA_TARGETS | keys::LORA_DROPOUT | keys::ADAPTER_DTYPE
                if !adapters =>
            {
                Some("Adapters exist only in LoRA and QLoRA")
            }
            _ => None,
        }
    }

    /// Puts back the default for a value that cannot work with the rest of the job, and says what
    /// it did in plain words: full training with integer weights (int8, int4) becomes BF16
    /// training. `None` when nothing had to change.
    pub fn settle(&mut self) -> Option<String> {
        if self.mode == Mode::Train && self.dtype == Dtype::Fp8 {
            self.dtype = Dtype::Bf16;
            if !self.precision.is_low() {
                self.precision = Precision::Fp8Current;
            }
            return Some(format!(
                "FP8 training keeps BF16 weights and makes FP8 copies for the matmuls, so this is bf16 weights with the {} recipe.",
                self.precision
            ));
        }
        if self.precision.is_low() && matches!(self.mode, Mode::Lora | Mode::Qlora) {
            let was = self.precision;
            self.precision = Precision::Mixed;
            return Some(format!(
                "{was} is a full-training recipe, so {} uses mixed precision.",
                self.mode
            ));
        }
        if self.fp8_param_gather {
            if let Some(why) = self.not_applicable(keys::FP8_PARAM_GATHER) {
                self.fp8_param_gather = false;
                return Some(format!("The FP8 parameter all-gather is off: {why}."));
            }
        }
        if self.dtype.is_gguf() && dtype_refused(self.mode, self.dtype).is_some() {
            let was = self.dtype;
            self.dtype = Job::default().dtype;
            return Some(format!(
                "{was} is a llama.cpp file type for serving, so training uses {} weights instead.",
                self.dtype
            ));
        }
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

    /// Makes the model the architecture of a Hugging Face `config.json` text
    /// ([`super::model::hf_config::parse_config`]); on error the job is unchanged and the error names
    /// the missing or bad field.
    pub fn load_config(&mut self, text: &str) -> Result<(), ConfigError> {
        let m = parse_config(text)?;
        self.model = None;
        self.params = None;
        self.custom = CustomArch::of(&m.arch);
        self.config = Some(LoadedConfig {
            name: format!("config.json ({})", m.model_type),
            arch: m.arch,
        });
        Ok(())
    }

    /// The loaded config, while it is in force (see [`Job::config`]).
    pub fn config_in_force(&self) -> Option<&LoadedConfig> {
        self.config.as_ref().filter(|c| {
            self.model.is_none() && self.params.is_none() && self.custom == CustomArch::of(&c.arch)
        })
    }

    /// The setup this job describes. `params` wins over `model`; a `model` id that is not a preset
    /// (possible only when the field is set directly) reads as the custom architecture, or the
    /// loaded config while it is in force.
    pub fn to_setup(&self) -> Setup {
        let model = match (
            self.params,
            self.model.as_deref().and_then(ModelSpec::preset),
        ) {
            (Some(n), _) => ModelSpec::Params(n),
            (None, Some(preset)) => preset,
            (None, None) => match self.config_in_force() {
                Some(c) => ModelSpec::Arch {
                    name: c.name.clone(),
                    arch: Box::new(c.arch.clone()),
                },
                None => ModelSpec::Arch {
                    name: "custom".into(),
                    arch: Box::new(self.custom.arch()),
                },
            },
        };
        let mut model = model;
        if let ModelSpec::Arch { arch, .. } = &mut model {
            arch.mtp_modules = if self.trains_mtp() { self.mtp } else { 0 };
        }
        Setup {
            model,
            lora_targets: self.lora_targets(),
            gpu: self.gpu.as_deref().and_then(find_gpu),
            run: self.run.clone(),
        }
    }

    /// Whether the `mtp` option applies: full training with Megatron-LM's recipes (mixed, FP8,
    /// FP4), not Transformers' autocast or pure runs, which train no MTP modules.
    fn trains_mtp(&self) -> bool {
        self.mode == Mode::Train && !matches!(self.precision, Precision::Autocast | Precision::Pure)
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
        // `to_setup` applies the job's MTP modules to the architecture: read them back apart.
        if let ModelSpec::Arch { name, arch } = &s.model {
            if arch.mtp_modules > 0 {
                let plain = Setup {
                    model: ModelSpec::Arch {
                        name: name.clone(),
                        arch: Box::new(ModelArch {
                            mtp_modules: 0,
                            ..(**arch).clone()
                        }),
                    },
                    ..s.clone()
                };
                return Job {
                    mtp: arch.mtp_modules,
                    ..Job::from_setup(&plain)
                };
            }
        }
        let mut j = Job {
            lora_targets: (s.lora_targets != LoraTargets::for_mode(s.mode))
                .then_some(s.lora_targets),
            utilisation_percent: (DEFAULT_UTILISATION * 100.0).round() as u64,
            grad_accum: 1,
            gpu: s.gpu.as_ref().map(|g| g.id.into()),
            run: s.run.clone(),
            model: None,
            params: None,
            custom: CustomArch::default(),
            config: None,
            mtp: 0,
        };
        match &s.model {
            ModelSpec::Params(n) => j.params = Some(*n),
            ModelSpec::Arch { name, arch } => match find_model(name) {
                Some(m) if m.arch == **arch => j.model = Some(m.id.into()),
                _ => {
                    j.model = None;
                    j.custom = CustomArch::of(arch);
                    // Keep what the custom numbers cannot express (a loaded config's experts,
                    // norms, biases...).
                    if j.custom.arch() != **arch {
                        j.config = Some(LoadedConfig {
                            name: name.clone(),
                            arch: (**arch).clone(),
                        });
                    }
                }
            },
        }
        j
    }
}

#[cfg(test)]
mod tests;
