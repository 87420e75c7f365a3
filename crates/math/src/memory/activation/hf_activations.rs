//! Activation memory of a Hugging Face Transformers model trained in eager PyTorch (the `autocast`
//! and `pure` precision recipes): the tensors autograd saves for the backward pass, op by op, and
//! the working tensors of the forward and backward passes that are alive at their peaks.
//!
//! Per decoder layer and token, in bytes (e = the compute dtype's bytes, r = the residual stream's:
//! FP32 under autocast, whose parameters are FP32, else e):
//! - RMSNorm (`LlamaRMSNorm.forward`): `hidden_states.to(torch.float32)` is saved by `pow` (4h),
//!   the normalised tensor by the multiply with the weight (r·h); under autocast the next linear
//!   saves its own e-byte cast of the output (e·h). LayerNorm saves its input (r·h) and the next
//!   linear its e-byte output (e·h).
//! - Attention: SDPA saves q, k, v and its output (the output projection's input), e bytes each;
//!   eager attention (`eager_attention_forward`) also saves K and V repeated to every query head,
//!   the FP32 softmax (`softmax(..., dtype=torch.float32)`, 4·heads·s) and its e-byte cast.
//! - MLP: SwiGLU saves gate, up, SiLU(gate) and their product (4·e·f); GELU the two e·f tensors
//!   around the activation; each token passes its active and shared experts. GPT-2's `gelu_new`
//!   (`NewGELUActivation.forward`: `0.5 * x * (1 + tanh(√(2/π) · (x + 0.044715 · x³)))` in
//!   separate ops) also saves the tanh output (by `tanh`), `0.5 · x` and `1 + tanh` (by the last
//!   multiply): 3·e·f more.
//! - Dropout in training (`native_dropout` saves a one-byte mask): on the attention probabilities
//!   with eager attention (heads·s; SDPA's kernels on a GPU regenerate the mask from the RNG
//!   state instead of storing it), and on the two sublayer outputs before the residual adds (2h).
//! - peft LoRA (`lora.Linear.forward`): the input is cast to the adapter dtype
//!   (`_cast_input_dtype`) and, with `lora_dropout > 0`, passed through dropout, whose output (and
//!   a one-byte mask) `lora_A` saves; with neither, `lora_A` shares the base layer's saved input.
//! - Output: the final norm, the logits the model returns (e·v), and Transformers' loss
//!   (`ForCausalLMLoss`: `logits.float()`, then `cross_entropy`, whose `log_softmax` saves its
//!   FP32 output, 4v). In the forward pass the FP32 logits copy (4v) is a working tensor; at the
//!   start of the backward pass the FP32 gradients of the log-softmax and of the logits (8v) are.
//! - Autocast caches a 16-bit copy of every weight a matmul reads (`torch.autocast`'s weight
//!   cache, kept until the autocast region exits): saved for backward without checkpointing, a
//!   forward-pass working set with it.
//! - Checkpointing per decoder layer (`gradient_checkpointing_enable`, `torch.utils.checkpoint`):
//!   each layer keeps its input (r·h); the backward pass recomputes one layer at a time, so one
//!   layer's tensors come back.

use crate::memory::model::arch::{Mlp, ModelArch, Norm};
use crate::memory::options::Recompute;
use crate::memory::setup::LoraTargets;

/// LoRA adapters as peft runs them.
#[derive(Clone, Copy, Debug)]
pub struct Adapters {
    /// Adapted projections.
    pub targets: LoraTargets,
    /// Bytes per adapter element (4 for peft's default FP32 adapters).
    pub elem_bytes: u64,
    /// `lora_dropout > 0`.
    pub dropout: bool,
}

/// What the activations depend on in Transformers.
#[derive(Clone, Copy, Debug)]
pub struct HfShape<'a> {
    /// The architecture.
    pub arch: &'a ModelArch,
    /// Micro-batch (sequences).
    pub batch: u64,
    /// Sequence length (tokens).
    pub seq: u64,
    /// Tensor-parallel degree (every tensor is divided by it).
    pub tp: u64,
    /// Recomputation (`Layer` and `Full` both checkpoint each decoder layer; `Selective` is not
    /// something Transformers does and counts as none).
    pub recompute: Recompute,
    /// SDPA / FlashAttention (`true`) or eager attention.
    pub sdpa: bool,
    /// `torch.autocast` with FP32 parameters.
    pub autocast: bool,
    /// Bytes of the compute dtype (2 for BF16/FP16, 4 for FP32).
    pub elem_bytes: u64,
    /// LoRA adapters, if any.
    pub adapters: Option<Adapters>,
}

