//! Model states (weights, gradients, optimizer) under each bookkeeping convention, sharded by ZeRO
//! and split by tensor/pipeline parallelism, with CPU offload.
//!
//! Why published numbers disagree: the ZeRO paper counts 2 + 2 + 12 = 16 B/param for mixed-precision
//! Adam; Megatron-LM keeps FP32 gradients (2 + 4 + 12 = 18 B); DeepSpeed's estimator adds a gathered
//! FP32 copy of the largest layer, counts FP32 gradients inside 16 B of sharded state, multiplies
//! CPU memory by 1.5 and prints GiB labelled "GB"; some calculators count only Adam's 8 B of moments.

use super::arch::{Mlp, ModelArch};
use super::estimate::{params_text, to_u64, Line};
use super::options::{Convention, Dtype, Mode, Offload, Optimizer};
use super::setup::{MemoryError, ModelSpec, Setup};
use crate::numbers::{format_bytes, format_count};
use serde::Serialize;

/// The three model-state lines, trainable parameters and CPU bytes.
pub struct StateLines {
    /// Weights per GPU.
    pub weights: Line,
    /// Gradients per GPU.
    pub gradients: Line,
    /// Optimizer states per GPU.
    pub optimizer: Line,
    /// Parameters that are trained.
    pub trainable: u64,
    /// Bytes in CPU memory per GPU.
    pub cpu: u64,
}

/// Model states of `setup` under its convention.
pub fn model_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let trains_fully = setup.mode == Mode::Train;
    match setup.convention {
        Convention::Zero | Convention::HfMegatron | Convention::Deepspeed if !trains_fully => {
            notes.push(format!(
                "the {} convention describes full mixed-precision training; {} uses bitbudget's",
                setup.convention, setup.mode
            ));
            bitbudget_states(setup, params, notes)
        }
        Convention::Bitbudget => bitbudget_states(setup, params, notes),
        Convention::Zero => train_states(
            setup,
            params,
            PerParam::fixed(2, 2, 12, "12 B (FP32 master + m + v, the paper's K)"),
        ),
        Convention::HfMegatron => train_states(
            setup,
            params,
            PerParam::fixed(2, 4, 12, "12 B (FP32 master + m + v)"),
        ),
        Convention::Deepspeed => deepspeed_states(setup, params, notes),
    }
}

/// Bytes per trainable parameter of each state.
struct PerParam {
    weight_bits: u64,
    grad_bytes: u64,
    optimizer: Box<dyn Fn(u64) -> u128>,
    optimizer_text: String,
}

impl PerParam {
    fn fixed(w: u64, g: u64, o: u64, text: &str) -> Self {
        PerParam {
            weight_bits: w * 8,
            grad_bytes: g,
            optimizer: Box::new(move |n| n as u128 * o as u128),
            optimizer_text: text.into(),
        }
    }
}

/// Optimizer state bytes for `n` parameters; `master` adds an FP32 master copy (mixed precision).
fn optimizer_bytes(opt: Optimizer, n: u64, master: bool) -> u128 {
    let n128 = n as u128;
    let states = match opt {
        Optimizer::Adamw => 8 * n128,
        // bitsandbytes: two 8-bit states plus one FP32 absmax per 256-element block per state.
        Optimizer::Adamw8bit => 2 * n128 + 2 * 4 * n128.div_ceil(256),
        Optimizer::SgdMomentum => 4 * n128,
        Optimizer::Sgd => 0,
    };
    states + if master { 4 * n128 } else { 0 }
}

fn optimizer_text(opt: Optimizer, master: bool) -> String {
    let states = match opt {
        Optimizer::Adamw => "8 B (FP32 m + v)",
        Optimizer::Adamw8bit => "2 B (8-bit m + v) + FP32 absmax per 256",
        Optimizer::SgdMomentum => "4 B (FP32 momentum)",
        Optimizer::Sgd => "0 B",
    };
    if master {
        format!("4 B FP32 master + {states}")
    } else {
        states.to_string()
    }
}

