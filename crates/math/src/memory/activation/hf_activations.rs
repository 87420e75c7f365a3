//! Activation memory of a Hugging Face Transformers model trained in eager PyTorch (the `autocast`
//! and `pure` precision recipes): the tensors autograd saves for the backward pass, op by op, and
//! the working tensors of the forward and backward passes that are alive at their peaks.
//!
//! Per decoder layer and token, in bytes (e = the compute dtype's bytes, r = the residual stream's:
//! FP32 under autocast, whose parameters are FP32, else e):
//! - RMSNorm (`LlamaRMSNorm.forward`): `hidden_states.to(torch.float32)` is saved by `pow` (4h),
//!   the normalised tensor by the multiply with the weight (r·h), and the next linear saves the
//!   e-byte output (e·h: the multiply's output, or under autocast the linear's own cast of it).
//!   LayerNorm saves its input (r·h) and the next linear its e-byte output (e·h).
//! - Attention: SDPA saves q, k, v and its output (the output projection's input), e bytes each;
//!   eager attention (`eager_attention_forward`) also saves K and V repeated to every query head,
//!   the FP32 softmax (`softmax(..., dtype=torch.float32)`, 4·heads·s) and its e-byte cast.
//! - Per-head Q/K norms (Qwen3, Gemma 3: `q_norm`, `k_norm`, RMSNorms over each head): the FP32
//!   upcast and the 16-bit normalised tensor of q and k, (4 + e)·(q + kv).
//! - MLP: SwiGLU saves gate, up, SiLU(gate) and their product (4·e·f); GELU the two e·f tensors
//!   around the activation; each token passes its active and shared experts. Transformers' MoE
//!   experts (`grouped_mm`, its default on a GPU) also keep k routed copies of the token: the
//!   expert outputs, saved by the multiply with the routing weights (k·e·h), and, when the experts
//!   train, the sorted gather of the input that the grouped matmul saves (k·e·h). GPT-2's `gelu_new`
//!   (`NewGELUActivation.forward`: `0.5 * x * (1 + tanh(√(2/π) · (x + 0.044715 · x³)))` in
//!   separate ops) also saves the tanh output (by `tanh`), `0.5 · x` and `1 + tanh` (by the last
//!   multiply): 3·e·f more.
//! - Dropout in training (`native_dropout` saves a one-byte mask): on the attention probabilities
//!   with eager attention (heads·s; SDPA's kernels on a GPU regenerate the mask from the RNG
//!   state instead of storing it), and on the two sublayer outputs before the residual adds (2h).
//! - peft LoRA (`lora.Linear.forward`): the input is cast to the adapter dtype
//!   (`_cast_input_dtype`) and, with `lora_dropout > 0`, passed through dropout, whose output (and
//!   a one-byte mask) `lora_A` saves; with neither, `lora_A` shares the base layer's saved input.
//! - Output: the final norm and Transformers' loss (`ForCausalLMLoss`: `logits.float()`, then
//!   `cross_entropy`, whose `log_softmax` saves its FP32 output, 4v). The logits the model returns
//!   (e·v) and, for 16-bit logits, their FP32 copy (4v) are forward-pass working tensors: nothing
//!   saves them, and the caller drops the outputs before `loss.backward()`. At the start of the
//!   backward pass the FP32 gradients of the log-softmax and of the logits (8v) are.
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
    // With adapters the base weights are frozen, and autograd saves a tensor only for a gradient
    // it computes: not the RMSNorm's normalised input (its weight takes no gradient), nor a frozen
    // linear's input, unless that linear's adapter saves the very tensor (adapter dtype = compute
    // dtype, no dropout; otherwise the adapter's copy is counted in `adapter_per_token`).
    let frozen = s.adapters.is_some();
    let shares = s
        .adapters
        .filter(|ad| ad.elem_bytes == s.elem_bytes && !ad.dropout)
        .map(|ad| ad.targets);
    let t = s
        .adapters
        .map(|ad| ad.targets)
        .unwrap_or(LoraTargets::ALL_LINEAR);
    let kept = |on: bool| u128::from(!frozen || (on && shares.is_some()));
    let norms = a.norms_per_layer as u128;
    let norm_inputs = match a.norm {
        Norm::RmsNorm => 4 * h + u128::from(!frozen) * r * h,
        Norm::LayerNorm => r * h,
    } * norms;
    // The norm's 16-bit output the next linear saves: its own autocast copy under autocast, the
    // weight multiply's output otherwise.
    let norm_outputs = if frozen {
        e * h * (kept(t.q || t.k || t.v) + kept(t.mlp))
    } else {
        e * h * norms
    };
    let (q, kv) = (a.q_width() as u128, a.kv_width() as u128);
    // q, k and v as SDPA saves them, and its output, which the output projection saves.
    let mut attention = e * (q + 2 * kv) + e * q * kept(t.o);
    if a.qk_norm {
        attention += (4 + e) * (q + kv);
    }
    if !s.sdpa {
        let scores = a.heads as u128 * s.seq as u128;
        attention += e * 2 * (q - kv.min(q)) + 4 * scores + e * scores;
        if a.attention_dropout {
            attention += scores;
        }
    }
    let residual_masks = if a.residual_dropout { 2 * h } else { 0 };
    let experts = (a.active_experts.max(1) + a.shared_experts) as u128;
    // The f-wide tensors; the last one is the down projection's input.
    let f_wide = match a.mlp {
        Mlp::Swiglu => 4,
        Mlp::Gelu if a.gelu_ops => 5,
        Mlp::Gelu => 2,
    } - 1
        + kept(t.mlp);
    let mlp = f_wide * e * a.ffn as u128 * experts;
    norm_inputs
        + norm_outputs
        + attention
        + mlp
        + routed_copies(s)
        + residual_masks
        + adapter_per_token(s)
}

