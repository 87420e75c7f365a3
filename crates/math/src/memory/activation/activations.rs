//! Activation memory, after Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
//! Transformer Models" (section 4). Per layer, with 16-bit activations, micro-batch b, sequence s,
//! hidden h, a heads:
//!
//! - no parallelism: sbh(34 + 5as/h) bytes;
//! - tensor parallel t: sbh(10 + 24/t + 5as/(ht));
//! - tensor + sequence parallel: sbh/t × (34 + 5as/h);
//! - selective recomputation drops the 5as/h term; full recomputation keeps only 2sbh (the
//!   layer input), split over t with sequence parallelism.
//!
//! The paper's 34 is a sum of named tensors; they are kept apart here so grouped-query attention
//! (smaller K and V), a SwiGLU MLP with FFN width f, and MoE routing (k experts per token) change
//! exactly the tensors they change. With MHA and a 4h GELU MLP the sums reproduce 34, 10 and 24.

use crate::memory::model::arch::{Mlp, ModelArch};
use crate::memory::options::Recompute;
use crate::memory::recipe::{width_text, UNIT};

/// The activation inputs of one estimate.
#[derive(Clone, Copy, Debug)]
pub struct ActivationShape<'a> {
    /// The architecture.
    pub arch: &'a ModelArch,
    /// Micro-batch.
    pub batch: u64,
    /// Sequence length.
    pub seq: u64,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// Sequence parallelism.
    pub sequence_parallel: bool,
    /// Recomputation.
    pub recompute: Recompute,
    /// FlashAttention.
    pub flash_attention: bool,
    /// Bytes per activation element (2 for 16-bit, 4 for FP32).
    pub elem_bytes: u64,
    /// What an FP8 or FP4 recipe saves for the linear layers instead of 16-bit inputs (`None`:
    /// the 16-bit tensors).
    pub saved: Option<SavedInputs>,
    /// The routed tokens the busiest GPU's experts receive, in percent of even routing.
    pub expert_load_percent: u64,
}

/// What an FP8 or FP4 recipe saves for the linear layers' backward pass, widths in
/// [`UNIT`]s (1/16384 B) per element, scales included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SavedInputs {
    /// A linear layer's input (QKV, the MLP's first and second matmuls).
    pub linear: u64,
    /// The attention output projection's input.
    pub attention_out: u64,
    /// SwiGLU's gate and up outputs are saved at `linear`'s width and its output recomputed
    /// (DeepSeek-V3); otherwise gate, up and the SiLU output stay 16-bit.
    pub swiglu_recomputed: bool,
}

/// One layer's stored activations per token in [`UNIT`]s, split into the part tensor parallelism
/// replicates (without sequence parallelism) and the part it splits.
struct PerToken {
    replicated: u128,
    split: u128,
    scores: u128,
}

fn per_token(
    a: &ModelArch,
    seq: u64,
    elem_bytes: u64,
    saved: Option<SavedInputs>,
    expert_load_percent: u64,
) -> PerToken {
    let w = (elem_bytes * UNIT) as u128;
    let (lin, out, swiglu_recomputed) = match saved {
        Some(s) => (
            s.linear as u128,
            s.attention_out as u128,
            s.swiglu_recomputed,
        ),
        None => (w, w, false),
    };
    let h = a.hidden as u128;
    // LayerNorm inputs (2 × h), attention input (h) and MLP input (h) — the linear layers'
    // inputs —, two dropout masks (h each, one byte per two of the paper's 16-bit bytes).
    let replicated = 2 * h * w + 2 * h * lin + h * w;
    // Q, K and V (the attention core's inputs), the attention output projection's input.
    let attention =
        (a.q_width() as u128 + 2 * a.kv_width() as u128) * w + a.q_width() as u128 * out;
    let f = a.ffn as u128;
    // GELU: activation input (16-bit) and second matmul input. SwiGLU: gate, up and SiLU output
    // (16-bit) and the product (the second matmul's input); or, recomputing SwiGLU, only gate and
    // up. Each token passes through `active_experts` routed experts and every shared expert.
    // Routed experts at the busiest GPU's load (percent of even routing).
    let per_expert = match (a.mlp, swiglu_recomputed) {
        (Mlp::Gelu, _) => f * w + f * lin,
        (Mlp::Swiglu, false) => 3 * f * w + f * lin,
        (Mlp::Swiglu, true) => 2 * f * lin,
    };
    let load = if a.experts > 1 {
        expert_load_percent as u128
    } else {
        100
    };
    let routed = per_expert * a.active_experts.max(1) as u128 * load / 100;
    let mlp = routed + per_expert * a.shared_experts as u128;
    // MoE: each routed copy of a token is permuted to its expert and saved as the input of the
    // expert's first matmul (Megatron-LM's token dispatcher and grouped MLP), and the router's
    // logits and probabilities are FP32 (4 B each per expert). Even routing is assumed: with
    // expert parallelism a GPU's experts receive, on average, as many token copies as it sends.
    let moe = if a.experts > 1 {
        a.active_experts as u128 * h * lin * load / 100 + 2 * a.experts as u128 * 4 * UNIT as u128
    } else {
        0
    };
    // Softmax output (2as), dropout mask (as), dropout output (2as) per token in 16-bit bytes:
    // 5as bytes, 2.5 elements per head and key.
    let scores = 5 * a.heads as u128 * seq as u128 * w / 2;
    PerToken {
        replicated,
        split: attention + mlp + moe,
        scores,
    }
}

