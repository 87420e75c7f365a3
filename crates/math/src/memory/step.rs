//! Time of one training step: what each memory saving costs in FLOPs, bytes on the wire and
//! seconds.
//!
//! The model, per optimizer step of the whole job:
//!
//! - **FLOPs** ([`flops`]): 6 per matmul weight per token (2 forward, 4 backward) plus the
//!   attention core (4·s·heads·head_dim per token per layer forward, full s×s), plus what
//!   activation recomputation does again. *Model* FLOPs leave recomputation out (MFU), *hardware*
//!   FLOPs include it (HFU), as in Korthikanti et al. 2022, section 6.
//! - **Compute time**: hardware FLOPs ÷ (GPUs × dense 16-bit tensor peak × utilisation). The
//!   utilisation (default 40%) stands for everything the peak does not: kernel efficiency,
//!   memory-bound operations, launch gaps.
//! - **Communication** ([`comm`]): data-parallel gradients and ZeRO gathers, tensor-parallel
//!   all-reduces, pipeline point-to-point activations and CPU-offload traffic over PCIe, each
//!   divided by the bandwidth of the link it crosses.
//! - **Pipeline bubble**: (p − 1)/(v·m + p − 1) of the pipeline's time is idle (v virtual
//!   stages per GPU).
//!
//! Overlap is assumed only where the frameworks do it by default: data-parallel traffic
//! overlaps the backward pass (PyTorch DDP's gradient buckets, DeepSpeed's `overlap_comm`;
//! ZeRO-3's prefetched gathers overlap forward and backward), so only the part longer than that
//! window adds time. Tensor-parallel, pipeline and offload traffic are added in full: they sit on
//! the critical path of each layer. The total is therefore
//! `compute + bubble + tensor + pipeline + offload + max(0, data-parallel − overlap window)`.

pub mod comm;
pub mod flops;
pub mod order;
pub mod text;

use self::comm::{Link, Shard, INFINIBAND_NDR_BYTES_PER_S};
use self::flops::{arch_token_flops, attention_core_forward, params_token_flops, TokenFlops};
use super::error::MemoryError;
use super::model::gpus::GpuPreset;
use super::options::{Dtype, Mode, Offload, Recompute};
use super::plan::{Strategy, STRATEGIES};
use super::recipe::{recipe, MatmulPeak};
use super::setup::{ModelSpec, Setup};
use super::states::lora::lora_params;
use serde::Serialize;

/// Default share of the tensor peak a training job sustains: 40%, in the range large runs report
/// (Korthikanti et al. 2022, Table 5: 41.5–56.3% MFU on A100s; Chowdhery et al. 2022, PaLM,
/// Table 3: 46.2% MFU).
pub const DEFAULT_UTILISATION: f64 = 0.40;

/// Largest number of micro-batches per step accepted.
pub const MAX_GRAD_ACCUM: u64 = 1 << 20;

/// Largest number of GPUs per node accepted.
pub const MAX_GPUS_PER_NODE: u64 = 1 << 10;

/// The step-time knobs that the memory setup does not have.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StepParams {
    /// Fraction of the dense tensor peak sustained by compute, in (0, 1]. Default 0.40.
    pub utilisation: f64,
    /// Micro-batches per optimizer step (gradient accumulation; the pipeline's m). Default 1.
    pub grad_accum_steps: u64,
    /// GPUs sharing one NVLink domain (a node). Default 8 (DGX/HGX).
    pub gpus_per_node: u64,
    /// Network bandwidth per GPU between nodes, bytes per second each way. Default 50 GB/s
    /// (400 Gb/s InfiniBand NDR, [`INFINIBAND_NDR_BYTES_PER_S`]).
    pub inter_node_bytes_per_s: u64,
}

impl Default for StepParams {
    fn default() -> Self {
        Self {
            utilisation: DEFAULT_UTILISATION,
            grad_accum_steps: 1,
            gpus_per_node: 8,
            inter_node_bytes_per_s: INFINIBAND_NDR_BYTES_PER_S,
        }
    }
}

impl StepParams {
    /// Checks the knobs, naming the first problem: utilisation must be a number in (0, 1],
    /// micro-batches between 1 and [`MAX_GRAD_ACCUM`], GPUs per node between 1 and
    /// [`MAX_GPUS_PER_NODE`], and the network bandwidth above 0.
    pub fn validate(&self) -> Result<(), MemoryError> {
        let u = self.utilisation;
        if !u.is_finite() || u <= 0.0 || u > 1.0 {
            return Err(MemoryError::BadStepParameter {
                what: "utilisation",
                value: u.to_string(),
                expected: "a fraction of the peak above 0 and at most 1 (0.4 = 40%)".into(),
            });
        }
        if self.grad_accum_steps == 0 || self.grad_accum_steps > MAX_GRAD_ACCUM {
            return Err(MemoryError::BadStepParameter {
                what: "gradient accumulation steps",
                value: self.grad_accum_steps.to_string(),
                expected: format!("between 1 and {MAX_GRAD_ACCUM}"),
            });
        }
        if self.gpus_per_node == 0 || self.gpus_per_node > MAX_GPUS_PER_NODE {
            return Err(MemoryError::BadStepParameter {
                what: "GPUs per node",
                value: self.gpus_per_node.to_string(),
                expected: format!("between 1 and {MAX_GPUS_PER_NODE}"),
            });
        }
        if self.inter_node_bytes_per_s == 0 {
            return Err(MemoryError::BadStepParameter {
                what: "inter-node bandwidth",
                value: "0 bytes per second".into(),
                expected: "above 0".into(),
            });
        }
        Ok(())
    }
}

