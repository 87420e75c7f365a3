//! Per-GPU memory of a job: model states (weights, gradients, optimizer), activations, KV cache and
//! overhead, each with its formula filled in and one sentence of why.

use super::activation::activations::{
    inference_bytes, output_layer_bytes, per_layer_bytes, ActivationShape, SavedInputs,
};
use super::activation::hf_activations::{hf_activations, Adapters, HfShape};
use super::activation::phases::{peak, phases, Phase, PhaseInputs, PhaseParts};
pub use super::line::Line;
use super::line::{to_u64, StateLines};
use super::model::arch::ModelArch;
use super::options::{Convention, Dtype, Mode, Precision, Recompute};
use super::recipe::{recipe, Recipe};
use super::serving::kv_cache::KvCache;
use super::setup::{MemoryError, ModelSpec, Setup};
use super::states::megatron::megatron_theory;
use super::states::model_states::model_states;
use crate::numbers::{format_bytes, Units};
use serde::Serialize;

/// The estimate for one setup.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Breakdown {
    /// Total parameters of the model.
    pub params: u64,
    /// Parameters that receive gradients (all for training, the adapters for LoRA, 0 for inference).
    pub trainable_params: u64,
    /// Weights on each GPU.
    pub weights: Line,
    /// Gradients on each GPU.
    pub gradients: Line,
    /// Optimizer states (and FP32 master weights) on each GPU.
    pub optimizer: Line,
    /// Stored activations on each GPU.
    pub activations: Line,
    /// KV cache on each GPU (inference).
    pub kv_cache: Line,
    /// CUDA context and allocator reserve.
    pub overhead: Line,
    /// Weights + gradients + optimizer on each GPU.
    pub model_states: u64,
    /// Everything on each GPU at the peak: the largest phase plus the overhead.
    pub total: u64,
    /// What is alive at each phase's peak (forward, backward, optimizer step; forward alone for
    /// serving), overhead not included.
    pub phases: Vec<PhaseParts>,
    /// The phase that sets the peak.
    pub peak_phase: Phase,
    /// Bytes held in CPU memory for each GPU by offloading (or, for DeepSpeed's convention, its
    /// CPU estimate per node).
    pub cpu_offload: u64,
    /// GPUs in the job (dp × tp × pp).
    pub gpus: u64,
    /// Remarks: what was assumed or left out.
    pub notes: Vec<String>,
}

impl Breakdown {
    /// The parts alive at the peak (the phase named by `peak_phase`).
    pub fn peak_parts(&self) -> Option<&PhaseParts> {
        self.phases.iter().find(|p| p.phase == self.peak_phase)
    }

    /// The breakdown at its peak moment: each line holds what is alive when the peak phase peaks
    /// (gradients that `zero_grad(set_to_none=True)` freed count 0 before the backward pass
    /// makes them; activations are gone at the optimizer step; the step's temporaries join the
    /// optimizer line), so the lines add up to `total`. A changed line's formula says so, with
    /// the part's largest size after it (bytes in `units`).
    pub fn at_peak(&self, units: Units) -> Breakdown {
        let mut b = self.clone();
        let Some(p) = self.peak_parts().cloned() else {
            return b;
        };
        let phase = p.phase.label();
        let set = |line: &mut Line, bytes: u64, what: &str| {
            if line.bytes != bytes {
                line.formula = format!(
                    "{} at the {phase}'s peak ({what}); its largest: {}",
                    format_bytes(bytes, units),
                    line.formula
                );
                line.bytes = bytes;
            }
        };
        set(&mut b.weights, p.weights, "weights");
        set(
            &mut b.gradients,
            p.gradients,
            "gradients are freed between steps until the backward pass makes them",
        );
        set(
            &mut b.optimizer,
            p.optimizer.saturating_add(p.step_temporaries),
            "with the optimizer step's temporaries",
        );
        set(
            &mut b.activations,
            p.activations,
            "what is still saved or working at that moment",
        );
        set(&mut b.kv_cache, p.kv_cache, "KV cache");
        b
    }
}

