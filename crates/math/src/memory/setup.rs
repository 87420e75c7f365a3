//! A complete description of a job to size, and its validation.

pub use super::error::MemoryError;
use super::keys::*;
use super::model::arch::ModelArch;
use super::model::gpus::GpuPreset;
use super::options::{
    Convention, Dtype, Mode, Moments, Offload, Optimizer, OptimizerStep, Precision, Recompute,
    ZeroStage,
};
use super::recipe::param_gather_refused;
use crate::numbers::Units;
use serde::Serialize;

/// The model: a known architecture, or only a parameter count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ModelSpec {
    /// A full architecture (preset or custom), with a name for display.
    Arch {
        /// Preset id or "custom".
        name: String,
        /// The architecture.
        arch: Box<ModelArch>,
    },
    /// Only a parameter count: model states can be sized, activations and KV cache cannot.
    Params(u64),
}

impl ModelSpec {
    /// The preset `id`'s architecture, named after it (`None` for an id that is not a preset).
    pub fn preset(id: &str) -> Option<ModelSpec> {
        super::model::models::find_model(id).map(|m| ModelSpec::Arch {
            name: m.id.into(),
            arch: Box::new(m.arch.clone()),
        })
    }
}

/// Which projections LoRA adapts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LoraTargets {
    /// Query projection.
    pub q: bool,
    /// Key projection.
    pub k: bool,
    /// Value projection.
    pub v: bool,
    /// Attention output projection.
    pub o: bool,
    /// Every MLP matrix.
    pub mlp: bool,
}

impl Default for LoraTargets {
    /// Query and value, as in the LoRA paper (Hu et al. 2021, section 7.1).
    fn default() -> Self {
        Self {
            q: true,
            k: false,
            v: true,
            o: false,
            mlp: false,
        }
    }
}

impl LoraTargets {
    /// Every linear layer of the blocks (q, k, v, o and the MLP matrices), as the QLoRA paper
    /// adapts them (Dettmers et al. 2023, section 4: "LoRA on all linear transformer block layers").
    pub const ALL_LINEAR: LoraTargets = LoraTargets {
        q: true,
        k: true,
        v: true,
        o: true,
        mlp: true,
    };

    /// The targets a mode starts with: all linear layers for QLoRA (as its paper does), query and
    /// value otherwise (as the LoRA paper does; [`LoraTargets::default`]).
    pub fn for_mode(mode: Mode) -> LoraTargets {
        match mode {
            Mode::Qlora => LoraTargets::ALL_LINEAR,
            _ => LoraTargets::default(),
        }
    }
}

