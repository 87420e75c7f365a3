//! The phases of a training step (forward, backward, optimizer step) or of serving (the forward
//! pass of a prefill), and what is alive at each one's peak. The job's peak is the largest phase:
//! not every part is at its largest at the same moment (activations are gone when the optimizer
//! steps; gradients that `zero_grad(set_to_none=True)` freed only come back as the activations
//! are released in the backward pass).

use crate::numbers::{format_bytes, Units};
use serde::Serialize;

/// One phase of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The forward pass (for serving, the prefill).
    Forward,
    /// The backward pass.
    Backward,
    /// The optimizer step.
    OptimizerStep,
}

impl Phase {
    /// In words: "forward pass", "backward pass", "optimizer step".
    pub const fn label(self) -> &'static str {
        match self {
            Phase::Forward => "forward pass",
            Phase::Backward => "backward pass",
            Phase::OptimizerStep => "optimizer step",
        }
    }
}

/// Bytes alive on one GPU at the peak of one phase (overhead not included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PhaseParts {
    /// Which phase.
    pub phase: Phase,
    /// Weights.
    pub weights: u64,
    /// Gradients.
    pub gradients: u64,
    /// Optimizer states.
    pub optimizer: u64,
    /// Saved activations plus the pass's working tensors.
    pub activations: u64,
    /// The optimizer step's temporaries (for-each Adam's square-root buffer).
    pub step_temporaries: u64,
    /// KV cache.
    pub kv_cache: u64,
    /// Their sum.
    pub total: u64,
}

/// What the phases are made of, per GPU, in bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseInputs {
    /// Weights.
    pub weights: u64,
    /// Gradients (all of them).
    pub gradients: u64,
    /// Optimizer states.
    pub optimizer: u64,
    /// Activations saved for the backward pass.
    pub stored: u64,
    /// Working tensors at the forward pass's peak.
    pub forward_work: u64,
    /// Working tensors at the backward pass's peak.
    pub backward_work: u64,
    /// The optimizer step's temporaries.
    pub step_temporaries: u64,
    /// KV cache.
    pub kv_cache: u64,
    /// Whether gradients stay allocated between steps (persistent gradient buffers: Megatron and
    /// DeepSpeed, DDP's buckets, gradient accumulation). When not, `zero_grad(set_to_none=True)`
    /// has freed them and the backward pass holds at most the larger of the activations still
    /// saved and the gradients produced so far.
    pub gradients_persist: bool,
    /// Whether there is a backward pass and an optimizer step (training).
    pub training: bool,
}

fn parts(phase: Phase, p: &PhaseInputs, gradients: u64, activations: u64, step: u64) -> PhaseParts {
    let total = [
        p.weights,
        gradients,
        p.optimizer,
        activations,
        step,
        p.kv_cache,
    ]
    .iter()
    .fold(0u64, |a, b| a.saturating_add(*b));
    PhaseParts {
        phase,
        weights: p.weights,
        gradients,
        optimizer: p.optimizer,
        activations,
        step_temporaries: step,
        kv_cache: p.kv_cache,
        total,
    }
}

/// Each phase's parts: forward only for serving; forward, backward and optimizer step for
/// training.
pub fn phases(p: &PhaseInputs) -> Vec<PhaseParts> {
    let kept = if p.gradients_persist { p.gradients } else { 0 };
    let forward_acts = p.stored.saturating_add(p.forward_work);
    let forward = parts(Phase::Forward, p, kept, forward_acts, 0);
    if !p.training {
        return vec![forward];
    }
    let backward_acts = p.stored.saturating_add(p.backward_work);
    let backward = if p.gradients_persist || backward_acts >= p.gradients {
        parts(Phase::Backward, p, kept, backward_acts, 0)
    } else {
        parts(Phase::Backward, p, p.gradients, 0, 0)
    };
    let step = parts(Phase::OptimizerStep, p, p.gradients, 0, p.step_temporaries);
    vec![forward, backward, step]
}

impl PhaseParts {
    /// One sentence on what is alive at this phase's peak, naming the non-zero parts: "The peak
    /// is in the backward pass: weights 16.06 GB + optimizer 32.12 GB + activations 35.45 GB =
    /// 83.63 GB, before overhead." Bytes in `units`, rounded as [`format_bytes`] rounds.
    pub fn sentence(&self, units: Units) -> String {
        let parts: Vec<String> = [
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("optimizer", self.optimizer),
            ("activations", self.activations),
            ("step temporaries", self.step_temporaries),
            ("KV cache", self.kv_cache),
        ]
        .into_iter()
        .filter(|(_, b)| *b > 0)
        .map(|(name, b)| format!("{name} {}", format_bytes(b, units)))
        .collect();
        format!(
            "The peak is in the {}: {} = {}, before overhead.",
            self.phase.label(),
            parts.join(" + "),
            format_bytes(self.total, units)
        )
    }
}

/// The phase with the most bytes alive (the first of equals, so forward wins a tie).
pub fn peak(phases: &[PhaseParts]) -> Option<&PhaseParts> {
    phases
        .iter()
        .reduce(|best, p| if p.total > best.total { p } else { best })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> PhaseInputs {
        PhaseInputs {
            weights: 10,
            gradients: 10,
            optimizer: 20,
            stored: 30,
            step_temporaries: 10,
            training: true,
            ..PhaseInputs::default()
        }
    }

    #[test]
    fn persistent_gradients_and_no_step_temporaries_add_every_part() {
        let p = PhaseInputs {
            gradients_persist: true,
            step_temporaries: 0,
            ..inputs()
        };
        let all = phases(&p);
        assert_eq!(peak(&all).unwrap().total, 10 + 10 + 20 + 30);
        assert_eq!(peak(&all).unwrap().phase, Phase::Forward);
    }

    #[test]
    fn freed_gradients_come_back_as_activations_go_and_the_step_can_set_the_peak() {
        let all = phases(&inputs());
        assert_eq!(all[1].total, 10 + 20 + 30);
        assert_eq!(all[2].total, 10 + 10 + 20 + 10);
        let small_activations = PhaseInputs {
            stored: 5,
            ..inputs()
        };
        let all = phases(&small_activations);
        let top = peak(&all).unwrap();
        assert_eq!(
            (top.phase, top.step_temporaries, top.activations),
            (Phase::OptimizerStep, 10, 0)
        );
    }

    #[test]
    fn the_sentence_names_the_phase_and_only_the_parts_alive() {
        let all = phases(&PhaseInputs {
            stored: 5,
            ..inputs()
        });
        let text = peak(&all).unwrap().sentence(Units::Gb);
        assert!(
            text.starts_with("The peak is in the optimizer step: weights"),
            "{text}"
        );
        assert!(
            text.contains("step temporaries") && !text.contains("activations"),
            "{text}"
        );
    }

    #[test]
    fn serving_has_one_phase() {
        let p = PhaseInputs {
            training: false,
            kv_cache: 7,
            ..inputs()
        };
        assert_eq!(phases(&p).len(), 1);
        assert_eq!(phases(&p)[0].kv_cache, 7);
    }
}