/// Computes the per-GPU breakdown of `setup`.
pub fn estimate(setup: &Setup) -> Result<Breakdown, MemoryError> {
    setup.validate()?;
    let mut notes = Vec::new();
    let (params, arch) = match &setup.model {
        ModelSpec::Arch { arch, .. } => (arch.params(), Some(arch.as_ref())),
        ModelSpec::Params(n) => (*n, None),
    };
    let states = model_states(setup, params, &mut notes)?;
    let ((activations, work), kv_cache) = match arch {
        Some(a) => (activation_line(setup, a, &mut notes)?, kv_line(setup, a)?),
        None => {
            notes.push("only a parameter count was given: activations and KV cache need an architecture and are 0 here".into());
            (
                (zero_line("needs an architecture"), Work::default()),
                zero_line("needs an architecture"),
            )
        }
    };
    let overhead = Line {
        bytes: setup.overhead_bytes,
        formula: format!("{} (editable)", format_bytes(setup.overhead_bytes, setup.units)),
        why: "CUDA context, kernels and the caching allocator's reserve: memory no tensor accounts for.".into(),
    };
    if let Some(a) = arch {
        if setup.seq > a.max_seq {
            notes.push(format!(
                "sequence {} is longer than the model's trained context of {}",
                setup.seq, a.max_seq
            ));
        }
    }
    let StateLines {
        weights,
        gradients,
        optimizer,
        trainable,
        cpu,
        step_temporaries,
    } = states;
    let model_states = checked_sum(&[weights.bytes, gradients.bytes, optimizer.bytes])?;
    // Checked here so that the phases' saturating sums cannot saturate.
    checked_sum(&[
        model_states,
        activations.bytes,
        kv_cache.bytes,
        overhead.bytes,
        step_temporaries,
    ])?;
    let phases = phases(&PhaseInputs {
        weights: weights.bytes,
        gradients: gradients.bytes,
        optimizer: optimizer.bytes,
        stored: work.stored,
        forward_work: work.forward,
        backward_work: work.backward,
        step_temporaries,
        kv_cache: kv_cache.bytes,
        gradients_persist: gradients_persist(setup),
        training: setup.mode != Mode::Inference,
    });
    let top = peak(&phases).expect("at least the forward phase");
    let (peak_phase, total) = (top.phase, top.total + overhead.bytes);
    Ok(Breakdown {
        params,
        trainable_params: trainable,
        weights,
        gradients,
        optimizer,
        activations,
        kv_cache,
        overhead,
        model_states,
        total,
        phases,
        peak_phase,
        cpu_offload: cpu,
        gpus: setup.gpus(),
        notes,
    })
}

fn zero_line(why: &str) -> Line {
    Line {
        bytes: 0,
        formula: "0".into(),
        why: why.into(),
    }
}

fn checked_sum(parts: &[u64]) -> Result<u64, MemoryError> {
    to_u64(parts.iter().map(|p| *p as u128).sum())
}

/// Activation bytes by moment: saved for the backward pass, and the working tensors at the forward
/// and backward passes' peaks.
#[derive(Clone, Copy, Debug, Default)]
struct Work {
    stored: u64,
    forward: u64,
    backward: u64,
}

/// Whether gradients stay allocated through the forward pass: persistent gradient buffers in the
/// mixed recipe (Megatron-LM, DeepSpeed), DDP's buckets wherever gradients are all-reduced across
/// ranks (the data- and context-parallel ones together), or an accumulation buffer. Plain PyTorch
/// frees them with `zero_grad(set_to_none=True)`, the default since PyTorch 2.0, and so does FSDP
/// (ZeRO-2 and -3 as `SHARD_GRAD_OP` and `FULL_SHARD`): its reduce-scattered shards are the
/// `.grad`s, with no bucket behind them. (Gradient accumulation, a step-time option here, keeps
/// FSDP's shards through the later micro-batches' forward passes: not counted.)
fn gradients_persist(setup: &Setup) -> bool {
    let ddp_buckets = setup.dp * setup.cp > 1 && setup.zero.0 < 2;
    fused_kernels(setup) || setup.fp32_grad_accum || ddp_buckets
}