fn bitbudget_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    match setup.mode {
        Mode::Train => {
            let mixed = setup.dtype != Dtype::Fp32;
            if setup.dtype == Dtype::Fp8 {
                notes.push("FP8 training: FP8 weight copies for the matmuls, BF16 gradients, FP32 master weights (as Transformer Engine does)".into());
            }
            let opt = setup.optimizer;
            train_states(
                setup,
                params,
                PerParam {
                    weight_bits: setup.dtype.bits(),
                    grad_bytes: if mixed { 2 } else { 4 },
                    optimizer: Box::new(move |n| optimizer_bytes(opt, n, mixed)),
                    optimizer_text: optimizer_text(opt, mixed),
                },
            )
        }
        Mode::Lora | Mode::Qlora => adapter_states(setup, params, notes),
        Mode::Inference => inference_states(setup, params, notes),
    }
}

/// How a per-GPU share is divided: text and divisor.
struct Share {
    divisor: u64,
    text: String,
}

fn share(setup: &Setup, sharded: bool) -> Share {
    let mp = setup.tp * setup.pp;
    let mut parts = Vec::new();
    if mp > 1 {
        parts.push(format!("tp {} × pp {}", setup.tp, setup.pp));
    }
    let dp = if sharded && setup.dp > 1 {
        parts.push(format!("dp {} ({})", setup.dp, setup.zero.label()));
        setup.dp
    } else {
        1
    };
    Share {
        divisor: mp * dp,
        text: if parts.is_empty() {
            String::new()
        } else {
            format!(" ÷ {}", parts.join(" ÷ "))
        },
    }
}

fn line(bytes: u128, formula: String, why: &str, setup: &Setup) -> Result<Line, MemoryError> {
    let bytes = to_u64(bytes)?;
    Ok(Line {
        formula: format!("{formula} = {}", format_bytes(bytes, setup.units)),
        bytes,
        why: why.into(),
    })
}

const WHY_WEIGHTS: &str = "The parameters themselves, in the dtype the matmuls read.";
const WHY_GRADS: &str =
    "Backpropagation produces one gradient per trainable parameter before the optimizer step.";
const WHY_OPT: &str = "Adam keeps running means of the gradient and its square, and mixed precision keeps an FP32 master copy to apply small updates exactly.";

fn train_states(setup: &Setup, params: u64, per: PerParam) -> Result<StateLines, MemoryError> {
    let (ws, gs, os) = (
        share(setup, setup.zero.0 >= 3),
        share(setup, setup.zero.0 >= 2),
        share(setup, setup.zero.0 >= 1),
    );
    let n = params as u128;
    let weights = (n * per.weight_bits as u128)
        .div_ceil(8)
        .div_ceil(ws.divisor as u128);
    let accum = if setup.fp32_grad_accum { 4 } else { 0 };
    let grads = (n * (per.grad_bytes + accum) as u128).div_ceil(gs.divisor as u128);
    let optimizer = (per.optimizer)(params).div_ceil(os.divisor as u128);
    let p = params_text(params);
    let accum_text = if accum > 0 {
        " + 4 B FP32 accumulation"
    } else {
        ""
    };
    let mut lines = StateLines {
        weights: line(
            weights,
            format!("{} B × {p}{}", per.weight_bits as f64 / 8.0, ws.text),
            WHY_WEIGHTS,
            setup,
        )?,
        gradients: line(
            grads,
            format!("{} B{accum_text} × {p}{}", per.grad_bytes, gs.text),
            WHY_GRADS,
            setup,
        )?,
        optimizer: line(
            optimizer,
            format!("{} × {p}{}", per.optimizer_text, os.text),
            WHY_OPT,
            setup,
        )?,
        trainable: params,
        cpu: 0,
    };
    apply_offload(
        setup,
        &mut lines,
        layer_weight_bytes(setup, per.weight_bits),
    )?;
    Ok(lines)
}