/// Stored activation bytes of one layer on one GPU, and the formula in words.
pub fn per_layer_bytes(shape: &ActivationShape) -> (u128, String) {
    let (s, b, t) = (shape.seq as u128, shape.batch as u128, shape.tp as u128);
    let tokens = s * b;
    let scale = shape.elem_bytes as u128;
    let h = shape.arch.hidden as u128;
    if matches!(shape.recompute, Recompute::Full | Recompute::Layer) {
        let bytes = tokens * h * scale;
        let (bytes, how) = if shape.sequence_parallel {
            (bytes.div_ceil(t), " ÷ tp (sequence parallel)")
        } else {
            (bytes, "")
        };
        return (
            bytes,
            format!(
                "full recomputation keeps each layer's input: {} tokens × {} × hidden {h} × {scale} B{how}",
                shape.seq,
                sequences(shape.batch)
            ),
        );
    }
    let p = per_token(
        shape.arch,
        shape.seq,
        shape.elem_bytes,
        shape.saved,
        shape.expert_load_percent,
    );
    let drop_scores = shape.flash_attention || shape.recompute == Recompute::Selective;
    let scores = if drop_scores { 0 } else { p.scores };
    let per_token_units = if shape.sequence_parallel {
        (p.replicated + p.split + scores).div_ceil(t)
    } else {
        p.replicated + (p.split + scores).div_ceil(t)
    };
    let bytes = (tokens * per_token_units).div_ceil(UNIT as u128);
    let why = match (shape.flash_attention, shape.recompute) {
        (true, _) => "FlashAttention stores no s×s scores",
        (false, Recompute::Selective) => {
            "selective recomputation drops the attention scores (5as/h: 5 × heads × sequence ÷ hidden)"
        }
        _ => "includes the s×s attention scores (5as/h: 5 × heads × sequence ÷ hidden)",
    };
    let tp_text = match (shape.tp, shape.sequence_parallel) {
        (1, _) => String::new(),
        (_, true) => " ÷ tp (sequence parallel)".into(),
        (_, false) => " (norms and dropout replicated across tp)".into(),
    };
    let per_token_text = u64::try_from(per_token_units).map_or_else(|_| "?".into(), width_text);
    (
        bytes,
        format!(
            "{} tokens × {} × {per_token_text} B per token{tp_text}; {why}",
            shape.seq,
            sequences(shape.batch),
        ),
    )
}

/// "1 sequence", "8 sequences": the micro-batch in words.
fn sequences(batch: u64) -> String {
    match batch {
        1 => "1 sequence".into(),
        n => format!("{n} sequences"),
    }
}

/// Activation bytes of the output layer (final norm, logits, cross-entropy): 4·s·b·(h + v)/t in
/// 16-bit units (Korthikanti et al., eq. 4's last term).
pub fn output_layer_bytes(shape: &ActivationShape) -> u128 {
    let a = shape.arch;
    let raw = 4 * shape.seq as u128 * shape.batch as u128 * (a.hidden as u128 + a.vocab as u128);
    (raw * shape.elem_bytes as u128 / 2).div_ceil(shape.tp as u128)
}