/// A kind of communication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommKind {
    /// Gradient all-reduce (DDP) or ZeRO's reduce-scatters and all-gathers over the dp group.
    DataParallel,
    /// Megatron tensor-parallel all-reduces of activations.
    TensorParallel,
    /// Activations and their gradients between pipeline stages.
    Pipeline,
    /// Gradients, weights and updated parameters between GPU and CPU (ZeRO-Offload/Infinity).
    Offload,
    /// Keys and values passed round the context-parallel ring.
    ContextParallel,
    /// Tokens dispatched to the experts' GPUs and combined back.
    ExpertAllToAll,
}

impl CommKind {
    /// Short name for prose: "data-parallel", "tensor-parallel", "pipeline", "offload",
    /// "context-parallel", "expert all-to-all".
    pub const fn label(self) -> &'static str {
        match self {
            CommKind::DataParallel => "data-parallel",
            CommKind::TensorParallel => "tensor-parallel",
            CommKind::Pipeline => "pipeline",
            CommKind::Offload => "offload",
            CommKind::ContextParallel => "context-parallel",
            CommKind::ExpertAllToAll => "expert all-to-all",
        }
    }
}

/// One kind of traffic in a step, for one GPU.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CommLine {
    /// What moves.
    pub kind: CommKind,
    /// Bytes this GPU sends per step.
    pub bytes: f64,
    /// The link crossed.
    pub link: Link,
    /// That link's bandwidth, bytes per second each way.
    pub link_bytes_per_s: u64,
    /// bytes ÷ bandwidth.
    pub seconds: f64,
    /// The part of `seconds` that adds to the step (after overlap with compute).
    pub exposed_seconds: f64,
    /// The volume in words, e.g. "3Ψ·(N−1)/N per micro-batch (ZeRO-3), Ψ = 875M elements".
    pub formula: String,
}

/// Seconds of a step, when the GPU's speeds are known.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// Dense 16-bit tensor peak of one GPU, FLOP/s.
    pub peak_flops_per_s: f64,
    /// Fraction of the peak assumed.
    pub utilisation: f64,
    /// Compute seconds per GPU: hardware FLOPs ÷ (GPUs × peak × utilisation).
    pub compute_s: f64,
    /// Seconds per GPU that eager attention spends writing and reading each layer's s×s scores
    /// in GPU memory ([`EAGER_BYTES_PER_SCORE`] ÷ memory bandwidth); 0 with fused attention
    /// (SDPA/FlashAttention keeps them in on-chip memory).
    pub attention_scores_s: f64,
    /// Idle pipeline seconds: (compute_s + attention_scores_s) × (p − 1)/(v·m).
    pub bubble_s: f64,
    /// Each kind of traffic with its seconds (kinds that move nothing are left out).
    pub comm: Vec<CommLine>,
    /// Seconds per optimizer step.
    pub total_s: f64,
    /// Tokens the whole job processes per second.
    pub tokens_per_s: f64,
    /// Model FLOPs utilisation: model FLOPs ÷ (total_s × GPUs × peak).
    pub mfu: f64,
}

/// The step-time estimate of one setup: one optimizer step of training (LoRA and QLoRA
/// included), or, in inference mode, one forward (prefill) pass over the same tokens.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepTime {
    /// Tokens per optimizer step over the whole job: batch × seq × micro-batches × dp.
    pub tokens_per_step: f64,
    /// Model FLOPs per step over the whole job (no recomputation).
    pub model_flops: f64,
    /// Hardware FLOPs per step over the whole job (with recomputation).
    pub hardware_flops: f64,
    /// Micro-batches per step (m).
    pub micro_batches: u64,
    /// Pipeline bubble, fraction of the pipeline's time: (p − 1)/(v·m + p − 1).
    pub bubble_fraction: f64,
    /// Seconds and throughput, or `None` (see `no_timing`).
    pub timing: Option<Timing>,
    /// Why there is no timing, when there is none.
    pub no_timing: Option<String>,
    /// What the model assumes, in words.
    pub assumptions: Vec<String>,
}

impl StepTime {
    /// Seconds per step, if known (a cheap sort key for the strategies chart).
    pub fn seconds(&self) -> Option<f64> {
        self.timing.as_ref().map(|t| t.total_s)
    }

    /// Tokens per second of the whole job, if known.
    pub fn tokens_per_s(&self) -> Option<f64> {
        self.timing.as_ref().map(|t| t.tokens_per_s)
    }
}

/// Everything about the setup the step model needs, worked out once.
struct StepInputs {
    flops: TokenFlops,
    /// Hidden width, when the architecture is known (activation messages need it).
    hidden: Option<u64>,
    layers_on_stage: u64,
    params: f64,
    trainable: f64,
    training: bool,
}