/// Bytes of one layer's weights gathered on a GPU (what ZeRO-Infinity keeps when weights live on
/// the CPU), when the architecture is known.
fn layer_weight_bytes(setup: &Setup, weight_bits: u64) -> Option<u128> {
    setup.arch().map(|a| {
        (a.layer_params() as u128 * weight_bits as u128)
            .div_ceil(8)
            .div_ceil(setup.tp as u128)
    })
}

fn apply_offload(
    setup: &Setup,
    lines: &mut StateLines,
    layer_bytes: Option<u128>,
) -> Result<(), MemoryError> {
    if setup.offload == Offload::None {
        return Ok(());
    }
    let opt = std::mem::replace(
        &mut lines.optimizer,
        Line {
            bytes: 0,
            formula: String::new(),
            why: String::new(),
        },
    );
    lines.cpu = opt.bytes;
    lines.optimizer = Line {
        bytes: 0,
        formula: format!(
            "0 on the GPU: {} moved to CPU memory",
            format_bytes(opt.bytes, setup.units)
        ),
        why: "Offloaded: the CPU holds the optimizer states and runs the update (ZeRO-Offload)."
            .into(),
    };
    if setup.offload == Offload::All {
        let gathered = to_u64(layer_bytes.unwrap_or(0))?;
        lines.cpu = lines.cpu.saturating_add(lines.weights.bytes);
        lines.weights = Line {
            bytes: gathered,
            formula: format!("one layer gathered at a time = {} ({} on the CPU)", format_bytes(gathered, setup.units), format_bytes(lines.weights.bytes, setup.units)),
            why: "Offloaded: weights live in CPU memory and each layer is fetched just before it runs (ZeRO-Infinity).".into(),
        };
    }
    Ok(())
}

/// Trainable LoRA parameters of the whole model for `rank` and the targets in `setup`.
pub fn lora_params(a: &ModelArch, setup: &Setup) -> u64 {
    let (h, r, t) = (a.hidden, setup.lora_rank, setup.lora_targets);
    let mut per_layer = 0;
    if t.q {
        per_layer += r * (h + a.q_width());
    }
    if t.k {
        per_layer += r * (h + a.kv_width());
    }
    if t.v {
        per_layer += r * (h + a.kv_width());
    }
    if t.o {
        per_layer += r * (a.q_width() + h);
    }
    if t.mlp {
        let matrices = match a.mlp {
            Mlp::Gelu => 2,
            Mlp::Swiglu => 3,
        };
        per_layer += matrices * r * (h + a.ffn) * a.experts;
    }
    per_layer * a.layers
}

/// QLoRA's NF4 block size (Dettmers et al. 2023, section 3).
const QLORA_BLOCK: u64 = 64;

