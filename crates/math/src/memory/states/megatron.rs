//! Megatron-LM's theoretical memory (`--convention megatron`): its
//! `compute_weight_and_optimizer_memory` and `compute_activation_memory` (with sequence parallelism
//! and selective recomputation) or `compute_activation_memory_without_sp`, for the same arguments,
//! as `megatron/training/theoretical_memory_usage.py` computes them at NVIDIA/Megatron-LM commit
//! d98e8a64ddf34856e74b24714e3bedb2f5a39553 (the file last changed in 1bcb3b9e, 2026-06-15).
//!
//! Its arguments from bitbudget's: `kv_channels` = head width, `num_query_groups` = KV heads,
//! `swiglu` from the MLP, `ffn_hidden_size` = the dense blocks' width, `moe_ffn_hidden_size` =
//! the experts', shared experts as one `moe_shared_expert_intermediate_size` of their total width,
//! `moe_layer_freq` with the leading dense blocks, MLA's ranks and head widths, RMSNorm or
//! LayerNorm, `padded_vocab_size` = the vocabulary rounded up to a multiple of 128 × tp
//! (`--make-vocab-size-divisible-by 128`), `add_bias_linear` from the MLP biases,
//! `use_distributed_optimizer` = ZeRO 1 or above, `virtual_pipeline_model_parallel_size` = vpp
//! (none for 1), no multi-token prediction. It assumes BF16 parameters, FP32 main gradients, FP32 main parameters and
//! FP32 Adam states, counts the most loaded (first) pipeline stage, and does not divide by
//! context parallelism.

use crate::memory::model::arch::{Mlp, ModelArch, Norm};
use crate::memory::setup::Setup;

/// Megatron's figures for one setup, in bytes (floating point, as Megatron computes them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MegatronTheory {
    /// Parameters on the most loaded shard held by tensor parallelism or replicated (dense).
    pub dense_params: f64,
    /// Routed-expert parameters on the most loaded shard.
    pub expert_params: f64,
    /// The data-parallel degree the dense optimizer states are divided by (1 without the
    /// distributed optimizer).
    pub dense_dp: f64,
    /// The expert data-parallel degree the experts' optimizer states are divided by.
    pub expert_dp: f64,
    /// `compute_weight_and_optimizer_memory`.
    pub weight_and_optimizer: f64,
    /// The activation memory of the first pipeline stage.
    pub activations: f64,
    /// Which activation formula applied.
    pub activation_formula: &'static str,
}

/// `--make-vocab-size-divisible-by`'s default.
const VOCAB_MULTIPLE: u64 = 128;