fn job(setup: &Setup) -> StepInputs {
    let training = setup.mode != Mode::Inference;
    match &setup.model {
        ModelSpec::Arch { arch, .. } => {
            let adapters = match setup.mode {
                Mode::Lora | Mode::Qlora => lora_params(arch, setup.lora_rank, setup.lora_targets),
                Mode::Train | Mode::Inference => 0,
            };
            let params = arch.params();
            StepInputs {
                flops: arch_token_flops(
                    arch,
                    setup.seq,
                    setup.mode,
                    adapters as u128,
                    setup.recompute,
                    setup.flash_attention,
                ),
                hidden: Some(arch.hidden),
                layers_on_stage: arch.layers.div_ceil(setup.pp),
                params: params as f64,
                trainable: match setup.mode {
                    Mode::Train => params as f64,
                    Mode::Lora | Mode::Qlora => adapters as f64,
                    Mode::Inference => 0.0,
                },
                training,
            }
        }
        ModelSpec::Params(n) => StepInputs {
            flops: params_token_flops(*n, setup.mode, setup.recompute),
            hidden: None,
            layers_on_stage: 0,
            params: *n as f64,
            trainable: if training { *n as f64 } else { 0.0 },
            training,
        },
    }
}

/// Bytes per stored weight element: the dtype's bits ÷ 8; QLoRA's base is NF4 (4 bits).
fn weight_bytes(setup: &Setup) -> f64 {
    match setup.mode {
        Mode::Qlora => 0.5,
        _ => setup.dtype.bits() as f64 / 8.0,
    }
}

/// Bytes per gradient or activation element: 4 when training in FP32, otherwise 2 (16-bit
/// gradients and activations, also under FP8 or quantized weights).
fn wide_bytes(setup: &Setup) -> f64 {
    if setup.dtype == Dtype::Fp32 {
        4.0
    } else {
        2.0
    }
}

/// The tensor peak the setup's matmuls run at, FLOP/s: the 16-bit `peak`, or under an FP8/FP4
/// recipe the blend of the FP8 (FP4) peak for the quantized block linears' share `q` of the
/// hardware FLOPs and the 16-bit peak for the rest (attention scores, the output head, BF16
/// blocks): 1 / ((1 − q)/peak + q/low). The 16-bit peak where the GPU has no such tensor cores
/// or no recorded figure, said in `assumptions`.
fn low_precision_peak(
    setup: &Setup,
    gpu: &GpuPreset,
    job: &StepInputs,
    peak: f64,
    assumptions: &mut Vec<String>,
) -> f64 {
    let Some(recipe) = recipe(setup.precision).filter(|_| setup.mode == Mode::Train) else {
        return peak;
    };
    let (low, name) = match recipe.peak {
        MatmulPeak::Fp8 => (gpu.low_precision.fp8_flops_per_s(), "FP8"),
        MatmulPeak::Fp4 => (gpu.low_precision.fp4_flops_per_s(), "FP4"),
    };
    let Some(low) = low else {
        assumptions.push(format!(
            "{} has no {name} tensor peak recorded here: the {} matmuls are timed at the 16-bit peak",
            gpu.name, setup.precision
        ));
        return peak;
    };
    let quantized = match &setup.model {
        ModelSpec::Arch { arch, .. } => {
            // Forward 2 and backward 4 FLOPs per weight per token, routed experts at their
            // active share.
            let active = arch.active_params() as f64 / arch.params().max(1) as f64;
            6.0 * recipe.quantized_params(arch) as f64 * active
        }
        ModelSpec::Params(n) => 6.0 * *n as f64,
    };
    let q = (quantized / job.flops.hardware().max(1) as f64).min(1.0);
    assumptions.push(format!(
        "{:.0}% of the FLOPs (the {} block linears) at the {name} peak of {:.0} TFLOP/s, the rest at the 16-bit peak",
        q * 100.0,
        setup.precision,
        low as f64 / 1e12
    ));
    1.0 / ((1.0 - q) / peak + q / low as f64)
}

/// Estimates one optimizer step of `setup` (validated first) with the knobs in `params`.
///
/// Returns an error naming the problem when the setup or the knobs are invalid. When the GPU is
/// not chosen, has no published tensor peak (Apple), or tensor/pipeline traffic needs an
/// architecture that is missing, the FLOPs are still given and `timing` is `None` with the reason
/// in `no_timing`. Never panics; all FLOP counts are exact integers until converted to `f64` for
/// output (relative rounding error below 1e-15).
pub fn step_time(setup: &Setup, params: &StepParams) -> Result<StepTime, MemoryError> {
    setup.validate()?;
    params.validate()?;
    let j = job(setup);
    let m = params.grad_accum_steps;
    let replica_tokens = setup.batch as u128 * setup.seq as u128 * m as u128;
    let job_tokens = replica_tokens * setup.dp as u128;
    // Per-token counts are exact; the job totals can pass u128 at the input limits, so they are
    // multiplied in f64.
    let model_flops = j.flops.model() as f64 * job_tokens as f64;
    let hardware_flops = j.flops.hardware() as f64 * job_tokens as f64;
    let bubble_fraction = comm::bubble_fraction(setup.pp, m, setup.vpp);
    let mut assumptions = base_assumptions(setup);
    let timing = timing(
        setup,
        params,
        &j,
        replica_tokens,
        model_flops,
        &mut assumptions,
    );
    let (timing, no_timing) = match timing {
        Ok(t) => (Some(t), None),
        Err(why) => (None, Some(why)),
    };
    Ok(StepTime {
        tokens_per_step: job_tokens as f64,
        model_flops,
        hardware_flops,
        micro_batches: m,
        bubble_fraction,
        timing,
        no_timing,
        assumptions,
    })
}

