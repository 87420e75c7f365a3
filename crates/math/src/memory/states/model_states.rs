//! The default model-state model: weights, gradients and optimizer states per GPU for full
//! training, LoRA/QLoRA and inference, sharded by ZeRO, split by tensor/pipeline parallelism, with
//! CPU offload; and the dispatch to the other conventions' fixed bytes per parameter (the ZeRO
//! paper's 2 + 2 + 12, Megatron's 2 + 4 + 12) and to the DeepSpeed reproduction.
//!
//! Why published numbers disagree: the ZeRO paper counts 2 + 2 + 12 = 16 B/param for mixed-precision
//! Adam; Megatron-LM keeps FP32 gradients (2 + 4 + 12 = 18 B); DeepSpeed's estimator adds a gathered
//! FP32 copy of the largest layer, counts FP32 gradients inside 16 B of sharded state, multiplies
//! CPU memory by 1.5 and prints GiB labelled "GB"; some calculators count only Adam's 8 B of moments.

use crate::memory::line::{
    params_text, state_line as line, to_u64, why_optimizer, Line, StateLines, WHY_GRADS,
    WHY_WEIGHTS,
};
use crate::memory::options::{
    Convention, Dtype, Mode, Offload, Optimizer, OptimizerStep, Precision,
};
use crate::memory::recipe::recipe;
use crate::memory::setup::{MemoryError, ModelSpec, Setup};
use crate::memory::states::deepspeed::deepspeed_states;
use crate::memory::states::lora::lora_params;
use crate::memory::states::low_precision::low_precision_states;
use crate::numbers::{format_bytes, format_count};

/// Model states of `setup` under its convention.
pub fn model_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let trains_fully = setup.mode == Mode::Train;
    if trains_fully
        && setup.convention != Convention::Bitbudget
        && setup.precision != Precision::Mixed
    {
        notes.push(format!(
            "the {} convention fixes the bytes per parameter of mixed precision; the {} recipe applies to bitbudget's",
            setup.convention, setup.precision
        ));
    }
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
    /// Bytes per element of the tensors the optimizer steps (the master copy, or the parameters).
    stepped_bytes: u64,
}

impl PerParam {
    fn fixed(w: u64, g: u64, o: u64, text: &str) -> Self {
        PerParam {
            weight_bits: w * 8,
            grad_bytes: g,
            optimizer: Box::new(move |n| n as u128 * o as u128),
            optimizer_text: text.into(),
            stepped_bytes: 4,
        }
    }

    /// No master copy: weights of `weight_bits`, gradients of `grad_bytes`, moments of
    /// `moment_bytes` (the parameters' dtype, as `torch.optim` keeps them).
    fn fixed_moments(weight_bits: u64, grad_bytes: u64, opt: Optimizer, moment_bytes: u64) -> Self {
        PerParam {
            weight_bits,
            grad_bytes,
            optimizer: Box::new(move |n| moments_bytes(opt, n, moment_bytes)),
            optimizer_text: moments_text(opt, moment_bytes),
            stepped_bytes: weight_bits.div_ceil(8),
        }
    }
}

/// Optimizer state bytes for `n` parameters with moments of `moment` bytes; `master` adds an FP32
/// master copy (mixed precision). `torch.optim` keeps the moments in the parameters' dtype, so FP32
/// wherever the parameters or the master copy are, unless BF16 moments are chosen.
fn optimizer_bytes(opt: Optimizer, n: u64, master: bool, moment: u64) -> u128 {
    moments_bytes(opt, n, moment) + if master { 4 * n as u128 } else { 0 }
}

/// Adam's or SGD's moments for `n` parameters of `elem` bytes (`torch.zeros_like(p)` in
/// `torch.optim`), or bitsandbytes' 8-bit states plus an FP32 absmax per 256-element block.
pub(super) fn moments_bytes(opt: Optimizer, n: u64, elem: u64) -> u128 {
    let (n, e) = (n as u128, elem as u128);
    match opt {
        Optimizer::Adamw => 2 * e * n,
        Optimizer::Adamw8bit => 2 * n + 2 * 4 * n.div_ceil(256),
        Optimizer::SgdMomentum => e * n,
        Optimizer::Sgd => 0,
    }
}

fn optimizer_text(opt: Optimizer, master: bool, moment: u64) -> String {
    let states = moments_text(opt, moment);
    if master {
        format!("4 B FP32 master + {states}")
    } else {
        states
    }
}

pub(super) fn moments_text(opt: Optimizer, elem: u64) -> String {
    let kind = match elem {
        4 => "FP32",
        _ => "16-bit",
    };
    match opt {
        Optimizer::Adamw => format!("{} B ({kind} m + v)", 2 * elem),
        Optimizer::Adamw8bit => "2 B (8-bit m + v) + FP32 absmax per 256".into(),
        Optimizer::SgdMomentum => format!("{elem} B ({kind} momentum)"),
        Optimizer::Sgd => "0 B".into(),
    }
}