/// The options a [`Setup`] and a `Job` (the option table's typed values) share, held once: how
/// the model is run (mode, precision, parallelism, batch and sequence, recomputation, offload,
/// adapters' rank, overhead, bookkeeping, units). `Setup` and `Job` add only what they resolve differently (the
/// model, the GPU, the LoRA targets) and read these fields through `Deref`, so `setup.dp` and
/// `job.dp` both work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RunOptions {
    /// Training, fine-tuning or serving.
    pub mode: Mode,
    /// Weight dtype.
    pub dtype: Dtype,
    /// Optimizer (training modes).
    pub optimizer: Optimizer,
    /// Precision recipe (training modes): where the FP32 copies live.
    pub precision: Precision,
    /// Optimizer implementation: its step's transient memory.
    pub optimizer_step: OptimizerStep,
    /// ZeRO stage over the data-parallel group.
    pub zero: ZeroStage,
    /// Data-parallel degree.
    pub dp: u64,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// Pipeline-parallel degree.
    pub pp: u64,
    /// Virtual pipeline stages per pipeline rank: each GPU holds `vpp` separate runs of layers
    /// and the interleaved 1F1B schedule cuts the bubble by as much (Narayanan et al. 2021;
    /// Megatron-LM's `--num-layers-per-virtual-pipeline-stage`). 1 is the plain schedule.
    pub vpp: u64,
    /// Context-parallel degree: each sequence split over `cp` GPUs, attention exchanging keys
    /// and values between them (ring attention, as Megatron-LM and torchtitan run it).
    pub cp: u64,
    /// Expert-parallel degree: the routed experts divided over `ep` GPUs of the data- and
    /// context-parallel ranks (Megatron-LM's `--expert-model-parallel-size`).
    pub ep: u64,
    /// Expert tensor-parallel degree: each routed expert split over `etp` GPUs; `None` is the
    /// tensor-parallel degree (Megatron-LM's default for `--expert-tensor-parallel-size`).
    pub etp: Option<u64>,
    /// The routed tokens the busiest GPU's experts receive, in percent of even routing (100):
    /// the capacity factor × 100 when tokens above it are dropped (Megatron-LM's
    /// `--moe-expert-capacity-factor`), or the imbalance a dropless router leaves. Scales the
    /// routed experts' activations and the all-to-all.
    pub expert_load_percent: u64,
    /// Megatron sequence parallelism (splits the norm and dropout activations over tp).
    pub sequence_parallel: bool,
    /// Micro-batch size per GPU (sequences).
    pub batch: u64,
    /// Sequence length in tokens.
    pub seq: u64,
    /// Activation recomputation.
    pub recompute: Recompute,
    /// Fused attention, SDPA or FlashAttention (no s×s attention matrices are stored); the
    /// default. Off is eager attention, which keeps the scores and their softmax.
    pub flash_attention: bool,
    /// CPU offload.
    pub offload: Offload,
    /// KV-cache element type (inference).
    pub kv_dtype: Dtype,
    /// LoRA rank.
    pub lora_rank: u64,
    /// LoRA dropout > 0 (peft keeps a dropped-out copy of each adapted layer's input and a mask).
    pub lora_dropout: bool,
    /// Dtype of the LoRA adapters' weights, gradients and compute (peft's default is FP32).
    pub adapter_dtype: Dtype,
    /// Keep an FP32 gradient-accumulation buffer (+4 B per trainable parameter).
    pub fp32_grad_accum: bool,
    /// Adam's moments in FP32 or BF16 (mixed precision and the FP8/FP4 recipes).
    pub moments: Moments,
    /// FP8 (or FP4) weights are the parameters the sharded optimizer all-gathers: no 16-bit copy of
    /// the quantized layers (Megatron-LM `--fp8-param-gather`, torchao's float8 all-gather).
    pub fp8_param_gather: bool,
    /// CUDA context and allocator reserve per GPU, in bytes.
    pub overhead_bytes: u64,
    /// Bookkeeping convention for the model states.
    pub convention: Convention,
    /// GPUs per node (DeepSpeed's estimator counts CPU memory per node).
    pub gpus_per_node: u64,
    /// GB or GiB in formulas.
    pub units: Units,
}

impl Default for RunOptions {
    /// Full BF16 training with AdamW on one GPU, batch 1, sequence 2048, no recomputation, fused
    /// attention (SDPA/FlashAttention, as Transformers, Megatron-LM and the serving engines run
    /// by default; eager attention is `flash_attention: false`), LoRA rank 16, 1 GiB overhead, 8
    /// GPUs per node, GB.
    fn default() -> Self {
        Self {
            mode: Mode::Train,
            dtype: Dtype::Bf16,
            optimizer: Optimizer::Adamw,
            precision: Precision::Mixed,
            optimizer_step: OptimizerStep::Fused,
            zero: ZeroStage(0),
            dp: 1,
            tp: 1,
            pp: 1,
            vpp: 1,
            cp: 1,
            ep: 1,
            etp: None,
            expert_load_percent: 100,
            sequence_parallel: false,
            batch: 1,
            seq: 2048,
            recompute: Recompute::None,
            flash_attention: true,
            offload: Offload::None,
            kv_dtype: Dtype::Bf16,
            lora_rank: 16,
            lora_dropout: false,
            adapter_dtype: Dtype::Bf16,
            fp32_grad_accum: false,
            moments: Moments::Fp32,
            fp8_param_gather: false,
            overhead_bytes: DEFAULT_OVERHEAD_BYTES,
            convention: Convention::Bitbudget,
            gpus_per_node: 8,
            units: Units::Gb,
        }
    }
}

/// Everything an estimate depends on: the resolved model, GPU and LoRA targets, and the shared
/// [`RunOptions`] (read as `setup.dp` etc. through `Deref`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Setup {
    /// The model.
    pub model: ModelSpec,
    /// LoRA target projections.
    pub lora_targets: LoraTargets,
    /// The GPU to compare against, if any.
    pub gpu: Option<GpuPreset>,
    /// How the model is run.
    #[serde(flatten)]
    pub run: RunOptions,
}