/// Megatron-LM's theoretical memory of `setup`'s architecture and layout.
pub fn megatron_theory(setup: &Setup, a: &ModelArch) -> MegatronTheory {
    let f = |n: u64| n as f64;
    let (h, tp, pp) = (f(a.hidden), f(setup.tp), f(setup.pp));
    let gated = if a.mlp == Mlp::Swiglu { 1.5 } else { 1.0 };
    let norm_size = if a.norm == Norm::RmsNorm { 1.0 } else { 2.0 };
    let moe = a.experts > 1;
    let (dense_layers, moe_layers) = if moe {
        let dense = a.dense_layers.min(a.layers);
        (f(dense), f(a.layers - dense))
    } else {
        (f(a.layers), 0.0)
    };
    let ffn = ffn_hidden_size(a);
    let attention = match a.mla {
        Some(m) => {
            let heads = f(a.heads);
            let q_head = f(m.qk_nope_head_dim + m.qk_rope_head_dim);
            let q = if m.q_lora_rank == 0 {
                h * heads * q_head
            } else {
                f(m.q_lora_rank) * (h + heads * q_head + norm_size)
            };
            q + f(m.kv_lora_rank) * (h + heads * f(m.qk_nope_head_dim + m.v_head_dim) + norm_size)
                + h * f(m.qk_rope_head_dim)
                + heads * f(m.v_head_dim) * h
        }
        None => {
            let q_ratio = f(a.head_dim * a.heads) / h;
            2.0 * h * h * ((1.0 + f(a.kv_heads) / f(a.heads)) * q_ratio)
        }
    };
    let dense_mlp = 2.0 * h * f(ffn) * gated;
    let shared = 2.0 * h * f(a.shared_experts * a.ffn) * gated;
    let routed = if moe {
        2.0 * h * f(a.ffn) * f(a.experts) * gated
    } else {
        0.0
    };
    let layernorm = 2.0 * h * norm_size;
    let router = if moe {
        h * f(a.experts) + if a.mlp_bias { f(a.experts) } else { 0.0 }
    } else {
        0.0
    };
    let final_norm = norm_size * h;
    let padded_vocab = f(a.vocab.div_ceil(VOCAB_MULTIPLE * setup.tp) * VOCAB_MULTIPLE * setup.tp);
    let embedding = h * padded_vocab;
    let tp_sharded = (attention + dense_mlp) * dense_layers + (attention + shared) * moe_layers;
    let replicated = layernorm * dense_layers + (layernorm + router) * moe_layers + final_norm;
    let expert_sharded = routed * moe_layers;
    // `--mtp-num-layers`: blocks of the last block's kind, all on the most loaded shard.
    let mtp = f(a.mtp_modules);
    let (mtp_tp_sharded, mtp_replicated, mtp_expert_sharded) = if moe {
        (
            (attention + shared) * mtp,
            (layernorm + router) * mtp,
            routed * mtp,
        )
    } else {
        ((attention + dense_mlp) * mtp, layernorm * mtp, 0.0)
    };
    let (etp, ep) = if setup.experts_apart() {
        (f(setup.expert_tp()), f(setup.ep))
    } else {
        (tp, 1.0)
    };
    let mut tp_on_shard = (tp_sharded / pp + mtp_tp_sharded + embedding) / tp;
    let replicated_on_shard = replicated / pp + mtp_replicated;
    let expert_on_shard = (expert_sharded / pp + mtp_expert_sharded) / (etp * ep);
    if !a.tied_embeddings && setup.pp == 1 {
        tp_on_shard += embedding / tp;
    }
    let world = f(setup.gpus());
    let expert_dp = (world / (etp * ep * pp)).floor().max(1.0);
    let distributed = setup.zero.0 >= 1;
    let per_param = |dp: f64| if distributed { 6.0 + 12.0 / dp } else { 18.0 };
    let dense_params = tp_on_shard + replicated_on_shard;
    let weight_and_optimizer =
        dense_params * per_param(f(setup.dp)) + expert_on_shard * per_param(expert_dp);
    let (activations, activation_formula) = activation_memory(setup, a, padded_vocab);
    MegatronTheory {
        dense_params,
        expert_params: expert_on_shard,
        dense_dp: if distributed { f(setup.dp) } else { 1.0 },
        expert_dp: if distributed { expert_dp } else { 1.0 },
        weight_and_optimizer,
        activations,
        activation_formula,
    }
}

/// Megatron's `ffn_hidden_size`: the dense blocks' width (an MoE model's leading dense blocks',
/// else its experts').
fn ffn_hidden_size(a: &ModelArch) -> u64 {
    if a.experts > 1 && a.dense_layers > 0 {
        a.dense_ffn
    } else {
        a.ffn
    }
}

/// `interleaved_schedule_memory_penalty`: 1 + (pp − 1)/(pp × vpp) with virtual stages, else 1.
fn interleaving_penalty(setup: &Setup) -> f64 {
    match setup.vpp {
        1 => 1.0,
        v => 1.0 + (setup.pp - 1) as f64 / (setup.pp * v) as f64,
    }
}

/// `compute_activation_memory` (sequence parallelism and selective recomputation) or
/// `compute_activation_memory_without_sp` (anything else, with its 5% buffer), with pp
/// micro-batches in flight.
fn activation_memory(setup: &Setup, a: &ModelArch, padded_vocab: f64) -> (f64, &'static str) {
    let f = |n: u64| n as f64;
    let (s, b, h, tp, pp) = (
        f(setup.seq),
        f(setup.batch),
        f(a.hidden),
        f(setup.tp),
        f(setup.pp),
    );
    let ffn = f(ffn_hidden_size(a));
    let embedding_input = 8.0 * s * b * pp + s * b * h * pp;
    let with_sp =
        setup.sequence_parallel && setup.recompute == crate::memory::options::Recompute::Selective;
    if with_sp {
        let mut m = (s * b * h * (18.0 + 4.0 * ffn / h) * f(a.layers) + embedding_input)
            * interleaving_penalty(setup);
        if setup.pp == 1 {
            m += s * b * h * 4.0 * (1.0 + padded_vocab / h);
        }
        (
            m / tp,
            "sbh(18 + 4f/h) per layer ÷ tp (sequence parallel, selective recomputation)",
        )
    } else {
        let mut m = (s * b * h * (10.0 + 24.0 / tp) * f(a.layers) + embedding_input)
            * interleaving_penalty(setup);
        if setup.pp == 1 {
            m += (s * b * padded_vocab / tp + s * b * h) * 2.0;
        }
        (
            m * 1.05,
            "sbh(10 + 24/t) per layer, + 5% (no sequence parallelism or selective recomputation)",
        )
    }
}