fn adapter_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let ModelSpec::Arch { arch, .. } = &setup.model else {
        return Err(MemoryError("LoRA needs an architecture".into()));
    };
    let adapters = lora_params(arch, setup);
    let (ws, gs, os) = (
        share(setup, setup.zero.0 >= 3),
        share(setup, setup.zero.0 >= 2),
        share(setup, setup.zero.0 >= 1),
    );
    let (base, base_text) = if setup.mode == Mode::Qlora {
        let linear = arch.block_linear_params();
        let rest = params - linear;
        if setup.dtype != Dtype::Bf16 {
            notes.push(
                "QLoRA stores block linears in NF4 and the rest in BF16, whatever --dtype says"
                    .into(),
            );
        }
        (
            crate::quant::nf4::storage_bytes(linear, QLORA_BLOCK, true) + 2 * rest as u128,
            format!(
                "NF4 4.127 bits × {} linears + 2 B × {} other",
                format_count(linear),
                format_count(rest)
            ),
        )
    } else {
        (
            (params as u128 * setup.dtype.bits() as u128).div_ceil(8),
            format!(
                "{} B × {} frozen",
                setup.dtype.bits() as f64 / 8.0,
                format_count(params)
            ),
        )
    };
    let weights = (base + 2 * adapters as u128).div_ceil(ws.divisor as u128);
    let grads = (2 * adapters as u128).div_ceil(gs.divisor as u128);
    let optimizer = optimizer_bytes(setup.optimizer, adapters, false).div_ceil(os.divisor as u128);
    let a = format!(
        "{} adapter params (rank {})",
        format_count(adapters),
        setup.lora_rank
    );
    let mut lines = StateLines {
        weights: line(
            weights,
            format!("({base_text} + 2 B × {a}){}", ws.text),
            "Frozen base weights plus small BF16 adapter matrices.",
            setup,
        )?,
        gradients: line(
            grads,
            format!("2 B × {a}{}", gs.text),
            "Only the adapters are trained, so only they get gradients.",
            setup,
        )?,
        optimizer: line(
            optimizer,
            format!(
                "{} × {a}{}",
                optimizer_text(setup.optimizer, false),
                os.text
            ),
            "Optimizer states for the adapters alone (FP32), as in the QLoRA setup.",
            setup,
        )?,
        trainable: adapters,
        cpu: 0,
    };
    apply_offload(
        setup,
        &mut lines,
        layer_weight_bytes(setup, setup.dtype.bits()),
    )?;
    Ok(lines)
}

fn inference_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let ws = share(setup, false);
    if setup.zero.0 > 0 {
        notes.push("inference: ZeRO stages do not apply; data-parallel GPUs are replicas".into());
    }
    let bits = setup.dtype.bits();
    let quantized = matches!(setup.dtype, Dtype::Fp8 | Dtype::Int8 | Dtype::Int4);
    let (linear, rest) = match (setup.arch(), quantized) {
        (Some(a), true) => (a.block_linear_params(), params - a.block_linear_params()),
        _ => (params, 0),
    };
    // INT4 weight-only formats (GPTQ, AWQ) add an FP16 scale per group of 128 weights.
    let scales = if setup.dtype == Dtype::Int4 {
        16 * (linear as u128).div_ceil(128)
    } else {
        0
    };
    let bytes = (linear as u128 * bits as u128 + scales).div_ceil(8) + 2 * rest as u128;
    let formula = if rest > 0 {
        let scale_text = if scales > 0 {
            " + FP16 scale per 128"
        } else {
            ""
        };
        format!(
            "{} bits × {} block linears{scale_text} + 2 B × {} embeddings/norms{}",
            bits,
            format_count(linear),
            format_count(rest),
            ws.text
        )
    } else {
        format!(
            "{} B × {}{}",
            bits as f64 / 8.0,
            params_text(params),
            ws.text
        )
    };
    let zero = |why: &str| Line {
        bytes: 0,
        formula: "0".into(),
        why: why.into(),
    };
    let mut lines = StateLines {
        weights: line(
            bytes.div_ceil(ws.divisor as u128),
            formula,
            WHY_WEIGHTS,
            setup,
        )?,
        gradients: zero("Serving does no backward pass: no gradients."),
        optimizer: zero("Serving does not update weights: no optimizer."),
        trainable: 0,
        cpu: 0,
    };
    apply_offload(setup, &mut lines, layer_weight_bytes(setup, bits))?;
    Ok(lines)
}