/// [`step_time`] of `setup` under every strategy of [`STRATEGIES`] (an `Err` where the setup is
/// invalid for that strategy), for sorting the strategies chart by seconds per step or tokens
/// per second. Each estimate is a few hundred arithmetic operations.
pub fn by_strategy(
    setup: &Setup,
    params: &StepParams,
) -> Vec<(Strategy, Result<StepTime, MemoryError>)> {
    STRATEGIES
        .iter()
        .map(|s| (*s, step_time(&s.apply(setup), params)))
        .collect()
}

fn base_assumptions(setup: &Setup) -> Vec<String> {
    let mut a = vec![
        "FLOPs: 2 per matmul weight per token forward, 4 backward; embeddings, norms and biases are not counted".to_string(),
    ];
    match &setup.model {
        ModelSpec::Arch { .. } => a.push(
            "attention core: 4·s·heads·head_dim FLOPs per token per layer forward over the full s×s matrix (causal masking not subtracted)".into(),
        ),
        ModelSpec::Params(_) => a.push(
            "only a parameter count: every parameter counted as a matmul weight, attention left out (C ≈ 6N per token)".into(),
        ),
    }
    match setup.mode {
        Mode::Train => {}
        Mode::Lora | Mode::Qlora => a.push(
            "LoRA: frozen weights need only input gradients (2 + 2 FLOPs per weight per token), adapters 2 + 4; only adapter gradients are exchanged".into(),
        ),
        Mode::Inference => a.push(
            "inference: a step is one forward (prefill) pass of batch × seq tokens per micro-batch; nothing is recomputed and no gradients are exchanged".into(),
        ),
    }
    if setup.mode == Mode::Inference {
        return a;
    }
    a.push(match (setup.recompute, setup.flash_attention) {
        (Recompute::None, _) => "no recomputation".into(),
        (Recompute::Full | Recompute::Layer, _) => "full recomputation: each block's forward runs again in the backward pass".into(),
        (Recompute::Selective, true) => "selective recomputation with FlashAttention: nothing extra is counted (FlashAttention's own recompute is part of its kernel time)".into(),
        (Recompute::Selective, false) => "selective recomputation: the attention core's forward (QKᵀ, AV) runs again".into(),
    });
    a
}

/// The link a group of `span` consecutive ranks crosses: inside a node when it fits in one
/// (NVLink if the GPU has it, else PCIe), otherwise the inter-node network. Ranks are laid out
/// tensor-parallel first, then data-parallel, then pipeline (Megatron-LM's default order).
fn link_for(
    span: u64,
    gpu_nvlink: Option<u64>,
    gpu_pcie: Option<u64>,
    params: &StepParams,
) -> Option<(Link, u64)> {
    if span > params.gpus_per_node {
        return Some((Link::InterNode, params.inter_node_bytes_per_s));
    }
    match (gpu_nvlink, gpu_pcie) {
        (Some(bw), _) => Some((Link::Nvlink, bw)),
        (None, Some(bw)) => Some((Link::Pcie, bw)),
        (None, None) => None,
    }
}

fn line(kind: CommKind, bytes: f64, link: (Link, u64), formula: String) -> CommLine {
    let seconds = bytes / link.1 as f64;
    CommLine {
        kind,
        bytes,
        link: link.0,
        link_bytes_per_s: link.1,
        seconds,
        exposed_seconds: seconds,
        formula,
    }
}

/// What every traffic line needs: the setup, the knobs, the GPU's links and the job's sizes.
struct Wire<'a> {
    setup: &'a Setup,
    params: &'a StepParams,
    gpu: &'a GpuPreset,
    job: &'a StepInputs,
    /// This GPU's share of the model for data-parallel and offload traffic (with the experts
    /// laid out apart: of the dense parameters, which reduce over dp × cp).
    shard: Shard,
    /// This GPU's share of the routed experts, which reduce over the expert data-parallel
    /// group, when they are laid out apart.
    expert_shard: Option<Shard>,
    /// Bytes of one micro-batch's b·s·h activation.
    activation_bytes: f64,
}

