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
use crate::memory::model::arch::ModelArch;
use crate::memory::options::{Convention, Dtype, Mode, Optimizer, Precision};
use crate::memory::recipe::recipe;
use crate::memory::setup::{MemoryError, ModelSpec, Setup};
use crate::memory::states::deepspeed::deepspeed_states;
use crate::memory::states::lora::lora_params;
use crate::memory::states::low_precision::low_precision_states;
use crate::memory::states::megatron::megatron_theory;
use crate::memory::states::sharing::{
    apply_offload, layer_weight_bytes, moments_bytes, moments_text, share, step_temporaries,
};
use crate::numbers::format_count;

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
        Convention::Zero
        | Convention::HfMegatron
        | Convention::Deepspeed
        | Convention::Megatron
            if !trains_fully =>
        {
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
        Convention::Megatron => match setup.arch() {
            Some(a) => megatron_states(setup, a),
            None => {
                notes.push("the megatron convention needs an architecture: bitbudget's is used for a parameter count".into());
                bitbudget_states(setup, params, notes)
            }
        },
    }
}

/// Megatron-LM's `compute_weight_and_optimizer_memory`, split as its bytes per parameter are: 2
/// (BF16 weights) + 4 (FP32 main gradients) + 12 (FP32 main parameters and Adam states, divided
/// by the data-parallel degree under the distributed optimizer), for the most loaded shard.
fn megatron_states(setup: &Setup, a: &ModelArch) -> Result<StateLines, MemoryError> {
    let m = megatron_theory(setup, a);
    let n = m.dense_params + m.expert_params;
    let shard = |x: f64| format_count(x.round() as u64);
    let bytes = |x: f64| x.ceil() as u128;
    let (what, optimizer_text) = if m.expert_params > 0.0 {
        (
            format!(
                "({} dense + {} expert params on the most loaded shard)",
                shard(m.dense_params),
                shard(m.expert_params)
            ),
            format!(
                "12 B × {} ÷ dp {} + 12 B × {} ÷ edp {}",
                shard(m.dense_params),
                m.dense_dp,
                shard(m.expert_params),
                m.expert_dp
            ),
        )
    } else {
        (
            format!("{} params on the most loaded shard", shard(n)),
            format!("12 B × {} ÷ dp {}", shard(n), m.dense_dp),
        )
    };
    let why = "Megatron-LM's theoretical_memory_usage.py (NVIDIA/Megatron-LM d98e8a6): the first pipeline stage's transformer layers ÷ tp, the embedding, replicated norms and routers, and the routed experts ÷ (etp × ep), at 18 bytes per parameter, or 6 + 12/dp with the distributed optimizer.";
    Ok(StateLines {
        weights: line(bytes(2.0 * n), format!("2 B BF16 × {what}"), why, setup)?,
        gradients: line(
            bytes(4.0 * n),
            format!("4 B FP32 main gradients × {what}"),
            why,
            setup,
        )?,
        optimizer: line(
            bytes(12.0 * m.dense_params / m.dense_dp + 12.0 * m.expert_params / m.expert_dp),
            format!("{optimizer_text} (FP32 main params + Adam m, v)"),
            why,
            setup,
        )?,
        trainable: setup.arch().map_or(0, |a| a.params()),
        cpu: 0,
        step_temporaries: 0,
    })
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

fn optimizer_text(opt: Optimizer, master: bool, moment: u64) -> String {
    let states = moments_text(opt, moment);
    if master {
        format!("4 B FP32 master + {states}")
    } else {
        states
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

fn train_states(setup: &Setup, params: u64, per: PerParam) -> Result<StateLines, MemoryError> {
    let (ws, gs, os) = (
        share(setup, setup.zero.0 >= 3),
        share(setup, setup.zero.0 >= 2),
        share(setup, setup.zero.0 >= 1),
    );
    let n = params as u128;
    let weights = ws.divide((n * per.weight_bits as u128).div_ceil(8));
    let accum = if setup.fp32_grad_accum { 4 } else { 0 };
    let grads = gs.divide(n * (per.grad_bytes + accum) as u128);
    let optimizer = os.divide((per.optimizer)(params));
    let accum_text = if accum > 0 {
        " + 4 B FP32 accumulation"
    } else {
        ""
    };
    let mut lines = StateLines {
        weights: line(
            weights,
            ws.of(
                &format!("{} B", per.weight_bits as f64 / 8.0),
                params,
                "params",
            ),
            WHY_WEIGHTS,
            setup,
        )?,
        gradients: line(
            grads,
            gs.of(
                &format!("{} B{accum_text}", per.grad_bytes),
                params,
                "params",
            ),
            WHY_GRADS,
            setup,
        )?,
        optimizer: line(
            optimizer,
            os.of(&per.optimizer_text, params, "params"),
            &why_optimizer(setup),
            setup,
        )?,
        trainable: params,
        cpu: 0,
        step_temporaries: to_u64(step_temporaries(setup, params, per.stepped_bytes, &os))?,
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
    let weights = ws.divide(base + (ab * adapters) as u128);
    let grads = gs.divide((ab * adapters) as u128);
    let optimizer = os.divide(optimizer_bytes(setup.optimizer, adapters, false, 4));
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
        step_temporaries: to_u64(step_temporaries(setup, adapters, ab, &os))?,
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
        weights: line(ws.divide(bytes), formula, WHY_WEIGHTS, setup)?,
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