/// `Deref`/`DerefMut` to the `run: RunOptions` field, so `x.dp` reads and writes the shared
/// options of a [`Setup`] or a `Job`.
macro_rules! deref_to_run_options {
    ($t:ty) => {
        impl std::ops::Deref for $t {
            type Target = $crate::memory::setup::RunOptions;
            fn deref(&self) -> &Self::Target {
                &self.run
            }
        }

        impl std::ops::DerefMut for $t {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.run
            }
        }
    };
}
pub(crate) use deref_to_run_options;

deref_to_run_options!(Setup);

/// Default overhead: 1 GiB for the CUDA context (about 0.5 GiB with PyTorch on an H100) plus the
/// caching allocator's fragmentation. Editable.
pub const DEFAULT_OVERHEAD_BYTES: u64 = 1 << 30;

impl Setup {
    /// Defaults for `model`: [`RunOptions::default`] (full BF16 training with AdamW on one GPU,
    /// batch 1, sequence 2048, no recomputation, no FlashAttention), LoRA's own targets, no GPU.
    pub fn new(model: ModelSpec) -> Self {
        Self {
            model,
            lora_targets: LoraTargets::default(),
            gpu: None,
            run: RunOptions::default(),
        }
    }

    /// `self` with `change` applied to its run options: `setup.with(|r| r.dp = 8)`.
    pub fn with(mut self, change: impl FnOnce(&mut RunOptions)) -> Self {
        change(&mut self.run);
        self
    }

    /// GPUs in the job: dp × tp × pp × cp (expert parallelism reuses these GPUs).
    pub fn gpus(&self) -> u64 {
        self.dp
            .saturating_mul(self.tp)
            .saturating_mul(self.pp)
            .saturating_mul(self.cp)
    }

    /// The parallel layout in words: "dp 8 × tp 2 × pp 1", with "(vpp 2)" when interleaved,
    /// "× cp 4" when context-parallel
    /// and "; experts: ep 8 × etp 1" when the routed experts are laid out apart.
    pub fn layout_text(&self) -> String {
        let mut text = format!("dp {} × tp {} × pp {}", self.dp, self.tp, self.pp);
        if self.vpp > 1 {
            text += &format!(" (vpp {})", self.vpp);
        }
        if self.cp > 1 {
            text += &format!(" × cp {}", self.cp);
        }
        if self.experts_apart() {
            text += &format!("; experts: ep {} × etp {}", self.ep, self.expert_tp());
        }
        text
    }

    /// The expert tensor-parallel degree: `etp`, or the tensor-parallel degree when unset.
    pub fn expert_tp(&self) -> u64 {
        self.etp.unwrap_or(self.tp)
    }

    /// The routed experts' data-parallel degree: the dp × cp × tp GPUs of a pipeline stage
    /// divided into groups of ep × etp (Megatron-LM's expert data-parallel group).
    pub fn expert_dp(&self) -> u64 {
        (self.dp * self.cp * self.tp / (self.ep * self.expert_tp()).max(1)).max(1)
    }

    /// Whether the routed experts are laid out apart from the dense layers (an MoE model with
    /// ep > 1 or an expert tensor-parallel degree other than tp).
    pub fn experts_apart(&self) -> bool {
        self.arch().is_some_and(|a| a.experts > 1) && (self.ep > 1 || self.expert_tp() != self.tp)
    }

    /// The architecture, when known.
    pub fn arch(&self) -> Option<&ModelArch> {
        match &self.model {
            ModelSpec::Arch { arch, .. } => Some(arch),
            ModelSpec::Params(_) => None,
        }
    }