/// One traffic line and the overlap it assumes, in words.
type Traffic = Option<(CommLine, &'static str)>;

impl Wire<'_> {
    fn link(&self, span: u64) -> Result<(Link, u64), String> {
        link_for(
            span,
            self.gpu.nvlink_bytes_per_s,
            self.gpu.pcie_bytes_per_s,
            self.params,
        )
        .ok_or_else(|| format!("{} has no host or GPU link figures", self.gpu.name))
    }

    /// Gradients and ZeRO gathers over the dp × cp ranks (the routed experts' over their own
    /// data-parallel group); hidden behind `window` seconds of compute.
    fn data_parallel(&self, window: f64) -> Result<Traffic, String> {
        let (s, m) = (self.setup, self.params.grad_accum_steps);
        let group = s.dp * s.cp;
        let dense = comm::data_parallel_bytes(s.zero, group, m, self.job.training, self.shard);
        let experts = self.expert_shard.map_or(0.0, |shard| {
            comm::data_parallel_bytes(s.zero, s.expert_dp(), m, self.job.training, shard)
        });
        let bytes = dense + experts;
        if bytes <= 0.0 {
            return Ok(None);
        }
        let link = self.link(s.tp * group)?;
        let volume = match (self.job.training, s.zero.0) {
            (false, _) => "Ψ per micro-batch (ZeRO-3 weight gather)",
            (true, 0) => "2Ψ (gradient all-reduce)",
            (true, 1) => "2Ψ (gradient reduce-scatter + weight all-gather)",
            (true, 2) => "Ψ per micro-batch + Ψ (gradient reduce-scatters + weight all-gather)",
            (true, _) => "3Ψ per micro-batch (2 weight all-gathers + gradient reduce-scatter)",
        };
        let group_text = match s.cp {
            1 => format!("N = {} GPUs", s.dp),
            cp => format!("N = dp {} × cp {cp} GPUs", s.dp),
        };
        let experts_text = if self.expert_shard.is_some() {
            format!(
                "; the routed experts' Ψ over their expert data-parallel group of {}",
                s.expert_dp()
            )
        } else {
            String::new()
        };
        let formula = format!(
            "{volume} × (N−1)/N, {group_text}{experts_text}, over {}",
            link.0.label()
        );
        let mut l = line(CommKind::DataParallel, bytes, link, formula);
        l.exposed_seconds = (l.seconds - window).max(0.0);
        let overlap = if s.zero.0 >= 3 {
            "data-parallel traffic overlaps forward and backward (ZeRO-3 prefetch): only the excess adds time"
        } else {
            "data-parallel traffic overlaps the backward pass: only the excess adds time"
        };
        Ok(Some((l, overlap)))
    }

    /// Keys and values round the context-parallel ring, hidden behind the attention core's
    /// `window` seconds of compute.
    fn context_parallel(&self, window: f64) -> Result<Traffic, String> {
        let (s, m) = (self.setup, self.params.grad_accum_steps);
        let Some(arch) = s.arch().filter(|_| s.cp > 1) else {
            return Ok(None);
        };
        let chunk_tokens = s.batch as f64 * (s.seq / s.cp) as f64;
        let kv_chunk = chunk_tokens * 2.0 * arch.kv_width() as f64 * wide_bytes(s);
        let forwards = if s.recompute == Recompute::Full { 2 } else { 1 };
        let layers = self.job.layers_on_stage;
        let bytes = comm::context_parallel_bytes(
            s.cp,
            s.tp,
            layers,
            m,
            kv_chunk,
            self.job.training,
            forwards,
        );
        let link = self.link(s.tp * s.cp)?;
        let formula = format!(
            "K and V of b·s/c tokens ÷ tp, passed c − 1 times per layer forward and twice that backward × {layers} layers × {m} micro-batches, c = {}, over {}",
            s.cp,
            link.0.label()
        );
        let mut l = line(CommKind::ContextParallel, bytes, link, formula);
        l.exposed_seconds = (l.seconds - window).max(0.0);
        Ok(Some((
            l,
            "ring attention passes keys and values while each chunk's attention is computed: only the excess over the attention core's time adds",
        )))
    }

    /// Tokens to the experts' GPUs and back, on the critical path.
    fn expert_all_to_all(&self) -> Result<Traffic, String> {
        let (s, m) = (self.setup, self.params.grad_accum_steps);
        let Some(arch) = s.arch().filter(|a| a.experts > 1 && s.ep > 1) else {
            return Ok(None);
        };
        let tokens = s.batch as f64 * (s.seq / s.cp) as f64 / s.tp as f64;
        let routed = tokens
            * arch.active_experts as f64
            * arch.hidden as f64
            * wide_bytes(s)
            * s.expert_load_percent as f64
            / 100.0;
        let moe_layers = arch.layers.saturating_sub(arch.dense_layers).div_ceil(s.pp);
        let bytes = comm::expert_all_to_all_bytes(s.ep, moe_layers, m, routed, self.job.training);
        let link = self.link(s.expert_tp() * s.ep)?;
        let formula = format!(
            "k = {} routed copies of b·s/(c·t) tokens × hidden, dispatched and combined forward and backward × {moe_layers} MoE layers × {m} micro-batches × (ep−1)/ep, ep = {}, over {}",
            arch.active_experts,
            s.ep,
            link.0.label()
        );
        Ok(Some((
            line(CommKind::ExpertAllToAll, bytes, link, formula),
            "expert all-to-alls are not overlapped with compute (DeepSeek-V3's DualPipe hides them; not modelled)",
        )))
    }

    /// Megatron all-reduces over the tp ranks, on the critical path.
    fn tensor_parallel(&self) -> Result<Traffic, String> {
        let (s, m) = (self.setup, self.params.grad_accum_steps);
        if s.tp <= 1 {
            return Ok(None);
        }
        let n =
            comm::tensor_parallel_all_reduces(self.job.training, s.recompute == Recompute::Full);
        let layers = self.job.layers_on_stage;
        let bytes = comm::tensor_parallel_bytes(s.tp, n, layers, m, self.activation_bytes);
        let link = self.link(s.tp)?;
        let formula = format!(
            "{n} all-reduces of b·s·h per layer × {layers} layers × {m} micro-batches × 2(t−1)/t, t = {}, over {}",
            s.tp,
            link.0.label()
        );
        Ok(Some((
            line(CommKind::TensorParallel, bytes, link, formula),
            "tensor-parallel all-reduces are not overlapped with compute",
        )))
    }

    /// Activations between pipeline stages, on the critical path.
    fn pipeline(&self) -> Result<Traffic, String> {
        let (s, m) = (self.setup, self.params.grad_accum_steps);
        if s.pp <= 1 {
            return Ok(None);
        }
        // Interleaved, each micro-batch leaves a GPU once per virtual stage.
        let bytes = s.vpp as f64
            * comm::pipeline_bytes(s.pp, s.tp, m, self.job.training, self.activation_bytes);
        let link = self.link(s.tp * s.dp * s.pp)?;
        let directions = if self.job.training {
            "forward and back"
        } else {
            "forward"
        };
        let virtual_stages = match s.vpp {
            1 => String::new(),
            v => format!(" × {v} virtual stages"),
        };
        let formula = format!(
            "b·s·h ÷ t per micro-batch {directions} × {m} micro-batches{virtual_stages}, over {}",
            link.0.label()
        );
        Ok(Some((
            line(CommKind::Pipeline, bytes, link, formula),
            "pipeline sends are not overlapped with compute; the bubble is idle time",
        )))
    }

    /// GPU ↔ CPU traffic of ZeRO-Offload (optimizer) and ZeRO-Infinity (weights) over PCIe.
    fn offload(&self) -> Result<Traffic, String> {
        let (s, m) = (self.setup, self.params.grad_accum_steps as f64);
        if s.offload == Offload::None {
            return Ok(None);
        }
        let pcie = self
            .gpu
            .pcie_bytes_per_s
            .ok_or_else(|| format!("{} has no PCIe figure", self.gpu.name))?;
        // With ZeRO, each GPU moves only its 1/dp partition.
        let part = if s.zero.0 >= 1 { s.dp as f64 } else { 1.0 };
        let grads = self.shard.grad_elems * self.shard.grad_bytes / part;
        let weights = self.shard.weight_elems * self.shard.weight_bytes / part;
        let (bytes, what) = match (s.offload, self.job.training) {
            (Offload::Optimizer, false) => return Ok(None),
            (Offload::Optimizer, true) => (
                grads + weights,
                "16-bit gradients to the CPU and updated 16-bit weights back, once per step (ZeRO-Offload)".to_string(),
            ),
            (_, true) => (
                grads + weights + 2.0 * m * weights,
                format!("weights over PCIe in forward and backward × {m} micro-batches, plus gradients out and updated weights back (ZeRO-Infinity)"),
            ),
            (_, false) => (
                m * weights,
                format!("weights over PCIe once per forward × {m} micro-batches (ZeRO-Infinity)"),
            ),
        };
        Ok(Some((
            line(CommKind::Offload, bytes, (Link::Pcie, pcie), what),
            "offload traffic is not overlapped; the CPU optimizer's own time is not modelled",
        )))
    }
}