/// Whether the recipe runs Megatron-style fused kernels and persistent buffers (mixed precision
/// and the FP8/FP4 recipes) rather than Transformers' tensors (autocast, pure).
fn fused_kernels(setup: &Setup) -> bool {
    setup.precision == Precision::Mixed || setup.precision.is_low()
}

/// What the setup's FP8/FP4 recipe saves for the linear layers, in training.
fn saved_inputs(setup: &Setup) -> Option<(Recipe, SavedInputs)> {
    let r = recipe(setup.precision).filter(|_| setup.mode == Mode::Train)?;
    Some((
        r,
        SavedInputs {
            linear: r.saved_input.width(),
            attention_out: r.attention_out_input.width(),
            swiglu_recomputed: r.swiglu_recomputed,
        },
    ))
}

fn activation_line(
    setup: &Setup,
    arch: &ModelArch,
    notes: &mut Vec<String>,
) -> Result<(Line, Work), MemoryError> {
    if setup.convention == Convention::Megatron && setup.mode == Mode::Train {
        let m = megatron_theory(setup, arch);
        let bytes = m.activations.ceil() as u64;
        let line = Line {
            bytes,
            formula: format!(
                "Megatron-LM's formula: {} = {}",
                m.activation_formula,
                format_bytes(bytes, setup.units)
            ),
            why: "Megatron-LM's theoretical_memory_usage.py: Korthikanti et al.'s table 2 for the first pipeline stage with pp micro-batches in flight, the embedding's input and dropout, and the output layer without pipelining; it does not divide by context parallelism.".into(),
        };
        let work = Work {
            stored: bytes,
            forward: 0,
            backward: 0,
        };
        return Ok((line, work));
    }
    let (line, work) = activation_line_of_one_gpu(setup, arch, notes)?;
    if setup.cp == 1 {
        return Ok((line, work));
    }
    Ok((
        Line {
            formula: format!(
                "context parallel: {} tokens ÷ cp {} = {} per GPU; {}",
                setup.seq,
                setup.cp,
                setup.seq / setup.cp,
                line.formula
            ),
            why: format!("{} Context parallelism splits every sequence over {} GPUs (ring attention: each keeps its own chunk's keys and values and passes them round the ring), so each GPU stores the activations of its {} tokens.", line.why, setup.cp, setup.seq / setup.cp),
            ..line
        },
        work,
    ))
}

/// The activation line for the tokens one GPU holds (its chunk of each sequence under context
/// parallelism).
fn activation_line_of_one_gpu(
    setup: &Setup,
    arch: &ModelArch,
    notes: &mut Vec<String>,
) -> Result<(Line, Work), MemoryError> {
    let transformers = setup.mode != Mode::Inference && !fused_kernels(setup);
    if transformers {
        return hf_line(setup, arch);
    }
    let line = megatron_line(setup, arch, notes)?;
    let backward = if setup.recompute == Recompute::Layer && setup.mode != Mode::Inference {
        // One layer at a time is recomputed with all of its activations.
        let shape = activation_shape(setup, arch);
        let all = ActivationShape {
            recompute: Recompute::None,
            ..shape
        };
        to_u64(per_layer_bytes(&all).0)?
    } else {
        0
    };
    let work = Work {
        stored: line.bytes,
        forward: 0,
        backward,
    };
    let line = if backward > 0 {
        Line {
            bytes: line.bytes.saturating_add(backward),
            formula: format!(
                "{} + one layer recomputed in the backward pass {}",
                line.formula,
                format_bytes(backward, setup.units)
            ),
            why: line.why,
        }
    } else {
        line
    };
    Ok((line, work))
}

