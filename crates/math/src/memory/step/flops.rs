//! FLOPs of one token through a transformer, forward and backward, counted the way Narayanan et
//! al. 2021 ("Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
//! section 5.1) and Korthikanti et al. 2022 (appendix A) count them:
//!
//! - a multiply-add is 2 FLOPs, so a matmul costs 2 FLOPs per weight per token forward and 4
//!   backward (one product for the input gradient, one for the weight gradient): the 6N of
//!   Kaplan et al. 2020 (section 2.1) and Hoffmann et al. 2022 (Chinchilla);
//! - only matmul weights count: Q, K, V and output projections, the MLP matrices of the experts a
//!   token is routed to (MoE: `active_experts`, not `experts`), the router, and the output head
//!   (a matmul even when tied to the embedding). Embedding and position lookups, norms, biases,
//!   softmax and activations cost no matmul and are not counted;
//! - attention: QKᵀ and AV cost 2·s·(heads·head_dim) FLOPs each per token per layer forward,
//!   4·s·q_width in all, over the **full** s×s score matrix: causal masking is not subtracted
//!   (as in Narayanan et al., Korthikanti et al. and PaLM's appendix B; a causal kernel needs only
//!   about half). The backward pass of attention costs twice its forward.
//!
//! All counts are exact integers (`u128`); nothing is rounded.

use crate::memory::model::arch::{Mlp, ModelArch};
use crate::memory::options::{Mode, Recompute};

/// FLOPs of one token through one model replica, split the way the step-time model uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenFlops {
    /// Forward pass.
    pub forward: u128,
    /// Backward pass (0 for inference).
    pub backward: u128,
    /// Forward work done again in the backward pass by activation recomputation (0 without it).
    pub recompute: u128,
}

impl TokenFlops {
    /// Model FLOPs: forward + backward, without recomputation (the numerator of MFU).
    pub fn model(&self) -> u128 {
        self.forward + self.backward
    }

    /// Hardware FLOPs: model FLOPs plus recomputation (the numerator of HFU).
    pub fn hardware(&self) -> u128 {
        self.model() + self.recompute
    }
}

/// Matmul weights of one block's attention: Q, K, V and output projections.
fn attention_matmul_params(a: &ModelArch) -> u128 {
    let (h, q, kv) = (a.hidden as u128, a.q_width() as u128, a.kv_width() as u128);
    h * (q + 2 * kv) + q * h
}

/// Matmul weights of one expert's MLP (the whole MLP when dense).
fn expert_matmul_params(a: &ModelArch) -> u128 {
    let (h, f) = (a.hidden as u128, a.ffn as u128);
    match a.mlp {
        Mlp::Gelu => 2 * h * f,
        Mlp::Swiglu => 3 * h * f,
    }
}

/// Matmul weights of the MoE router (0 when dense).
fn router_params(a: &ModelArch) -> u128 {
    if a.experts > 1 {
        a.hidden as u128 * a.experts as u128
    } else {
        0
    }
}

/// Matmul weights in one transformer block that a token passes through: attention projections,
/// the routed experts' MLP matrices and the router. Biases and norms are not matmul weights.
pub fn block_matmul_params(a: &ModelArch) -> u128 {
    attention_matmul_params(a)
        + a.active_experts.min(a.experts) as u128 * expert_matmul_params(a)
        + router_params(a)
}

/// Matmul weights the model stores, every expert included, plus the output head: a bound on the
/// model's size computed without overflow (the parameter count proper adds only norms, biases and
/// embeddings, which are never larger than this).
pub fn stored_matmul_params(a: &ModelArch) -> u128 {
    a.layers as u128
        * (attention_matmul_params(a)
            + a.experts as u128 * expert_matmul_params(a)
            + router_params(a))
        + head_matmul_params(a)
}

/// Matmul weights of the output head: vocab × hidden (counted even when tied to the embedding,
/// since the logits are a matmul either way).
pub fn head_matmul_params(a: &ModelArch) -> u128 {
    a.vocab as u128 * a.hidden as u128
}

/// Forward FLOPs of the attention core (QKᵀ and AV) of one token in one layer: 4·s·heads·head_dim,
/// over the full s×s matrix (causal masking not subtracted).
pub fn attention_core_forward(a: &ModelArch, seq: u64) -> u128 {
    4 * seq as u128 * a.q_width() as u128
}