/// Activation bytes at the moments that matter (whole micro-batch, one GPU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Working {
    /// Tensors saved for the backward pass, alive when the forward pass ends.
    pub stored: u128,
    /// Working tensors alive at the forward pass's peak, on top of `stored`.
    pub forward: u128,
    /// Working tensors alive at the backward pass's peak, on top of what is still stored.
    pub backward: u128,
    /// The formula in words.
    pub text: String,
}

/// Saved bytes of one decoder layer per token.
fn layer_per_token(s: &HfShape) -> u128 {
    let a = s.arch;
    let (h, e) = (a.hidden as u128, s.elem_bytes as u128);
    let r = if s.autocast { 4 } else { e };
    let cast = if s.autocast { e * h } else { 0 };
    let norm = match a.norm {
        Norm::RmsNorm => 4 * h + r * h + cast,
        Norm::LayerNorm => r * h + e * h,
    };
    let (q, kv) = (a.q_width() as u128, a.kv_width() as u128);
    let mut attention = e * (2 * q + 2 * kv);
    if !s.sdpa {
        let scores = a.heads as u128 * s.seq as u128;
        attention += e * 2 * (q - kv.min(q)) + 4 * scores + e * scores;
        if a.attention_dropout {
            attention += scores;
        }
    }
    let residual_masks = if a.residual_dropout { 2 * h } else { 0 };
    let experts = (a.active_experts.max(1) + a.shared_experts) as u128;
    let mlp = match a.mlp {
        Mlp::Swiglu => 4,
        Mlp::Gelu if a.gelu_ops => 5,
        Mlp::Gelu => 2,
    } * e
        * a.ffn as u128
        * experts;
    norm * a.norms_per_layer as u128 + attention + mlp + residual_masks + adapter_per_token(s)
}

/// Extra bytes per token and layer that peft's adapters save (input casts and dropout copies).
fn adapter_per_token(s: &HfShape) -> u128 {
    let Some(ad) = s.adapters else {
        return 0;
    };
    let a = s.arch;
    let (h, f) = (a.hidden as u128, a.ffn as u128);
    let t = ad.targets;
    let mut inputs = 0;
    for (on, width) in [(t.q, h), (t.k, h), (t.v, h), (t.o, a.q_width() as u128)] {
        if on {
            inputs += width;
        }
    }
    if t.mlp {
        inputs += match a.mlp {
            Mlp::Swiglu => 2 * h + f,
            Mlp::Gelu => h + f,
        } * (a.active_experts.max(1) + a.shared_experts) as u128;
    }
    let cast = ad.elem_bytes != s.elem_bytes;
    match (ad.dropout, cast) {
        (true, _) => inputs * (ad.elem_bytes as u128 + 1),
        (false, true) => inputs * ad.elem_bytes as u128,
        (false, false) => 0,
    }
}

/// Bytes of the 16-bit weight copies autocast caches: every block linear and the output head.
fn autocast_cache(s: &HfShape) -> u128 {
    let a = s.arch;
    s.elem_bytes as u128 * (a.block_linear_params() as u128 + (a.vocab * a.hidden) as u128)
}

