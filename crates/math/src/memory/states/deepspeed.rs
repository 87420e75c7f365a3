//! A reproduction of DeepSpeed's model-state estimators, with their CPU memory per node.

use crate::memory::line::{
    params_text, state_line as line, why_optimizer, StateLines, WHY_GRADS, WHY_WEIGHTS,
};
use crate::memory::options::Offload;
use crate::memory::setup::{MemoryError, Setup};
use serde::Serialize;

/// DeepSpeed's `estimate_zero2_model_states_mem_needs` and `estimate_zero3_model_states_mem_needs`
/// (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py; zero_init=1, buffer factor 1.5),
/// reproduced with Python's float arithmetic. CPU memory is per node.
pub(crate) fn deepspeed_states(
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
        optimizer: line(o.0, format!("{} ({pt})", o.1), &why_optimizer(setup), setup)?,
        trainable: params,
        cpu: est.cpu,
        step_temporaries: 0,
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
}