/// DeepSpeed's `estimate_zero2_model_states_mem_needs` and `estimate_zero3_model_states_mem_needs`
/// (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py; zero_init=1, buffer factor 1.5),
/// reproduced with Python's float arithmetic. CPU memory is per node.
fn deepspeed_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let mp = setup.tp * setup.pp;
    if mp > 1 {
        notes.push("DeepSpeed's estimator knows no tensor/pipeline parallelism: applied to params ÷ (tp × pp)".into());
    }
    let p = params.div_ceil(mp);
    let largest = setup
        .arch()
        .map(|a| a.largest_layer_params().div_ceil(setup.tp))
        .unwrap_or_else(|| {
            notes.push("largest layer unknown without an architecture: taken as 0".into());
            0
        });
    let est = deepspeed_estimate(
        p,
        largest,
        setup.dp,
        setup.gpus_per_node,
        setup.zero.0,
        setup.offload,
    );
    notes.push("DeepSpeed prints these sizes divided by 2^30 but labels them GB".into());
    let t = |s: &str| s.to_string();
    let (w, g, o) = match (setup.zero.0, setup.offload) {
        (2, Offload::None) => (
            (2 * p as u128, t("2 B × params")),
            (2 * p as u128, t("2 B × params")),
            (
                (est.gpu - 4 * p) as u128,
                format!("int(16 B × params ÷ {} GPUs)", setup.dp),
            ),
        ),
        (2, _) => (
            (2 * p as u128, t("2 B × params")),
            (0, t("on the CPU")),
            (0, t("on the CPU")),
        ),
        (_, Offload::All) => (
            (est.gpu as u128, t("4 B × largest layer")),
            (0, t("on the CPU")),
            (0, t("on the CPU")),
        ),
        (_, off) => {
            let weights = 4 * largest as u128 + 2 * p as u128 / setup.dp as u128;
            let rest = est.gpu as u128 - weights;
            let text = if off == Offload::None {
                format!("rest of int(18 B × params ÷ {} GPUs)", setup.dp)
            } else {
                t("on the CPU")
            };
            (
                (
                    weights,
                    format!("4 B × largest layer + 2 B × params ÷ {} GPUs", setup.dp),
                ),
                (0, t("inside DeepSpeed's 16 B of FP32 state")),
                (rest, text),
            )
        }
    };
    let pt = params_text(p);
    Ok(StateLines {
        weights: line(w.0, format!("{} ({pt})", w.1), WHY_WEIGHTS, setup)?,
        gradients: line(g.0, g.1, WHY_GRADS, setup)?,
        optimizer: line(o.0, format!("{} ({pt})", o.1), WHY_OPT, setup)?,
        trainable: params,
        cpu: est.cpu,
    })
}

/// GPU and CPU bytes of DeepSpeed's estimators (CPU per node, GPU per GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DeepspeedEstimate {
    /// Bytes per GPU.
    pub gpu: u64,
    /// Bytes of CPU memory per node.
    pub cpu: u64,
}

/// DeepSpeed's model-state estimate for `total_params`, `largest_layer_params`, `total_gpus`,
/// `gpus_per_node`, ZeRO `stage` (2 or 3) and offload, with zero_init=1 and buffer factor 1.5.
pub fn deepspeed_estimate(
    total_params: u64,
    largest_layer_params: u64,
    total_gpus: u64,
    gpus_per_node: u64,
    stage: u8,
    offload: Offload,
) -> DeepspeedEstimate {
    let (p, l, n) = (total_params, largest_layer_params, total_gpus);
    let per_node = gpus_per_node.min(n).max(1);
    let nodes = n.div_ceil(per_node);
    let buffer = 1.5f64;
    let int = |v: f64| v as u64;
    if stage == 2 {
        return match offload {
            Offload::None => DeepspeedEstimate {
                gpu: 4 * p + int((16 * p) as f64 / n as f64),
                cpu: int((p * 4 * per_node) as f64 * buffer),
            },
            _ => DeepspeedEstimate {
                gpu: 2 * p,
                cpu: int((p * (4 * n).max(16)) as f64 * buffer),
            },
        };
    }
    let gpus_factor = 1.0 / nodes as f64;
    let largest = 4 * l;
    match offload {
        Offload::All => DeepspeedEstimate {
            gpu: largest,
            cpu: int((p * 18) as f64 * gpus_factor * buffer),
        },
        Offload::Optimizer => DeepspeedEstimate {
            gpu: largest + int((2 * p) as f64 / n as f64),
            cpu: int((p * 16) as f64 * gpus_factor * buffer),
        },
        Offload::None => DeepspeedEstimate {
            gpu: largest + int((18 * p) as f64 / n as f64),
            cpu: int((l * 4 * per_node) as f64 * buffer),
        },
    }
}