    /// Checks the setup, naming the first problem (see [`MemoryError`] for the messages).
    pub fn validate(&self) -> Result<(), MemoryError> {
        use MemoryError as E;
        for (option, v) in [
            (DP, self.dp),
            (TP, self.tp),
            (PP, self.pp),
            (VPP, self.vpp),
            (CP, self.cp),
            (EP, self.ep),
            (ETP, self.expert_tp()),
            (GPUS_PER_NODE, self.gpus_per_node),
        ] {
            if v == 0 {
                return Err(E::NoGpu { option });
            }
            in_range(option, v, MAX_DEGREE)?;
        }
        in_range(BATCH, self.batch, MAX_BATCH)?;
        if !(100..=MAX_EXPERT_LOAD_PERCENT).contains(&self.expert_load_percent) {
            return Err(E::BadValue {
                option: EXPERT_LOAD,
                value: self.expert_load_percent.to_string(),
                reason: format!(
                    "is not between 100 (even routing) and {MAX_EXPERT_LOAD_PERCENT} percent"
                ),
            });
        }
        in_range(SEQ, self.seq, MAX_SEQ)?;
        if self.zero.0 > 3 {
            return Err(E::NoSuchZeroStage { stage: self.zero.0 });
        }
        if self.mode == Mode::Train && matches!(self.dtype, Dtype::Int8 | Dtype::Int4) {
            return Err(E::IntegerTraining { dtype: self.dtype });
        }
        if matches!(self.mode, Mode::Train | Mode::Lora) && self.dtype.is_gguf() {
            return Err(E::GgufTraining { dtype: self.dtype });
        }
        self.validate_recipe()?;
        self.validate_layout()?;
        let adapters = matches!(self.mode, Mode::Lora | Mode::Qlora);
        if adapters && !matches!(self.adapter_dtype, Dtype::Fp32 | Dtype::Bf16 | Dtype::Fp16) {
            return Err(E::BadValue {
                option: ADAPTER_DTYPE,
                value: self.adapter_dtype.to_string(),
                reason: "is not a dtype adapters can be trained in: fp32, bf16 or fp16".into(),
            });
        }
        if matches!(self.mode, Mode::Lora | Mode::Qlora) && self.lora_rank == 0 {
            return Err(E::Zero { option: LORA_RANK });
        }
        if self.lora_rank > MAX_LORA_RANK {
            return Err(E::TooLarge {
                option: LORA_RANK,
                value: self.lora_rank,
                limit: MAX_LORA_RANK,
            });
        }
        if self.convention == Convention::Deepspeed
            && self.zero.0 < 2
            && self.mode != Mode::Inference
        {
            return Err(E::DeepspeedNeedsZero2 { stage: self.zero.0 });
        }
        match &self.model {
            ModelSpec::Params(0) => Err(E::Zero { option: PARAMS }),
            ModelSpec::Params(n) if *n > MAX_PARAMS => Err(E::TooLarge {
                option: PARAMS,
                value: *n,
                limit: MAX_PARAMS,
            }),
            ModelSpec::Params(_) if matches!(self.mode, Mode::Lora | Mode::Qlora) => {
                Err(E::AdaptersNeedArchitecture { mode: self.mode })
            }
            ModelSpec::Params(_) => Ok(()),
            ModelSpec::Arch { arch, .. } => validate_arch(arch, self.tp, self.pp),
        }
    }
}

/// Largest expert load accepted, in percent of even routing (every token of a micro-batch on
/// one expert of 16 is 1600).
pub const MAX_EXPERT_LOAD_PERCENT: u64 = 10_000;
/// Most multi-token prediction modules a job may train (DeepSeek-V3 trains 1).
pub const MAX_MTP_MODULES: u64 = 8;

/// Largest parallel degree accepted.
pub const MAX_DEGREE: u64 = 1 << 20;
/// Largest parameter count accepted (one quadrillion).
pub const MAX_PARAMS: u64 = 1_000_000_000_000_000;
/// Largest micro-batch accepted.
pub const MAX_BATCH: u64 = 1 << 20;
/// Largest sequence length accepted.
pub const MAX_SEQ: u64 = 1 << 30;

/// Largest LoRA rank accepted.
pub const MAX_LORA_RANK: u64 = 1 << 16;
/// Largest number of layers accepted.
pub const MAX_LAYERS: u64 = 100_000;
/// Largest hidden size accepted.
pub const MAX_HIDDEN: u64 = 1 << 24;
/// Largest feed-forward width accepted.
pub const MAX_FFN: u64 = 1 << 26;
/// Largest vocabulary accepted.
pub const MAX_VOCAB: u64 = 1 << 26;
/// Largest number of attention heads accepted.
pub const MAX_HEADS: u64 = 1 << 16;