fn activation_shape<'a>(setup: &Setup, arch: &'a ModelArch) -> ActivationShape<'a> {
    ActivationShape {
        arch,
        batch: setup.batch,
        seq: setup.seq / setup.cp,
        tp: setup.tp,
        sequence_parallel: setup.sequence_parallel,
        recompute: setup.recompute,
        flash_attention: setup.flash_attention,
        elem_bytes: if setup.dtype == Dtype::Fp32 { 4 } else { 2 },
        saved: saved_inputs(setup).map(|(_, saved)| saved),
        expert_load_percent: setup.expert_load_percent,
    }
}

/// Transformers' tensors (the autocast and pure recipes), with peft's adapters.
fn hf_line(setup: &Setup, arch: &ModelArch) -> Result<(Line, Work), MemoryError> {
    let adapters = matches!(setup.mode, Mode::Lora | Mode::Qlora).then_some(Adapters {
        targets: setup.lora_targets,
        elem_bytes: setup.adapter_dtype.bits().div_ceil(8),
        dropout: setup.lora_dropout,
    });
    let w = hf_activations(&HfShape {
        arch,
        batch: setup.batch,
        seq: setup.seq / setup.cp,
        tp: setup.tp,
        recompute: setup.recompute,
        sdpa: setup.flash_attention,
        autocast: setup.precision == Precision::Autocast,
        elem_bytes: if setup.dtype == Dtype::Fp32 { 4 } else { 2 },
        adapters,
    });
    let work = Work {
        stored: to_u64(w.stored)?,
        forward: to_u64(w.forward)?,
        backward: to_u64(w.backward)?,
    };
    let bytes = work.stored.saturating_add(work.forward.max(work.backward));
    let u = setup.units;
    Ok((
        Line {
            bytes,
            formula: format!(
                "{} saved + {} working (largest of forward {} and backward {}) = {}",
                format_bytes(work.stored, u),
                format_bytes(work.forward.max(work.backward), u),
                format_bytes(work.forward, u),
                format_bytes(work.backward, u),
                format_bytes(bytes, u)
            ),
            why: format!("{}.", w.text),
        },
        work,
    ))
}