/// One row of the conventions table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConventionRow {
    /// The convention.
    pub convention: Convention,
    /// Model states per GPU, or why this convention does not cover the setup.
    pub model_states: Result<u64, String>,
    /// CPU bytes (per GPU for offload; per node for DeepSpeed).
    pub cpu: u64,
    /// Why it differs from the others, in words.
    pub explanation: &'static str,
}

/// The same setup's model states under every convention.
pub fn compare_conventions(setup: &Setup) -> Vec<ConventionRow> {
    Convention::ALL
        .iter()
        .map(|&c| {
            let s = Setup {
                convention: c,
                ..setup.clone()
            };
            let result = super::estimate::estimate(&s)
                .map(|b| (b.model_states, b.cpu_offload))
                .map_err(|e| e.0);
            ConventionRow {
                convention: c,
                model_states: result.clone().map(|r| r.0),
                cpu: result.map(|r| r.1).unwrap_or(0),
                explanation: explain(c),
            }
        })
        .collect()
}

/// Why a convention counts what it counts.
pub const fn explain(c: Convention) -> &'static str {
    match c {
        Convention::Bitbudget => "The ZeRO paper's and EleutherAI's accounting (16-bit weights and gradients plus K bytes of optimizer state), with K and the widths following the chosen dtype and optimizer.",
        Convention::Zero => "Rajbhandari et al. 2020: mixed-precision Adam is 2Ψ + 2Ψ + KΨ with K = 12 (FP32 master weights, momentum, variance), whatever optimizer is chosen.",
        Convention::HfMegatron => "Megatron-LM keeps gradients in FP32 for accumulation: 2 + 4 + 12 = 18 bytes per parameter; Hugging Face's anatomy of training memory reaches the same 18 as 6 (FP32 + 16-bit weights) + 4 + 8.",
        Convention::Deepspeed => "DeepSpeed's estimator adds a gathered FP32 copy of the largest layer, counts FP32 gradients inside 16 bytes of sharded state, sizes CPU memory per node with a 1.5 buffer factor, and prints GiB labelled 'GB'.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DeepSpeed's documented example for t5-small (60,506,624 params, largest layer 16,449,536,
    /// 1 GPU): per CPU / per GPU in GiB as `estimate_zero3_model_states_mem_needs_all_live` prints.
    #[test]
    fn deepspeed_zero3_t5_small_example() {
        let gib = |b: u64| (b as f64 / (1u64 << 30) as f64 * 100.0).round() / 100.0;
        let (p, l) = (60_506_624, 16_449_536);
        let all = deepspeed_estimate(p, l, 1, 1, 3, Offload::All);
        assert_eq!((gib(all.cpu), gib(all.gpu)), (1.52, 0.06));
        let opt = deepspeed_estimate(p, l, 1, 1, 3, Offload::Optimizer);
        assert_eq!((gib(opt.cpu), gib(opt.gpu)), (1.35, 0.17));
        let none = deepspeed_estimate(p, l, 1, 1, 3, Offload::None);
        assert_eq!((gib(none.cpu), gib(none.gpu)), (0.09, 1.08));
    }

    #[test]
    fn eight_bit_adam_keeps_a_block_absmax() {
        assert_eq!(
            optimizer_bytes(Optimizer::Adamw8bit, 256, false),
            2 * 256 + 8
        );
        assert_eq!(
            optimizer_bytes(Optimizer::Adamw8bit, 257, true),
            2 * 257 + 16 + 4 * 257
        );
        assert_eq!(optimizer_bytes(Optimizer::Adamw, 1, true), 12);
    }
}