/// Per-token FLOPs of a model known by its architecture.
///
/// - `Train`: forward 2 per matmul weight plus the attention core; backward twice the forward.
/// - `Lora`/`Qlora`: the frozen weights need only input gradients in the backward pass (2 per
///   weight, not 4); the `adapter_params` (all layers) cost 2 forward and 4 backward. QLoRA's
///   NF4 dequantization is elementwise and not counted.
/// - `Inference`: the forward pass only.
///
/// Recomputation: `Full` runs each block's forward again (not the output head); `Selective`
/// runs the attention core's forward again (QKᵀ and AV), or nothing when FlashAttention is on
/// (its backward kernel recomputes the scores itself, and that work is not counted here).
pub fn arch_token_flops(
    a: &ModelArch,
    seq: u64,
    mode: Mode,
    adapter_params: u128,
    recompute: Recompute,
    flash_attention: bool,
) -> TokenFlops {
    // MTP modules: one more block each, their 2h → h projection and their own logits.
    let mtp = a.mtp_modules as u128;
    let layers = a.layers as u128 + mtp;
    let heads = (1 + mtp) * head_matmul_params(a);
    let core = layers * attention_core_forward(a, seq);
    let frozen_or_full =
        layers * block_matmul_params(a) + heads + mtp * 2 * a.hidden as u128 * a.hidden as u128;
    let adapters = match mode {
        Mode::Lora | Mode::Qlora => adapter_params,
        Mode::Train | Mode::Inference => 0,
    };
    let forward = 2 * frozen_or_full + 2 * adapters + core;
    let backward = match mode {
        Mode::Train => 2 * forward,
        Mode::Lora | Mode::Qlora => 2 * frozen_or_full + 4 * adapters + 2 * core,
        Mode::Inference => 0,
    };
    let recompute = match (mode, recompute) {
        (Mode::Inference, _) | (_, Recompute::None) => 0,
        (_, Recompute::Full | Recompute::Layer) => forward - 2 * heads,
        (_, Recompute::Selective) if flash_attention => 0,
        (_, Recompute::Selective) => core,
    };
    TokenFlops {
        forward,
        backward,
        recompute,
    }
}

/// Per-token FLOPs of a model known only by its parameter count: every parameter is treated as
/// a matmul weight and attention is left out (Kaplan et al. 2020's C ≈ 6N). Full recomputation
/// adds one forward (2N); selective recomputation cannot be sized without an architecture and
/// adds nothing.
pub fn params_token_flops(params: u64, mode: Mode, recompute: Recompute) -> TokenFlops {
    let n = params as u128;
    let forward = 2 * n;
    let backward = match mode {
        Mode::Train => 4 * n,
        Mode::Lora | Mode::Qlora => 2 * n,
        Mode::Inference => 0,
    };
    let recompute = match (mode, recompute) {
        (Mode::Inference, _) | (_, Recompute::None | Recompute::Selective) => 0,
        (_, Recompute::Full | Recompute::Layer) => forward,
    };
    TokenFlops {
        forward,
        backward,
        recompute,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::find_model;

    #[test]
    fn a_dense_gelu_block_has_twelve_h_squared_matmul_weights() {
        let a = ModelArch::custom(2, 1024, 16, 16, 4096, 1000, Mlp::Gelu);
        assert_eq!(block_matmul_params(&a), 12 * 1024 * 1024);
    }

    #[test]
    fn moe_counts_only_the_routed_experts_and_the_router() {
        let mixtral = find_model("mixtral-8x7b").unwrap().arch;
        let dense = ModelArch {
            experts: 1,
            active_experts: 1,
            ..mixtral.clone()
        };
        let expert = 3 * 4096u128 * 14336;
        assert_eq!(
            block_matmul_params(&mixtral),
            block_matmul_params(&dense) + expert + 4096 * 8
        );
    }

    #[test]
    fn training_backward_is_twice_the_forward() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let f = arch_token_flops(&a, 4096, Mode::Train, 0, Recompute::None, false);
        assert_eq!(f.backward, 2 * f.forward);
        assert_eq!(f.hardware(), f.model());
    }

    #[test]
    fn lora_skips_the_frozen_weight_gradients() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let full = arch_token_flops(&a, 4096, Mode::Train, 0, Recompute::None, false);
        let lora = arch_token_flops(&a, 4096, Mode::Lora, 0, Recompute::None, false);
        let weights = a.layers as u128 * block_matmul_params(&a) + head_matmul_params(&a);
        assert_eq!(full.backward - lora.backward, 2 * weights);
    }

    #[test]
    fn selective_recompute_is_free_with_flash_attention_and_one_core_forward_without() {
        let a = find_model("gpt-3-175b").unwrap().arch;
        let with_fa = arch_token_flops(&a, 2048, Mode::Train, 0, Recompute::Selective, true);
        assert_eq!(with_fa.recompute, 0);
        let without = arch_token_flops(&a, 2048, Mode::Train, 0, Recompute::Selective, false);
        assert_eq!(without.recompute, 96 * 4 * 2048 * 12288);
    }

    #[test]
    fn inference_is_one_forward_pass() {
        let f = params_token_flops(7_000_000_000, Mode::Inference, Recompute::Full);
        assert_eq!((f.forward, f.backward, f.recompute), (14_000_000_000, 0, 0));
    }
}