/// Peak activation bytes of one inference forward pass (nothing is kept for a backward pass): the
/// hidden-size tensors alive around a layer, the larger of the attention and MLP working sets, the
/// last position's FP32 logits and, past a sliding window, the boolean mask every layer shares.
///
/// Per token (e = the activation bytes): four h-wide tensors (the embedding output the model's
/// forward holds, the layer's residual input, the sum after attention and the normalised MLP
/// input); attention: q, k and v (with eager attention, the s×s scores as below; with SDPA past a
/// sliding window, the additive copy of the mask, e per query-key pair, made inside each SDPA
/// call); a dense SwiGLU MLP: gate activation, up and their product (3·e·f; GELU 2·e·f). An MoE
/// block runs as Transformers' `grouped_mm` experts (`integrations/moe.py`): each token's k routed
/// copies, at their largest either the sorted input, the gate/up output, its activation and their
/// product (k·(h + 4f)), or the sorted input, the expert outputs and the weighted outputs before
/// and after un-sorting (4·k·h); shared experts run after the routed ones (h + 3·f per shared
/// expert's width).
pub fn inference_bytes(shape: &ActivationShape) -> (u128, String) {
    let a = shape.arch;
    let (tokens, e, t) = (
        shape.seq as u128 * shape.batch as u128,
        shape.elem_bytes as u128,
        shape.tp as u128,
    );
    let (h, f) = (a.hidden as u128, a.ffn as u128);
    let residual = 4 * tokens * h * e;
    let qkv = tokens * (a.q_width() as u128 + 2 * a.kv_width() as u128) * e;
    // Eager attention at its peak (Transformers' `eager_attention_forward`), per score: for 16-bit
    // models the scores, the masked scores, their FP32 softmax (`softmax(..., dtype=float32)`) and
    // its cast back (3e + 4 bytes); for FP32 models the upcast and the cast are no-ops: the scores
    // and the softmax (8 bytes). With attention sinks (gpt-oss) the softmax stays in the compute
    // dtype: the masked scores, their concatenation with the sink logit and the max-subtracted
    // logits (3e). Checked against PyTorch in tests/math/native/pytorch_validation.rs.
    let per_score = match (e, a.attention_sinks) {
        (4, _) => 8,
        (_, true) => 3 * e,
        (_, false) => 3 * e + 4,
    };
    let scores = if shape.flash_attention {
        0
    } else {
        a.heads as u128 * shape.seq as u128 * tokens * per_score
    };
    let (bool_mask, additive_mask) = window_mask_bytes(shape);
    let attention = (qkv + scores).div_ceil(t) + additive_mask;
    let dense_tensors = match a.mlp {
        Mlp::Gelu => 2,
        Mlp::Swiglu => 3,
    };
    let mlp_per_token = if a.experts > 1 {
        let k = a.active_experts.max(1) as u128;
        let routed = k * (h + 4 * f).max(4 * h);
        let shared = if a.shared_experts > 0 {
            h + dense_tensors * f * a.shared_experts as u128
        } else {
            0
        };
        routed.max(shared)
    } else {
        dense_tensors * f
    };
    let mlp = (tokens * mlp_per_token * e).div_ceil(t);
    let logits = shape.batch as u128 * a.vocab as u128 * 4;
    let bytes = residual + attention.max(mlp) + logits + bool_mask;
    let scores_text = if shape.flash_attention {
        "no s×s scores (FlashAttention)"
    } else {
        "s×s scores per head, their softmax and its inputs"
    };
    let mask_text = if bool_mask > 0 {
        " + the sliding window's s×s boolean mask (its additive copy with attention)"
    } else {
        ""
    };
    let mlp_text = if a.experts > 1 {
        "MoE MLP with the routed copies of each token"
    } else {
        "MLP"
    };
    (bytes, format!("hidden-size tensors around a layer + max(attention with {scores_text}, {mlp_text}) + FP32 logits of the last position{mask_text}"))
}