/// `DoesNotDivide` unless `value` of `option` divides `total` of `of`.
fn must_divide(
    option: OptionKey,
    value: u64,
    of: &'static str,
    total: u64,
) -> Result<(), MemoryError> {
    if total % value != 0 {
        return Err(MemoryError::DoesNotDivide {
            option,
            value,
            of,
            total,
        });
    }
    Ok(())
}

/// `Zero` when `v` is 0, `TooLarge` past `limit`, otherwise fine.
fn in_range(option: OptionKey, v: u64, limit: u64) -> Result<(), MemoryError> {
    if v == 0 {
        return Err(MemoryError::Zero { option });
    }
    if v > limit {
        return Err(MemoryError::TooLarge {
            option,
            value: v,
            limit,
        });
    }
    Ok(())
}

impl Setup {
    /// Checks the FP8/FP4 options: a recipe needs full training with 16- or 32-bit weights, FP8
    /// weights are a recipe's (not a dtype to train in), and the FP8 all-gather needs a recipe
    /// that supports it and a sharded optimizer.
    fn validate_recipe(&self) -> Result<(), MemoryError> {
        let refuse = |option, value: String, reason: &str| {
            Err(MemoryError::BadValue {
                option,
                value,
                reason: reason.into(),
            })
        };
        let low = self.precision.is_low();
        if self.mode == Mode::Train && self.dtype == Dtype::Fp8 {
            return refuse(DTYPE, "fp8".into(), "is not a dtype to train in: FP8 training keeps 16-bit weights and makes FP8 copies for the matmuls; choose bf16 weights and an FP8 recipe as the precision (fp8-delayed, fp8-current, fp8-rowwise, fp8-blockwise, mxfp8 or nvfp4)");
        }
        if low && self.mode != Mode::Train && self.mode != Mode::Inference {
            return refuse(
                PRECISION,
                self.precision.to_string(),
                "is a full-training recipe: LoRA and QLoRA take mixed, autocast or pure",
            );
        }
        if low
            && self.mode == Mode::Train
            && !matches!(self.dtype, Dtype::Bf16 | Dtype::Fp16 | Dtype::Fp32)
        {
            return refuse(DTYPE, self.dtype.to_string(), "is not a weight dtype for an FP8 or FP4 recipe, which keeps bf16, fp16 or fp32 weights beside its low-precision copies");
        }
        if !self.fp8_param_gather || self.mode != Mode::Train {
            return Ok(());
        }
        match param_gather_refused(self.precision, self.zero.0) {
            Some(why) => refuse(
                FP8_PARAM_GATHER,
                "1".into(),
                &format!("cannot be on here. {why}"),
            ),
            None => Ok(()),
        }
    }
}

impl Setup {
    /// Checks context and expert parallelism against the mode, the attention kernel, the
    /// sequence and the architecture, as Megatron-LM's argument checks do.
    fn validate_layout(&self) -> Result<(), MemoryError> {
        let refuse = |option: OptionKey, value: u64, reason: String| {
            Err(MemoryError::BadValue {
                option,
                value: value.to_string(),
                reason,
            })
        };
        if self.cp > 1 {
            if self.mode == Mode::Inference {
                return refuse(CP, self.cp, "applies to training: serving splits long prompts by chunked prefill, on the Serve page".into());
            }
            if !self.flash_attention {
                return refuse(CP, self.cp, "needs fused attention (FlashAttention or cuDNN, as Megatron-LM and torchtitan run ring attention): turn FlashAttention on".into());
            }
            if self.seq % (2 * self.cp) != 0 {
                return refuse(CP, self.cp, format!("needs a sequence length divisible by 2 × cp = {}: each sequence is cut into 2 × cp chunks so that every GPU gets an equal share of the causal mask; {} is not", 2 * self.cp, self.seq));
            }
        }
        if self.vpp > 1 {
            if self.pp == 1 {
                return refuse(VPP, self.vpp, "needs pipeline parallelism: virtual stages interleave the stages of a pipeline".into());
            }
            if let Some(a) = self.arch().filter(|a| a.layers % (self.pp * self.vpp) != 0) {
                return refuse(VPP, self.vpp, format!("× pipeline-parallel {} = {} must divide the {} layers: each virtual stage holds the same number of layers (Megatron-LM)", self.pp, self.pp * self.vpp, a.layers));
            }
        }
        let etp = self.expert_tp();
        if self.ep == 1 && etp == self.tp {
            return Ok(());
        }
        let Some(arch) = self.arch().filter(|a| a.experts > 1) else {
            let (option, value) = if self.ep > 1 {
                (EP, self.ep)
            } else {
                (ETP, etp)
            };
            return refuse(
                option,
                value,
                "needs a mixture-of-experts model: this one has no routed experts".into(),
            );
        };
        if self.mode != Mode::Train {
            return refuse(
                EP,
                self.ep,
                format!(
                    "is modelled for full training; {} keeps ep 1 and etp as tp",
                    self.mode
                ),
            );
        }
        must_divide(EP, self.ep, "routed experts", arch.experts)?;
        must_divide(
            ETP,
            etp,
            "columns of each expert's feed-forward layer",
            arch.ffn,
        )?;
        let ranks = self.dp.saturating_mul(self.cp).saturating_mul(self.tp);
        if ranks % (self.ep * etp) != 0 {
            return refuse(EP, self.ep, format!("× expert tensor-parallel {etp} = {} must divide the {ranks} GPUs of a pipeline stage (dp {} × cp {} × tp {}): the experts' groups are carved out of them (Megatron-LM)", self.ep * etp, self.dp, self.cp, self.tp));
        }
        if self.ep > 1 && self.tp > 1 && !self.sequence_parallel {
            return refuse(EP, self.ep, "with tensor parallelism needs sequence parallelism, as Megatron-LM requires: turn sequence parallel on".into());
        }
        Ok(())
    }
}