/// Bytes per token and layer of the routed copies Transformers' `grouped_mm` experts
/// (`integrations/moe.py`) save: the expert outputs before the routing weights multiply them,
/// k·e·h, and, when the experts train (no adapters), the sorted gather of the input that the
/// grouped matmul saves for its weight gradient, k·e·h more. 0 for a dense model.
fn routed_copies(s: &HfShape) -> u128 {
    let a = s.arch;
    if a.experts <= 1 {
        return 0;
    }
    let copies = if s.adapters.is_some() { 1 } else { 2 };
    copies * a.active_experts.max(1) as u128 * a.hidden as u128 * s.elem_bytes as u128
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
    } + e * h;
    let output = tokens * (final_norm + 4 * v);
    // The returned logits and, when they are 16-bit, `logits.float()`: alive in the forward pass
    // only.
    let logits = tokens * (e * v + if e == 4 { 0 } else { 4 * v });
    let checkpointed = matches!(s.recompute, Recompute::Full | Recompute::Layer);
    let cache = if s.autocast { autocast_cache(s) } else { 0 };
    let layers = a.layers as u128;
    let (stored, forward, backward, how) = if checkpointed {
        (
            layers * tokens * r * h + output,
            cache + logits,
            (tokens * 8 * v).max(layer),
            "checkpointed: each decoder layer's input, one layer recomputed at a time in the backward pass",
        )
    } else {
        (
            layers * layer + output + cache,
            logits,
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
        "Transformers' saved tensors: {how}{cache_text} + final norm and FP32 log-softmax ({} B per layer per token{}); working set the returned logits and their FP32 copy (forward) and the FP32 gradients (backward)",
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

    /// Pure BF16 with SDPA, one 4096-token sequence, no recomputation or adapters.
    fn plain_bf16(a: &ModelArch) -> HfShape<'_> {
        HfShape {
            arch: a,
            batch: 1,
            seq: 4096,
            tp: 1,
            recompute: Recompute::None,
            sdpa: true,
            autocast: false,
            elem_bytes: 2,
            adapters: None,
        }
    }
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

    /// Pure BF16 with SDPA, per token and layer: two RMSNorms (4h + 2h + 2h each), q/k/v/out
    /// (2·4096 + 2·1024 + 2·1024 + 2·4096) and SwiGLU's four 2-byte f-wide tensors.
    #[test]
    fn llama_layer_lists_the_saved_tensors() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let s = plain_bf16(&a);
        let expected = 2 * (8 * 4096) + 2 * (2 * 4096 + 2 * 1024) + 8 * 14336;
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
    /// Qwen3-30B-A3B-shaped MoE (h 2048, 8 of 128 experts): training keeps two routed copies per
    /// token and expert (the sorted input and the expert outputs), LoRA on frozen experts one.
    #[test]
    fn moe_blocks_keep_the_routed_copies_of_each_token() {
        let a = ModelArch {
            experts: 128,
            active_experts: 8,
            ..find_model("llama-3-8b").unwrap().arch
        };
        let shape = |adapters| HfShape {
            arch: &a,
            batch: 1,
            seq: 1024,
            tp: 1,
            recompute: Recompute::None,
            sdpa: true,
            autocast: false,
            elem_bytes: 2,
            adapters,
        };
        assert_eq!(routed_copies(&shape(None)), 2 * 8 * 4096 * 2);
        let lora = Adapters {
            targets: LoraTargets::ALL_LINEAR,
            elem_bytes: 4,
            dropout: false,
        };
        assert_eq!(routed_copies(&shape(Some(lora))), 8 * 4096 * 2);
        let dense = find_model("llama-3-8b").unwrap().arch;
        assert_eq!(
            routed_copies(&HfShape {
                arch: &dense,
                ..shape(None)
            }),
            0
        );
    }

    /// LoRA on a frozen base: the norms keep only their FP32 upcast, and the output and down
    /// projections' inputs are not saved (FP32 adapters save their own copies).
    #[test]
    fn a_frozen_base_saves_only_what_the_adapters_and_inputs_need() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let full = plain_bf16(&a);
        let lora = HfShape {
            adapters: Some(Adapters {
                targets: LoraTargets::ALL_LINEAR,
                elem_bytes: 4,
                dropout: false,
            }),
            ..full
        };
        let (h, f) = (4096, 14336);
        let not_saved = 2 * (2 * h + 2 * h) + 2 * h + 2 * f;
        assert_eq!(
            layer_per_token(&full) + adapter_per_token(&lora) - not_saved,
            layer_per_token(&lora)
        );
    }
}