/// Bytes of GPU memory traffic per attention score of eager attention (Transformers'
/// `eager_attention_forward`), forward and backward: forward writes the 16-bit scores, the softmax
/// reads them and writes its FP32 output, the cast to 16 bits reads that and writes a copy, and the
/// product with V reads it (2 + 2 + 4 + 4 + 2 + 2 = 16); backward reads and writes about twice as
/// much (32: the gradient of the probabilities, the softmax's backward over its FP32 output, the
/// score gradients read by both products).
pub const EAGER_BYTES_PER_SCORE: (f64, f64) = (16.0, 32.0);

/// Seconds per step one GPU spends moving eager attention's s×s scores through its memory: scores
/// = micro-batch × its heads (÷ tp) × s² × its layers (÷ pp) × micro-batches, each costing the
/// forward bytes (and in training the backward's, and the forward's again under full
/// recomputation), at the datasheet memory bandwidth, not overlapped with the matmuls (these
/// kernels are memory-bound). 0 with fused attention or without an architecture.
fn eager_scores_seconds(
    setup: &Setup,
    micro_batches: f64,
    gpu: &GpuPreset,
    assumptions: &mut Vec<String>,
) -> f64 {
    let Some(a) = setup.arch().filter(|_| !setup.flash_attention) else {
        return 0.0;
    };
    let (forward, backward) = EAGER_BYTES_PER_SCORE;
    let bytes_per_score = match (setup.mode, setup.recompute) {
        (Mode::Inference, _) => forward,
        (_, Recompute::Full | Recompute::Layer) => 2.0 * forward + backward,
        _ => forward + backward,
    };
    let seq = setup.seq as f64;
    let scores = setup.batch as f64
        * (a.heads as f64 / setup.tp as f64)
        * seq
        * seq
        * (a.layers as f64 / setup.pp as f64)
        * micro_batches;
    assumptions.push(format!(
        "eager attention: each layer's s×s scores go through GPU memory, {bytes_per_score:.0} bytes per score (16-bit scores, FP32 softmax and its 16-bit copy, each written and read; backward twice the forward), at the datasheet bandwidth; FlashAttention keeps them on chip"
    ));
    scores * bytes_per_score / gpu.memory_bytes_per_s.max(1) as f64
}