fn validate_arch(a: &ModelArch, tp: u64, pp: u64) -> Result<(), MemoryError> {
    use MemoryError as E;
    for (option, v, limit) in [
        (LAYERS, a.layers, MAX_LAYERS),
        (HIDDEN, a.hidden, MAX_HIDDEN),
        (HEADS, a.heads, MAX_HEADS),
        (KV_HEADS, a.kv_heads, MAX_HEADS),
        (FFN, a.ffn, MAX_FFN),
        (VOCAB, a.vocab, MAX_VOCAB),
    ] {
        in_range(option, v, limit)?;
    }
    must_divide(KV_HEADS, a.kv_heads, "attention heads", a.heads)?;
    if a.head_dim == 0 {
        return Err(E::HiddenBelowHeads {
            hidden: a.hidden,
            heads: a.heads,
        });
    }
    must_divide(TP, tp, "attention heads", a.heads)?;
    if pp > a.layers {
        return Err(E::MoreStagesThanLayers {
            pp,
            layers: a.layers,
        });
    }
    if a.experts == 0 || a.active_experts > a.experts {
        return Err(E::BadExperts {
            experts: a.experts,
            active: a.active_experts,
        });
    }
    let bound = weight_bound(a);
    if bound > MAX_PARAMS as u128 {
        return Err(E::ArchitectureTooLarge {
            params: bound,
            limit: MAX_PARAMS,
        });
    }
    Ok(())
}

/// An upper bound on the architecture's weights, in `u128` so that it cannot overflow: every
/// layer holds at most 4 attention matrices of (widest input) × (all heads' widest width) and 3
/// matrices per expert (plus shared and dense ones) of hidden × the widest FFN, plus norms, the
/// embedding, head and position tables. Keeping it below [`MAX_PARAMS`] keeps
/// [`ModelArch::params`]'s `u64` arithmetic from overflowing.
fn weight_bound(a: &ModelArch) -> u128 {
    let (rank, head) = a.mla.map_or((0, 0), |m| {
        (
            m.q_lora_rank.max(m.kv_lora_rank),
            m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim,
        )
    });
    let input = a.hidden.max(rank) as u128;
    let heads_width = a.heads as u128 * a.head_dim.max(head) as u128;
    let attention = 4 * input * heads_width.max(a.hidden as u128);
    let experts = a.experts as u128 + a.shared_experts as u128 + 1;
    let mlp = 3 * a.hidden as u128 * a.ffn.max(a.dense_ffn) as u128 * experts;
    let norms = 8 * a.hidden as u128;
    let tables = (2 * a.vocab as u128 + a.position_embeddings as u128) * a.hidden as u128;
    a.layers as u128 * (attention + mlp + norms) + tables
}
