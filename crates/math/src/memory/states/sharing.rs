//! What every model-state model shares: how a state is divided over the GPUs (tensor, pipeline
//! and ZeRO data parallelism), the optimizer's moments and its step's temporaries, and what CPU
//! offload moves off the GPU. A leaf of `states`, so the default model and the FP8/FP4 recipes'
//! can both use it.

use crate::memory::line::{to_u64, Line, StateLines};
use crate::memory::options::{Offload, Optimizer, OptimizerStep};
use crate::memory::setup::{MemoryError, Setup};
use crate::numbers::{format_bytes, format_count};

/// Adam's or SGD's moments for `n` parameters of `elem` bytes (`torch.zeros_like(p)` in
/// `torch.optim`), or bitsandbytes' 8-bit states plus an FP32 absmax per 256-element block.
pub(crate) fn moments_bytes(opt: Optimizer, n: u64, elem: u64) -> u128 {
    let (n, e) = (n as u128, elem as u128);
    match opt {
        Optimizer::Adamw => 2 * e * n,
        Optimizer::Adamw8bit => 2 * n + 2 * 4 * n.div_ceil(256),
        Optimizer::SgdMomentum => e * n,
        Optimizer::Sgd => 0,
    }
}

pub(crate) fn moments_text(opt: Optimizer, elem: u64) -> String {
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
pub(crate) fn step_temporaries(setup: &Setup, n: u64, elem: u64, share: &Share) -> u128 {
    let foreach_adam = setup.optimizer_step == OptimizerStep::Foreach
        && setup.optimizer == Optimizer::Adamw
        && setup.offload == Offload::None;
    if foreach_adam {
        share.divide(n as u128 * elem as u128)
    } else {
        0
    }
}

/// How a state is divided over the GPUs: by tensor and pipeline parallelism, and by ZeRO over
/// the data- and context-parallel ranks when sharded; an MoE model's routed experts laid out
/// apart (expert parallelism) by expert tensor parallelism, expert parallelism and pipeline
/// stages, and by ZeRO over the expert data-parallel ranks.
pub(crate) struct Share {
    /// The dense (non-expert) parameters' divisor.
    pub divisor: u64,
    /// Its words, " ÷ tp 2 × pp 4 ÷ dp 8 (ZeRO-3)" (empty for 1).
    pub text: String,
    /// With pipeline stages, the heaviest stage's dense parameters × pp over all the dense
    /// parameters (the embedding or output head sits on an end stage): the dense part is scaled
    /// by this ratio before it is divided.
    stage: Option<(u128, u128)>,
    /// The routed experts, when laid out apart from the dense parameters.
    experts: Option<ExpertShare>,
}

/// The routed experts' part of a [`Share`].
struct ExpertShare {
    /// Routed expert parameters and all parameters of the model.
    params: u64,
    of: u64,
    divisor: u64,
    text: String,
}

/// " ÷ a × b ÷ c (ZeRO-3)" from named degrees (those of 1 left out) and the sharded group.
fn divisor_text(model: &[(&str, u64)], sharded: Option<(&str, u64, String)>) -> (u64, String) {
    let kept: Vec<String> = model
        .iter()
        .filter(|(_, n)| *n > 1)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let mut divisor: u64 = model.iter().map(|(_, n)| *n).product();
    let mut parts = Vec::new();
    if !kept.is_empty() {
        parts.push(kept.join(" × "));
    }
    if let Some((name, n, label)) = sharded.filter(|s| s.1 > 1) {
        parts.push(format!("{name} ({label})"));
        divisor *= n;
    }
    let text = if parts.is_empty() {
        String::new()
    } else {
        format!(" ÷ {}", parts.join(" ÷ "))
    };
    (divisor, text)
}

pub(crate) fn share(setup: &Setup, sharded: bool) -> Share {
    let zero = setup.zero.label();
    let group = setup.dp * setup.cp;
    let group_name = match setup.cp {
        1 => format!("dp {}", setup.dp),
        cp => format!("dp {} × cp {cp}", setup.dp),
    };
    let (divisor, text) = divisor_text(
        &[("tp", setup.tp), ("pp", setup.pp)],
        sharded.then(|| (group_name.as_str(), group, zero.to_string())),
    );
    let routed = if setup.experts_apart() {
        setup.arch().map_or(0, |a| a.routed_expert_params())
    } else {
        0
    };
    let stage = setup.arch().filter(|_| setup.pp > 1).map(|a| {
        let dense_total = (a.params() - routed) as u128;
        let dense_stage = a.heaviest_stage_params(setup.pp, routed > 0) as u128;
        (dense_stage * setup.pp as u128, dense_total.max(1))
    });
    let text = match stage {
        Some((num, den)) => format!(
            "{text} (on the heaviest stage, with the embedding or the output layer: ×{:.2})",
            num as f64 / den as f64
        ),
        None => text,
    };
    let experts = setup.experts_apart().then(|| {
        let arch = setup.arch().expect("experts apart need an architecture");
        let edp = setup.expert_dp();
        let edp_name = format!("edp {edp}");
        let (divisor, text) = divisor_text(
            &[
                ("etp", setup.expert_tp()),
                ("ep", setup.ep),
                ("pp", setup.pp),
            ],
            sharded.then(|| (edp_name.as_str(), edp, zero.to_string())),
        );
        ExpertShare {
            params: arch.routed_expert_params(),
            of: arch.params().max(1),
            divisor,
            text,
        }
    });
    Share {
        divisor,
        text,
        stage,
        experts,
    }
}

impl Share {
    /// One GPU's bytes of a state of `bytes` over the whole model: the routed experts' share
    /// (in proportion to their parameters) divided as the experts are, the rest as the dense
    /// layers; each part rounded up.
    pub fn divide(&self, bytes: u128) -> u128 {
        match &self.experts {
            None => self.dense(bytes),
            Some(e) => self.divide_part(bytes, e.of, e.params),
        }
    }

    /// One GPU's share of `bytes` of dense parameters: on the heaviest stage, divided.
    fn dense(&self, bytes: u128) -> u128 {
        let bytes = match self.stage {
            Some((num, den)) => (bytes * num).div_ceil(den),
            None => bytes,
        };
        bytes.div_ceil(self.divisor as u128)
    }

    /// [`Share::divide`] of a state of `bytes` over `count` parameters of which `experts` are
    /// routed experts' (e.g. the block linears an FP8 recipe quantizes).
    pub fn divide_part(&self, bytes: u128, count: u64, experts: u64) -> u128 {
        match &self.experts {
            Some(e) if count > 0 => {
                let experts = bytes * experts.min(count) as u128 / count as u128;
                self.dense(bytes - experts) + experts.div_ceil(e.divisor as u128)
            }
            _ => self.dense(bytes),
        }
    }

    /// "`per` × `count` `what`" and how it is divided: "2 B × 8.03B params ÷ tp 2", or with the
    /// experts apart "2 B × (12.1B dense ÷ tp 2 + 39.1B in experts ÷ ep 8)".
    pub fn of(&self, per: &str, count: u64, what: &str) -> String {
        let experts = self.experts.as_ref().map_or(0, |e| {
            (count as u128 * e.params as u128 / e.of as u128) as u64
        });
        self.of_part(per, count, experts, what)
    }

    /// [`Share::of`] for `count` parameters of which `experts` are routed experts'.
    pub fn of_part(&self, per: &str, count: u64, experts: u64, what: &str) -> String {
        match &self.experts {
            Some(e) if experts > 0 => {
                let experts = experts.min(count);
                format!(
                    "{per} × ({} dense{} + {} in experts{})",
                    format_count(count - experts),
                    self.text,
                    format_count(experts),
                    e.text
                )
            }
            _ => format!("{per} × {} {what}{}", format_count(count), self.text),
        }
    }
}

/// Bytes of one layer's weights gathered on a GPU (what ZeRO-Infinity keeps when weights live on
/// the CPU), when the architecture is known.
pub(crate) fn layer_weight_bytes(setup: &Setup, weight_bits: u64) -> Option<u128> {
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
pub(crate) fn apply_offload(
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