/// Activation memory of `s`, with the formula in words.
pub fn hf_activations(s: &HfShape) -> Working {
    let a = s.arch;
    let tokens = s.batch as u128 * s.seq as u128;
    let (h, v, e) = (a.hidden as u128, a.vocab as u128, s.elem_bytes as u128);
    let t = s.tp as u128;
    let r = if s.autocast { 4 } else { e };
    let layer = tokens * layer_per_token(s);
    let final_norm = match a.norm {
        Norm::RmsNorm => 4 * h + r * h,
        Norm::LayerNorm => r * h,
    } + if s.autocast { e * h } else { 0 };
    let output = tokens * (final_norm + e * v + 4 * v);
    let checkpointed = matches!(s.recompute, Recompute::Full | Recompute::Layer);
    let cache = if s.autocast { autocast_cache(s) } else { 0 };
    let layers = a.layers as u128;
    let (stored, forward, backward, how) = if checkpointed {
        (
            layers * tokens * r * h + output,
            cache + tokens * 4 * v,
            (tokens * 8 * v).max(layer),
            "checkpointed: each decoder layer's input, one layer recomputed at a time in the backward pass",
        )
    } else {
        (
            layers * layer + output + cache,
            tokens * 4 * v,
            tokens * 8 * v,
            "every decoder layer's saved tensors",
        )
    };
    let cache_text = if s.autocast {
        " + autocast's 16-bit weight copies"
    } else {
        ""
    };
    let text = format!(
        "Transformers' saved tensors: {how}{cache_text} + final norm, logits and FP32 log-softmax ({} B per layer per token{}); working set FP32 logits (forward) and their gradients (backward)",
        layer_per_token(s),
        if s.sdpa { ", SDPA" } else { ", eager attention with FP32 softmax scores" },
    );
    Working {
        stored: stored.div_ceil(t),
        forward: forward.div_ceil(t),
        backward: backward.div_ceil(t),
        text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::find_model;

    fn llama(recompute: Recompute, sdpa: bool, autocast: bool) -> Working {
        let a = find_model("llama-3-8b").unwrap().arch;
        hf_activations(&HfShape {
            arch: &a,
            batch: 1,
            seq: 4096,
            tp: 1,
            recompute,
            sdpa,
            autocast,
            elem_bytes: 2,
            adapters: None,
        })
    }

    /// Pure BF16 with SDPA, per token and layer: two RMSNorms (4h + 2h each), q/k/v/out
    /// (2·4096 + 2·1024 + 2·1024 + 2·4096) and SwiGLU's four 2-byte f-wide tensors.
    #[test]
    fn llama_layer_lists_the_saved_tensors() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let s = HfShape {
            arch: &a,
            batch: 1,
            seq: 4096,
            tp: 1,
            recompute: Recompute::None,
            sdpa: true,
            autocast: false,
            elem_bytes: 2,
            adapters: None,
        };
        let expected = 2 * (6 * 4096) + 2 * (2 * 4096 + 2 * 1024) + 8 * 14336;
        assert_eq!(layer_per_token(&s), expected);
    }

    /// GPT-2 (h 768, f 3072, 12 heads, s 1024, BF16): gelu_new's ops save three more f-wide
    /// tensors, and dropout a one-byte mask on the eager attention probabilities (heads × s) and
    /// on the two sublayer outputs (2h).
    #[test]
    fn gpt2_gelu_ops_and_dropout_masks_add_their_tensors() {
        let gpt2 = find_model("gpt2").unwrap().arch;
        let plain = ModelArch {
            gelu_ops: false,
            attention_dropout: false,
            residual_dropout: false,
            ..gpt2.clone()
        };
        let shape = |a| HfShape {
            arch: a,
            batch: 1,
            seq: 1024,
            tp: 1,
            recompute: Recompute::None,
            sdpa: false,
            autocast: false,
            elem_bytes: 2,
            adapters: None,
        };
        let extra = layer_per_token(&shape(&gpt2)) - layer_per_token(&shape(&plain));
        assert_eq!(extra, 3 * 2 * 3072 + 12 * 1024 + 2 * 768);
        // With SDPA the attention mask is not stored (a GPU kernel regenerates it).
        let sdpa = |a| HfShape {
            sdpa: true,
            ..shape(a)
        };
        let extra = layer_per_token(&sdpa(&gpt2)) - layer_per_token(&sdpa(&plain));
        assert_eq!(extra, 3 * 2 * 3072 + 2 * 768);
    }

    #[test]
    fn eager_attention_and_autocast_store_more_and_checkpointing_less() {
        let sdpa = llama(Recompute::None, true, false);
        let eager = llama(Recompute::None, false, false);
        let autocast = llama(Recompute::None, true, true);
        let ckpt = llama(Recompute::Layer, true, true);
        assert!(eager.stored > sdpa.stored);
        assert!(autocast.stored > sdpa.stored);
        assert!(ckpt.stored < autocast.stored / 5);
        // Under checkpointing the weight copies are a forward-pass working set.
        assert!(ckpt.forward > autocast.forward);
    }
}