/// The attention masks a sliding window makes SDPA materialise in a prefill longer than the
/// window, as (boolean, additive) bytes: `is_causal` cannot express a window, so Transformers'
/// `sdpa_mask` (`masking_utils.py`) builds a boolean batch × 1 × s × s mask, shared by the heads
/// and the layers and alive through the prefill, and `scaled_dot_product_attention` turns it into
/// an additive mask of the compute dtype (`convert_boolean_attn_mask`) inside each call: e bytes
/// per query-key pair while attention runs. (0, 0) for eager attention (whose masked scores are
/// counted with the scores), without a window, or when the prompt fits in it.
fn window_mask_bytes(shape: &ActivationShape) -> (u128, u128) {
    let a = shape.arch;
    let windowed = a.sliding_window > 0 && a.sliding_layers > 0 && shape.seq > a.sliding_window;
    if !shape.flash_attention || !windowed {
        return (0, 0);
    }
    let pairs = shape.batch as u128 * shape.seq as u128 * shape.seq as u128;
    (pairs, pairs * shape.elem_bytes as u128)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::find_model;

    fn gpt3() -> ModelArch {
        find_model("gpt-3-175b").unwrap().arch
    }

    fn shape(arch: &ModelArch, tp: u64, sp: bool, recompute: Recompute) -> ActivationShape<'_> {
        ActivationShape {
            arch,
            batch: 1,
            seq: 2048,
            tp,
            sequence_parallel: sp,
            recompute,
            flash_attention: false,
            elem_bytes: 2,
            saved: None,
            expert_load_percent: 100,
        }
    }

    /// A Mistral prefill past its 4096-token window with SDPA materialises the b × s × s mask,
    /// a boolean for the whole prefill and its additive 16-bit copy while attention runs; within
    /// the window, or with eager attention, no separate mask is counted. Mistral's MLP working set
    /// is larger than attention with the additive mask, so the peak adds the boolean mask only.
    #[test]
    fn a_prompt_past_the_sliding_window_materialises_the_sdpa_mask() {
        let mut mistral = find_model("mistral-7b").unwrap().arch;
        (mistral.sliding_window, mistral.sliding_layers) = (4096, 32);
        let at = |seq: u64, flash: bool| {
            let mut s = shape(&mistral, 1, false, Recompute::None);
            (s.seq, s.flash_attention) = (seq, flash);
            window_mask_bytes(&s)
        };
        assert_eq!(at(8192, true), (8192 * 8192, 8192 * 8192 * 2));
        assert_eq!(at(4096, true), (0, 0));
        assert_eq!(at(8192, false), (0, 0));
        let mut plain = shape(&mistral, 1, false, Recompute::None);
        plain.flash_attention = true;
        plain.seq = 8192;
        let with_mask = inference_bytes(&plain).0;
        mistral.sliding_window = 0;
        let mut no_window = shape(&mistral, 1, false, Recompute::None);
        (no_window.seq, no_window.flash_attention) = (8192, true);
        assert_eq!(with_mask - inference_bytes(&no_window).0, 8192 * 8192);
    }

    /// Korthikanti et al. 2022, eq. 1: sbh(34 + 5as/h) per layer without parallelism.
    #[test]
    fn mha_gelu_reproduces_34_plus_5as_over_h() {
        let a = gpt3();
        let (s, b, h, heads) = (2048u128, 1u128, 12288u128, 96u128);
        let expected = s * b * h * 34 + 5 * heads * s * s * b;
        assert_eq!(
            per_layer_bytes(&shape(&a, 1, false, Recompute::None)).0,
            expected
        );
    }

    /// Eq. 2 (tensor parallel t): sbh(10 + 24/t + 5as/(ht)); eq. 3 with sequence parallel: /t.
    #[test]
    fn tensor_and_sequence_parallel_rows_match_the_paper() {
        let a = gpt3();
        let (s, h, heads, t) = (2048u128, 12288u128, 96u128, 8u128);
        let tp_only = s * h * 10 + (s * h * 24 + 5 * heads * s * s) / t;
        assert_eq!(
            per_layer_bytes(&shape(&a, 8, false, Recompute::None)).0,
            tp_only
        );
        let tp_sp = (s * h * 34 + 5 * heads * s * s) / t;
        assert_eq!(
            per_layer_bytes(&shape(&a, 8, true, Recompute::None)).0,
            tp_sp
        );
        // Selective recomputation with sequence parallelism: 34·sbh/t (Table 2).
        assert_eq!(
            per_layer_bytes(&shape(&a, 8, true, Recompute::Selective)).0,
            s * h * 34 / t
        );
        // Full recomputation: 2sbh per layer, /t with sequence parallelism.
        assert_eq!(
            per_layer_bytes(&shape(&a, 8, true, Recompute::Full)).0,
            2 * s * h / t
        );
    }

    #[test]
    fn flash_attention_removes_the_score_term() {
        let a = gpt3();
        let mut sh = shape(&a, 1, false, Recompute::None);
        sh.flash_attention = true;
        assert_eq!(per_layer_bytes(&sh).0, 2048 * 12288 * 34);
    }

    #[test]
    fn gqa_and_swiglu_change_only_their_tensors() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let sh = ActivationShape {
            flash_attention: true,
            ..shape(&a, 1, false, Recompute::None)
        };
        // 10h replicated + 4h (Q, out) + 4·1024 (K, V) + 8·14336 (SwiGLU), in bytes per token.
        let per_token = 10 * 4096 + 4 * 4096 + 4 * 1024 + 8 * 14336;
        assert_eq!(per_layer_bytes(&sh).0, 2048 * per_token);
    }

    #[test]
    fn shared_experts_add_their_mlp_tensors_like_routed_ones() {
        let mut routed = find_model("llama-3-8b").unwrap().arch.clone();
        (routed.experts, routed.active_experts) = (64, 6);
        let shared = ModelArch {
            shared_experts: 2,
            ..routed.clone()
        };
        let bytes = |a: &ModelArch| {
            per_layer_bytes(&ActivationShape {
                flash_attention: true,
                ..shape(a, 1, false, Recompute::None)
            })
            .0
        };
        // Two more SwiGLU experts per token: 2 × 8f bytes per token.
        assert_eq!(bytes(&shared) - bytes(&routed), 2048 * 2 * 8 * 14336);
    }
}