/// Korthikanti et al.'s tensors (the mixed recipe and serving).
fn megatron_line(
    setup: &Setup,
    arch: &ModelArch,
    notes: &mut Vec<String>,
) -> Result<Line, MemoryError> {
    let shape = activation_shape(setup, arch);
    let u = setup.units;
    if setup.mode == Mode::Inference {
        let (bytes, text) = inference_bytes(&shape);
        let bytes = to_u64(bytes)?;
        return Ok(Line {
            bytes,
            formula: format!("{text} = {}", format_bytes(bytes, u)),
            why: "A forward pass needs working buffers for one layer at a time; nothing is kept for a backward pass.".into(),
        });
    }
    let (layer, text) = per_layer_bytes(&shape);
    // NVFP4 keeps its last blocks in BF16: those save 16-bit inputs.
    let (layers_text, layer_sum) = match saved_inputs(setup) {
        Some((r, _)) if r.bf16_blocks(arch.layers) > 0 => {
            let kept = r.bf16_blocks(arch.layers);
            let bf16 = per_layer_bytes(&ActivationShape {
                saved: None,
                ..shape
            })
            .0;
            (
                format!(
                    "{} {} layers × {} + {kept} BF16 layers × {}",
                    arch.layers - kept,
                    r.saved_input.label(),
                    format_bytes(to_u64(layer)?, u),
                    format_bytes(to_u64(bf16)?, u)
                ),
                layer * (arch.layers - kept) as u128 + bf16 * kept as u128,
            )
        }
        Some((r, _)) => (
            format!(
                "{} layers × {} per layer (linear inputs saved as {})",
                arch.layers,
                format_bytes(to_u64(layer)?, u),
                r.saved_input.label()
            ),
            layer * arch.layers as u128,
        ),
        None => (
            format!(
                "{} layers × {} per layer",
                arch.layers,
                format_bytes(to_u64(layer)?, u)
            ),
            layer * arch.layers as u128,
        ),
    };
    // With a 1F1B pipeline the first stage holds pp micro-batches of L/pp layers: L layers' worth.
    let output = if setup.pp == 1 {
        output_layer_bytes(&shape)
    } else {
        0
    };
    // MTP modules (on the last stage: counted without a pipeline): each a block, the inputs of
    // its two norms and of its 2h → h projection (4 × s·b·h elements), and its own logits.
    let mtp = if setup.pp == 1 {
        arch.mtp_modules as u128
    } else {
        0
    };
    let hidden_share = arch.hidden / if shape.sequence_parallel { shape.tp } else { 1 };
    let projection_inputs =
        4 * (shape.batch * shape.seq * hidden_share) as u128 * shape.elem_bytes as u128;
    let mtp_bytes = mtp * (layer + projection_inputs + output);
    let layers_text = if mtp > 0 {
        format!(
            "{layers_text} + {mtp} MTP module{} × ({layer_text_mtp} block + norms and projection inputs + its logits)",
            if mtp == 1 { "" } else { "s" },
            layer_text_mtp = format_bytes(to_u64(layer)?, u)
        )
    } else {
        layers_text
    };
    if arch.mtp_modules > 0 && setup.pp > 1 {
        notes.push(format!("multi-token prediction: the {} MTP module{} and {} logits sit on the last pipeline stage, which holds one micro-batch in flight: the first stage stays the fuller one", arch.mtp_modules, if arch.mtp_modules == 1 { "" } else { "s" }, if arch.mtp_modules == 1 { "its" } else { "their" }));
    }
    if setup.pp > 1 {
        notes.push("pipeline parallel: the first stage holds activations of pp in-flight micro-batches (1F1B), L layers' worth; the output layer's logits live on the last stage and are not counted".into());
    }
    // Interleaved 1F1B keeps more micro-batches in flight on the first stage: 1 + (p − 1)/(p·v)
    // times the plain schedule's (Megatron-LM's theoretical_memory_usage.py).
    let (p, v) = (setup.pp as u128, setup.vpp as u128);
    let layer_sum = match setup.vpp {
        1 => layer_sum,
        _ => (layer_sum * (p * v + p - 1)).div_ceil(p * v),
    };
    let interleaving = match setup.vpp {
        1 => String::new(),
        v => format!(
            " × (1 + (p − 1)/(p·v)) = {:.3} for {v} virtual stages (interleaved 1F1B)",
            1.0 + (setup.pp - 1) as f64 / (setup.pp * v) as f64
        ),
    };
    let bytes = to_u64(layer_sum + output + mtp_bytes)?;
    let layer_text = format_bytes(to_u64(layer)?, u);
    let (formula, why) = if setup.pp > 1 {
        let stage_layers = arch.layers.div_ceil(setup.pp);
        (
            format!(
                "first pipeline stage: {pp} micro-batches in flight (1F1B) × {stage_layers} layers per stage × {layer_text} per layer [{text}] ≈ {} layers × {layer_text}{interleaving} = {}",
                arch.layers,
                format_bytes(bytes, u),
                pp = setup.pp,
            ),
            format!("The backward pass needs each layer's inputs from the forward pass. With pipeline parallelism each stage holds only its {stage_layers} of the {} layers, but the 1F1B schedule (Narayanan et al. 2021) starts {pp} micro-batches on the first stage before the first backward pass frees one, so that stage keeps {pp} micro-batches × {stage_layers} layers: as much as all {} layers of one micro-batch. The output layer's logits live on the last stage and are not counted.", arch.layers, arch.layers, pp = setup.pp),
        )
    } else {
        (
            format!(
                "{layers_text} [{text}] + {} output layer = {}",
                format_bytes(to_u64(output)?, u),
                format_bytes(bytes, u)
            ),
            "The backward pass needs each layer's inputs from the forward pass, so they stay in memory until it runs.".to_string(),
        )
    };
    Ok(Line {
        bytes,
        formula,
        why,
    })
}