fn timing(
    setup: &Setup,
    params: &StepParams,
    job: &StepInputs,
    replica_tokens: u128,
    model_flops: f64,
    assumptions: &mut Vec<String>,
) -> Result<Timing, String> {
    let gpu = setup
        .gpu
        .as_ref()
        .ok_or("no GPU chosen: the step time needs a GPU's tensor peak")?;
    let peak = gpu.dense_16bit_flops_per_s.ok_or_else(|| {
        format!(
            "{} has no published tensor FLOP/s, so the step time cannot be computed ({})",
            gpu.name, gpu.speeds_source
        )
    })? as f64;
    let hidden =
        match (job.hidden, setup.tp > 1 || setup.pp > 1) {
            (Some(h), _) => h,
            (None, false) => 0,
            (None, true) => return Err(
                "tensor- and pipeline-parallel traffic needs an architecture (hidden size, layers)"
                    .into(),
            ),
        };
    let model_parallel = (setup.tp * setup.pp) as f64;
    let m = params.grad_accum_steps as f64;
    let hardware_replica = job.flops.hardware() as f64 * replica_tokens as f64;
    let matmul_peak = low_precision_peak(setup, gpu, job, peak, assumptions);
    let compute_s =
        hardware_replica / (model_parallel * setup.cp as f64) / (matmul_peak * params.utilisation);
    let attention_scores_s = eager_scores_seconds(setup, m, gpu, assumptions);
    let bubble_s =
        (compute_s + attention_scores_s) * (setup.pp - 1) as f64 / (m * setup.vpp as f64);
    let backward_s =
        compute_s * (job.flops.backward + job.flops.recompute) as f64 / job.flops.hardware() as f64;
    let dp_window = if setup.zero.0 >= 3 {
        compute_s
    } else {
        backward_s
    };
    // The attention core's share of the compute (forward, backward twice it), for ring attention.
    let attention_window = setup.arch().map_or(0.0, |a| {
        let core = 3 * a.layers as u128 * attention_core_forward(a, setup.seq);
        compute_s * core as f64 / job.flops.hardware().max(1) as f64
    });
    let routed = setup
        .arch()
        .filter(|_| setup.experts_apart())
        .map_or(0.0, |a| {
            a.routed_expert_params() as f64 * job.trainable / job.params.max(1.0)
        });
    let routed_weights = setup
        .arch()
        .filter(|_| setup.experts_apart())
        .map_or(0.0, |a| a.routed_expert_params() as f64);
    let expert_parallel = (setup.expert_tp() * setup.ep * setup.pp) as f64;

    let wire = Wire {
        setup,
        params,
        gpu,
        job,
        shard: Shard {
            grad_elems: (job.trainable - routed) / model_parallel,
            grad_bytes: wide_bytes(setup),
            weight_elems: (job.params - routed_weights) / model_parallel,
            weight_bytes: weight_bytes(setup),
        },
        expert_shard: setup.experts_apart().then(|| Shard {
            grad_elems: routed / expert_parallel,
            grad_bytes: wide_bytes(setup),
            weight_elems: routed_weights / expert_parallel,
            weight_bytes: weight_bytes(setup),
        }),
        activation_bytes: setup.batch as f64
            * (setup.seq / setup.cp) as f64
            * hidden as f64
            * wide_bytes(setup),
    };
    let mut comm = Vec::new();
    for traffic in [
        wire.data_parallel(dp_window)?,
        wire.tensor_parallel()?,
        wire.context_parallel(attention_window)?,
        wire.expert_all_to_all()?,
        wire.pipeline()?,
        wire.offload()?,
    ]
    .into_iter()
    .flatten()
    {
        comm.push(traffic.0);
        assumptions.push(traffic.1.into());
    }

    let exposed: f64 = comm.iter().map(|c| c.exposed_seconds).sum();
    let total_s = compute_s + attention_scores_s + bubble_s + exposed;
    let job_tokens = replica_tokens as f64 * setup.dp as f64;
    assumptions.push(format!(
        "compute at {:.0}% of the dense 16-bit tensor peak; link times are bytes ÷ bandwidth, latency ignored",
        params.utilisation * 100.0
    ));
    Ok(Timing {
        peak_flops_per_s: peak,
        utilisation: params.utilisation,
        compute_s,
        attention_scores_s,
        bubble_s,
        comm,
        total_s,
        tokens_per_s: job_tokens / total_s,
        mfu: model_flops / (total_s * setup.gpus() as f64 * peak),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::gpus::find_gpu;
    use crate::memory::model::models::find_model;

    fn setup(model: &str, gpu: &str) -> Setup {
        let mut s = Setup::new(ModelSpec::Arch {
            name: model.into(),
            arch: Box::new(find_model(model).unwrap().arch),
        });
        s.gpu = find_gpu(gpu);
        s
    }

    #[test]
    fn bad_knobs_give_messages_not_panics() {
        let s = setup("llama-3-8b", "h100-80gb");
        for u in [f64::NAN, 0.0, -0.1, 1e15, f64::INFINITY] {
            let p = StepParams {
                utilisation: u,
                ..StepParams::default()
            };
            let e = step_time(&s, &p).unwrap_err();
            assert!(e.to_string().contains("utilisation"), "{e}");
        }
        for m in [0, MAX_GRAD_ACCUM + 1] {
            let p = StepParams {
                grad_accum_steps: m,
                ..StepParams::default()
            };
            assert!(step_time(&s, &p)
                .unwrap_err()
                .to_string()
                .contains("accumulation"));
        }
    }

    #[test]
    fn apple_gpus_get_flops_but_no_time() {
        let s = setup("llama-3-8b", "m3-max-128gb");
        let t = step_time(&s, &StepParams::default()).unwrap();
        assert!(t.model_flops > 0.0);
        assert!(t.timing.is_none());
        assert!(t.no_timing.unwrap().contains("cannot be computed"));
    }

    #[test]
    fn a_single_gpu_step_is_its_compute_time() {
        let s = setup("llama-3-8b", "h100-80gb");
        let t = step_time(&s, &StepParams::default()).unwrap();
        let timing = t.timing.unwrap();
        assert!(timing.comm.is_empty());
        assert_eq!(timing.total_s, timing.compute_s);
        assert_eq!(
            timing.compute_s,
            t.hardware_flops / (989.5e12 * DEFAULT_UTILISATION)
        );
        // Without recomputation MFU equals the utilisation.
        assert!((timing.mfu - DEFAULT_UTILISATION).abs() < 1e-12);
    }

    #[test]
    fn inference_is_one_forward_pass_with_no_gradient_traffic() {
        let mut s = setup("llama-3-8b", "h100-80gb");
        s.mode = Mode::Inference;
        s.dp = 8;
        s.recompute = Recompute::Full;
        let t = step_time(&s, &StepParams::default()).unwrap();
        assert_eq!(t.model_flops, t.hardware_flops);
        assert!(t.timing.unwrap().comm.is_empty());
        assert!(t.assumptions.iter().any(|a| a.starts_with("inference")));
        assert!(!t.assumptions.iter().any(|a| a.contains("recomputation")));
    }

    #[test]
    fn a_parameter_count_cannot_size_tensor_parallel_traffic() {
        let mut s = Setup::new(ModelSpec::Params(7_000_000_000));
        s.gpu = find_gpu("h100-80gb");
        s.tp = 2;
        let t = step_time(&s, &StepParams::default()).unwrap();
        assert!(t.no_timing.unwrap().contains("needs an architecture"));
        s.gpu = None;
        let t = step_time(&s, &StepParams::default()).unwrap();
        assert!(t.no_timing.unwrap().contains("no GPU chosen"));
    }

    #[test]
    fn data_parallel_traffic_longer_than_the_backward_shows_its_excess() {
        // Short sequences over the network: the all-reduce outlasts the backward pass.
        let mut s = setup("llama-2-7b", "h100-80gb");
        (s.dp, s.seq) = (16, 128);
        let t = step_time(&s, &StepParams::default()).unwrap();
        let timing = t.timing.unwrap();
        let dp = &timing.comm[0];
        let backward_s = timing.compute_s * 2.0 / 3.0;
        assert!(dp.seconds > backward_s);
        assert!((dp.exposed_seconds - (dp.seconds - backward_s)).abs() < 1e-12 * dp.seconds);
        assert!((timing.total_s - (timing.compute_s + dp.exposed_seconds)).abs() < 1e-12);
        // ZeRO-3 hides its gathers behind forward and backward.
        s.zero = crate::memory::options::ZeroStage(3);
        let timing = step_time(&s, &StepParams::default())
            .unwrap()
            .timing
            .unwrap();
        let dp = &timing.comm[0];
        assert!((dp.exposed_seconds - (dp.seconds - timing.compute_s)).abs() < 1e-12 * dp.seconds);
    }

    #[test]
    fn architectures_too_large_to_count_are_refused_with_a_message() {
        let mut a = find_model("llama-3-8b").unwrap().arch;
        (a.layers, a.hidden, a.ffn) = (100_000, 1 << 24, 1 << 26);
        let mut s = Setup::new(ModelSpec::Arch {
            name: "custom".into(),
            arch: Box::new(a.clone()),
        });
        s.gpu = find_gpu("h100-80gb");
        let e = step_time(&s, &StepParams::default()).unwrap_err();
        assert!(e.to_string().contains("limit"), "{e}");
        a = find_model("mixtral-8x7b").unwrap().arch;
        a.experts = u64::MAX;
        s.model = ModelSpec::Arch {
            name: "custom".into(),
            arch: Box::new(a),
        };
        assert!(matches!(
            step_time(&s, &StepParams::default()),
            Err(MemoryError::ArchitectureTooLarge { .. })
        ));
    }

    #[test]
    fn huge_setups_stay_finite() {
        let mut s = setup("llama-3.1-405b", "b200");
        s.batch = 1 << 20;
        s.dp = 1 << 20;
        let p = StepParams {
            grad_accum_steps: MAX_GRAD_ACCUM,
            ..StepParams::default()
        };
        let t = step_time(&s, &p).unwrap();
        assert!(t.model_flops.is_finite() && t.seconds().unwrap().is_finite());
    }

    #[test]
    fn every_strategy_gets_an_estimate() {
        let mut s = setup("llama-3-8b", "h100-80gb");
        s.dp = 8;
        let rows = by_strategy(&s, &StepParams::default());
        assert_eq!(rows.len(), STRATEGIES.len());
        let secs: Vec<f64> = rows
            .iter()
            .map(|(_, r)| r.as_ref().unwrap().seconds().unwrap())
            .collect();
        // Full offload is the slowest: every weight crosses PCIe twice per micro-batch.
        let slowest = secs.iter().cloned().fold(0.0, f64::max);
        assert_eq!(secs[6], slowest);
    }
}