/// What for-each Adam allocates in its step (`torch/optim/adam.py`, `_multi_tensor_adam`:
/// `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`): one temporary per stepped
/// tensor, `n` elements of `elem` bytes. Fused kernels, bitsandbytes' 8-bit Adam and SGD (without
/// weight decay) allocate none; an offloaded optimizer steps on the CPU.
pub(super) fn step_temporaries(setup: &Setup, n: u64, elem: u64, divisor: u64) -> u128 {
    let foreach_adam = setup.optimizer_step == OptimizerStep::Foreach
        && setup.optimizer == Optimizer::Adamw
        && setup.offload == Offload::None;
    if foreach_adam {
        (n as u128 * elem as u128).div_ceil(divisor as u128)
    } else {
        0
    }
}

fn bitbudget_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    match setup.mode {
        Mode::Train => {
            let opt = setup.optimizer;
            if let Some(recipe) = recipe(setup.precision) {
                return low_precision_states(setup, params, &recipe, notes);
            }
            let moment = setup.moments.bytes();
            let per = match setup.precision {
                _ if setup.dtype == Dtype::Fp32 => PerParam::fixed_moments(32, 4, opt, 4),
                Precision::Mixed => PerParam {
                    weight_bits: setup.dtype.bits(),
                    grad_bytes: 2,
                    optimizer: Box::new(move |n| optimizer_bytes(opt, n, true, moment)),
                    optimizer_text: optimizer_text(opt, true, moment),
                    stepped_bytes: 4,
                },
                Precision::Autocast => PerParam::fixed_moments(32, 4, opt, 4),
                Precision::Pure => {
                    let bytes = setup.dtype.bits().div_ceil(8);
                    PerParam::fixed_moments(setup.dtype.bits(), bytes, opt, bytes)
                }
                low => unreachable!("{low} has a recipe"),
            };
            train_states(setup, params, per)
        }
        Mode::Lora | Mode::Qlora => adapter_states(setup, params, notes),
        Mode::Inference => inference_states(setup, params, notes),
    }
}

/// How a per-GPU share is divided: text and divisor.
pub(super) struct Share {
    pub(super) divisor: u64,
    pub(super) text: String,
}

pub(super) fn share(setup: &Setup, sharded: bool) -> Share {
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
            &why_optimizer(setup),
            setup,
        )?,
        trainable: params,
        cpu: 0,
        step_temporaries: to_u64(step_temporaries(
            setup,
            params,
            per.stepped_bytes,
            os.divisor,
        ))?,
    };
    let grad_bucket = setup.arch().map(|a| {
        a.largest_layer_params().div_ceil(setup.tp) as u128 * (per.grad_bytes + accum) as u128
    });
    apply_offload(
        setup,
        &mut lines,
        layer_weight_bytes(setup, per.weight_bits),
        grad_bucket,
    )?;
    Ok(lines)
}

/// Bytes of one layer's weights gathered on a GPU (what ZeRO-Infinity keeps when weights live on
/// the CPU), when the architecture is known.
pub(super) fn layer_weight_bytes(setup: &Setup, weight_bits: u64) -> Option<u128> {
    setup.arch().map(|a| {
        (a.layer_params() as u128 * weight_bits as u128)
            .div_ceil(8)
            .div_ceil(setup.tp as u128)
    })
}

/// Why offloaded gradients leave the GPU, with the sources.
const WHY_GRADS_OFFLOADED: &str = "Offloaded (ZeRO-Offload, Ren et al. 2021, section 4): each FP16 gradient is copied to CPU memory as soon as the backward pass produces it, and the CPU runs the update; the GPU keeps only a bucket in flight, counted here as the largest layer's gradients, as DeepSpeed's estimator does (its 4 B × largest layer = 2 B weights + 2 B gradients).";

