//! Counting LoRA's trainable parameters: two low-rank matrices per adapted projection
//! (Hu et al. 2021).

use crate::memory::model::arch::{Mlp, ModelArch};
use crate::memory::setup::LoraTargets;

/// Trainable LoRA parameters of the whole model: `rank × (in + out)` per adapted matrix, summed over
/// the `targets` of every layer (every expert's MLP matrices for mixture-of-experts). Exact integer
/// count for setups that pass validation (rank ≤ [`crate::memory::setup::MAX_LORA_RANK`]).
pub fn lora_params(a: &ModelArch, rank: u64, targets: LoraTargets) -> u64 {
    let (h, r, t) = (a.hidden, rank, targets);
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