fn kv_line(setup: &Setup, arch: &ModelArch) -> Result<Line, MemoryError> {
    if setup.mode != Mode::Inference {
        return Ok(zero_line(
            "Training processes whole sequences at once; no KV cache is kept.",
        ));
    }
    let kv = KvCache {
        arch,
        seq: setup.seq,
        batch: setup.batch,
        kv_bits: setup.kv_dtype.bits(),
        tp: setup.tp,
        pp: setup.pp,
    };
    let bytes = to_u64(kv.bytes())?;
    Ok(Line {
        bytes,
        formula: format!("{} = {}", kv.formula(), format_bytes(bytes, setup.units)),
        why: "Each generated token attends to the keys and values of every earlier token, so they are cached instead of recomputed.".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::find_model;
    use crate::memory::options::{OptimizerStep, ZeroStage};

    /// Pure BF16 with for-each AdamW: the peak is the optimizer step, where the activations are
    /// gone and the step's temporaries join the optimizer line; the lines then add up to the total.
    #[test]
    fn at_the_peak_the_lines_add_up_to_the_total() {
        let m = find_model("llama-3-8b").unwrap();
        let mut s = Setup::new(ModelSpec::preset(m.id).unwrap());
        s.precision = Precision::Pure;
        s.optimizer_step = OptimizerStep::Foreach;
        s.flash_attention = true;
        let b = estimate(&s).unwrap();
        let lines = [
            &b.weights,
            &b.gradients,
            &b.optimizer,
            &b.activations,
            &b.kv_cache,
            &b.overhead,
        ];
        assert_ne!(lines.iter().map(|l| l.bytes).sum::<u64>(), b.total);
        let p = b.at_peak(Units::Gb);
        assert_eq!(p.peak_phase, Phase::OptimizerStep);
        assert_eq!(p.activations.bytes, 0);
        assert_eq!(
            p.optimizer.bytes,
            b.optimizer.bytes + b.weights.bytes,
            "the moments plus a temporary the size of the 16-bit parameters"
        );
        let sum: u64 = [
            &p.weights,
            &p.gradients,
            &p.optimizer,
            &p.activations,
            &p.kv_cache,
            &p.overhead,
        ]
        .iter()
        .map(|l| l.bytes)
        .sum();
        assert_eq!(sum, b.total);
        assert!(
            p.optimizer.formula.contains("optimizer step's peak"),
            "{}",
            p.optimizer.formula
        );
    }

    /// Gradients in the forward pass: DDP's buckets keep them between steps, FSDP's shards
    /// (ZeRO-2 and -3 under autocast) are freed by `zero_grad(set_to_none=True)`.
    #[test]
    fn ddp_keeps_its_gradient_buckets_and_fsdp_frees_its_shards() {
        let m = find_model("llama-3-8b").unwrap();
        let forward_gradients = |zero: u8| {
            let mut s = Setup::new(ModelSpec::preset(m.id).unwrap());
            s.precision = Precision::Autocast;
            s.dp = 8;
            s.zero = ZeroStage(zero);
            let b = estimate(&s).unwrap();
            let forward = b.phases.iter().find(|p| p.phase == Phase::Forward).unwrap();
            (forward.gradients, b.gradients.bytes)
        };
        for zero in [0, 1] {
            let (forward, gradients) = forward_gradients(zero);
            assert!(gradients > 0 && forward == gradients, "ZeRO-{zero}");
        }
        for zero in [2, 3] {
            assert_eq!(forward_gradients(zero).0, 0, "ZeRO-{zero}");
        }
    }
}