/// Moves what `setup.offload` sends to CPU memory: the optimizer states (and the update) and the
/// gradients for any offload, the weights too for [`Offload::All`]. `layer_bytes` is one gathered
/// layer of weights, `grad_bucket` the gradients the GPU keeps in flight (the largest layer's, as
/// DeepSpeed's estimator counts them); unknown sizes (no architecture) count as 0. CPU bytes are
/// what left the GPU.
pub(super) fn apply_offload(
    setup: &Setup,
    lines: &mut StateLines,
    layer_bytes: Option<u128>,
    grad_bucket: Option<u128>,
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
    if lines.gradients.bytes > 0 {
        let all = lines.gradients.bytes;
        let kept = to_u64(grad_bucket.unwrap_or(0).min(all as u128))?;
        lines.cpu = lines.cpu.saturating_add(all);
        lines.gradients = Line {
            bytes: kept,
            formula: format!(
                "largest layer's gradients in flight = {} ({} moved to CPU memory as they are produced)",
                format_bytes(kept, setup.units),
                format_bytes(all, setup.units)
            ),
            why: WHY_GRADS_OFFLOADED.into(),
        };
    }
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

/// QLoRA's NF4 block size (Dettmers et al. 2023, section 3).
const QLORA_BLOCK: u64 = 64;

fn adapter_states(
    setup: &Setup,
    params: u64,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let ModelSpec::Arch { arch, .. } = &setup.model else {
        return Err(MemoryError::AdaptersNeedArchitecture { mode: setup.mode });
    };
    let adapters = lora_params(arch, setup.lora_rank, setup.lora_targets);
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
                "QLoRA stores block linears in NF4 and the rest in BF16: the weights dtype does not apply"
                    .into(),
            );
        }
        (
            crate::quant::nf4::storage_bytes(linear, QLORA_BLOCK, true) + 2 * rest as u128,
            format!(
                "NF4 {:.3} bits × {} linears + 2 B × {} other",
                crate::quant::nf4::bits_per_weight(QLORA_BLOCK as usize, true),
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
    let ab = setup.adapter_dtype.bits().div_ceil(8);
    let weights = (base + (ab * adapters) as u128).div_ceil(ws.divisor as u128);
    let grads = ((ab * adapters) as u128).div_ceil(gs.divisor as u128);
    let optimizer =
        optimizer_bytes(setup.optimizer, adapters, false, 4).div_ceil(os.divisor as u128);
    let a = format!(
        "{} adapter params (rank {})",
        format_count(adapters),
        setup.lora_rank
    );
    let mut lines = StateLines {
        weights: line(
            weights,
            format!("({base_text} + {ab} B × {a}){}", ws.text),
            "Frozen base weights plus small adapter matrices (peft keeps them in FP32 by default).",
            setup,
        )?,
        gradients: line(
            grads,
            format!("{ab} B × {a}{}", gs.text),
            "Only the adapters are trained, so only they get gradients.",
            setup,
        )?,
        optimizer: line(
            optimizer,
            format!(
                "{} × {a}{}",
                optimizer_text(setup.optimizer, false, 4),
                os.text
            ),
            "Optimizer states for the adapters alone (FP32), as in the QLoRA setup.",
            setup,
        )?,
        trainable: adapters,
        cpu: 0,
        step_temporaries: to_u64(step_temporaries(setup, adapters, ab, os.divisor))?,
    };
    let grad_bucket = Some((ab * adapters.div_ceil(arch.layers)) as u128);
    apply_offload(
        setup,
        &mut lines,
        layer_weight_bytes(setup, setup.dtype.bits()),
        grad_bucket,
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
    let plain_bytes = (linear as u128 * bits as u128 + scales).div_ceil(8) + 2 * rest as u128;
    let plain_formula = if rest > 0 {
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
    // llama.cpp file types: the exact per-tensor sum (gguf_mix).
    let (bytes, formula) = match crate::memory::states::gguf_mix::serving_weights(setup, params) {
        Some((b, f)) => (b, format!("{f}{}", ws.text)),
        None => (plain_bytes, plain_formula),
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
        step_temporaries: 0,
    };
    apply_offload(setup, &mut lines, layer_weight_bytes(setup, bits), None)?;
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bit_adam_keeps_a_block_absmax() {
        assert_eq!(
            optimizer_bytes(Optimizer::Adamw8bit, 256, false, 4),
            2 * 256 + 8
        );
        assert_eq!(
            optimizer_bytes(Optimizer::Adamw8bit, 257, true, 4),
            2 * 257 + 16 + 4 * 257
        );
        assert_eq!(optimizer_bytes(Optimizer::Adamw, 1, true, 4), 12);
        assert_eq!(optimizer_bytes(Optimizer::Adamw, 1, true, 2), 8);
    }

    #[test]
    fn the_optimizer_line_says_why_for_its_optimizer_and_recipe() {
        let why = |precision, optimizer| {
            let mut setup = Setup::new(crate::memory::setup::ModelSpec::Params(1_000_000));
            (setup.precision, setup.optimizer) = (precision, optimizer);
            why_optimizer(&setup)
        };
        assert!(why(Precision::Mixed, Optimizer::Adamw).contains("adds an FP32 master copy"));
        assert!(why(Precision::Autocast, Optimizer::Adamw).contains("their own master copy"));
        assert!(why(Precision::Pure, Optimizer::Adamw).contains("no FP32 master copy"));
        assert!(why(Precision::Mixed, Optimizer::Sgd).starts_with("Plain SGD keeps no state"));
        assert!(why(Precision::Pure, Optimizer::Adamw8bit).starts_with("8-bit Adam"));
    }
}
