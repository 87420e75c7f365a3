//! The tensors a GGUF file of an architecture holds, named and shaped as llama.cpp names them
//! (`LLM_TN` in llama.cpp's `src/llama-arch.cpp`: `token_embd.weight`, `blk.N.attn_q.weight`,
//! `blk.N.ffn_down_exps.weight`, …), in file order (per block), each with its dimensions row
//! length first as GGUF stores them. Their element counts add up to [`ModelArch::params`].

use crate::memory::model::arch::{Mlp, ModelArch, Norm};
use crate::memory::model::models::find_model;

/// llama.cpp's architecture (`general.architecture`), where it changes tensor names or the
/// quantization rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GgufArch {
    /// `llama` (Llama 2/3, Mistral, Mixtral) and architectures laid out like it.
    Llama,
    /// `qwen2`.
    Qwen2,
    /// `falcon`: fused QKV, and its own K-quant rules.
    Falcon,
    /// `gpt2` (GPT-2, and GPT-3's layout): fused QKV.
    Gpt2,
    /// `bloom`: fused QKV.
    Bloom,
}

impl GgufArch {
    /// The architecture of model preset `id` (by its family); a custom model or a family llama.cpp
    /// does not know (OPT) is laid out as `llama`.
    pub fn of_model(id: &str) -> GgufArch {
        match find_model(id).map(|m| m.family) {
            Some("Qwen") => GgufArch::Qwen2,
            Some("Falcon") => GgufArch::Falcon,
            Some("GPT") => GgufArch::Gpt2,
            Some("BLOOM") => GgufArch::Bloom,
            _ => GgufArch::Llama,
        }
    }

    /// The architecture named by `general.architecture`; names other than these read as `llama`
    /// (only Falcon has rules of its own).
    pub fn from_name(name: &str) -> GgufArch {
        match name {
            "qwen2" => GgufArch::Qwen2,
            "falcon" => GgufArch::Falcon,
            "gpt2" => GgufArch::Gpt2,
            "bloom" => GgufArch::Bloom,
            _ => GgufArch::Llama,
        }
    }

    /// The `general.architecture` name.
    pub const fn name(self) -> &'static str {
        match self {
            GgufArch::Llama => "llama",
            GgufArch::Qwen2 => "qwen2",
            GgufArch::Falcon => "falcon",
            GgufArch::Gpt2 => "gpt2",
            GgufArch::Bloom => "bloom",
        }
    }

    /// Whether Q, K and V are one `attn_qkv` matrix.
    pub const fn fused_qkv(self) -> bool {
        matches!(self, GgufArch::Falcon | GgufArch::Gpt2 | GgufArch::Bloom)
    }
}

/// One tensor of a model: name and dimensions (row length first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorShape {
    /// llama.cpp's name.
    pub name: String,
    /// Dimensions, row length first.
    pub dims: Vec<u64>,
}

impl TensorShape {
    /// Number of values.
    pub fn elements(&self) -> u64 {
        self.dims.iter().product()
    }
}

struct List(Vec<TensorShape>);

impl List {
    fn add(&mut self, name: String, dims: &[u64]) {
        self.0.push(TensorShape {
            name,
            dims: dims.to_vec(),
        });
    }

    /// A norm's weight, and its bias for LayerNorm.
    fn norm(&mut self, arch: &ModelArch, name: &str) {
        self.add(format!("{name}.weight"), &[arch.hidden]);
        if arch.norm == Norm::LayerNorm {
            self.add(format!("{name}.bias"), &[arch.hidden]);
        }
    }

    /// A linear layer `rows × cols` (stored `[cols, rows]`: input width first) with an optional
    /// bias of `rows`.
    fn linear(&mut self, name: &str, input: u64, output: u64, bias: bool) {
        self.add(format!("{name}.weight"), &[input, output]);
        if bias {
            self.add(format!("{name}.bias"), &[output]);
        }
    }
}

/// Every tensor of `arch` as a GGUF file of architecture `ga` holds it, in file order.
pub fn tensors(arch: &ModelArch, ga: GgufArch) -> Vec<TensorShape> {
    let h = arch.hidden;
    let mut t = List(Vec::new());
    t.add("token_embd.weight".into(), &[h, arch.vocab]);
    if arch.position_embeddings > 0 {
        t.add(
            "position_embd.weight".into(),
            &[h, arch.position_embeddings],
        );
    }
    if arch.embedding_norm {
        t.norm(arch, "token_embd_norm");
    }
    for l in 0..arch.layers {
        block(&mut t, arch, ga, l);
    }
    t.norm(arch, "output_norm");
    if !arch.tied_embeddings {
        t.add("output.weight".into(), &[h, arch.vocab]);
    }
    t.0
}

fn block(t: &mut List, arch: &ModelArch, ga: GgufArch, l: u64) {
    let h = arch.hidden;
    let b = |name: &str| format!("blk.{l}.{name}");
    t.norm(arch, &b("attn_norm"));
    if let Some(m) = arch.mla {
        let qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
        if m.q_lora_rank == 0 {
            t.linear(&b("attn_q"), h, arch.heads * qk_head, false);
        } else {
            t.linear(&b("attn_q_a"), h, m.q_lora_rank, false);
            t.add(b("attn_q_a_norm.weight"), &[m.q_lora_rank]);
            t.linear(&b("attn_q_b"), m.q_lora_rank, arch.heads * qk_head, false);
        }
        t.linear(
            &b("attn_kv_a_mqa"),
            h,
            m.kv_lora_rank + m.qk_rope_head_dim,
            false,
        );
        t.add(b("attn_kv_a_norm.weight"), &[m.kv_lora_rank]);
        let kv_b = arch.heads * (m.qk_nope_head_dim + m.v_head_dim);
        t.linear(&b("attn_kv_b"), m.kv_lora_rank, kv_b, false);
        t.linear(
            &b("attn_output"),
            arch.heads * m.v_head_dim,
            h,
            arch.out_bias,
        );
    } else {
        if ga.fused_qkv() {
            let width = arch.q_width() + 2 * arch.kv_width();
            t.linear(&b("attn_qkv"), h, width, arch.qkv_bias);
        } else {
            t.linear(&b("attn_q"), h, arch.q_width(), arch.qkv_bias);
            t.linear(&b("attn_k"), h, arch.kv_width(), arch.qkv_bias);
            t.linear(&b("attn_v"), h, arch.kv_width(), arch.qkv_bias);
        }
        t.linear(&b("attn_output"), arch.q_width(), h, arch.out_bias);
    }
    if arch.qk_norm {
        t.add(b("attn_q_norm.weight"), &[arch.head_dim]);
        t.add(b("attn_k_norm.weight"), &[arch.head_dim]);
    }
    if arch.attention_sinks {
        // llama.cpp's gpt-oss: one F32 sink logit per query head.
        t.add(b("attn_sinks.weight"), &[arch.heads]);
    }
    // Gemma 2/3 (four norms per block): a norm after attention and one after the MLP as well.
    let post_norms = arch.norms_per_layer >= 4;
    if post_norms {
        t.norm(arch, &b("post_attention_norm"));
    }
    if arch.norms_per_layer >= 2 {
        // Falcon-40B's parallel block names its second norm attn_norm_2.
        let second = if ga == GgufArch::Falcon {
            "attn_norm_2"
        } else {
            "ffn_norm"
        };
        t.norm(arch, &b(second));
    }
    let moe = arch.experts > 1 && l >= arch.dense_layers;
    if !moe {
        let f = if arch.experts > 1 {
            arch.dense_ffn
        } else {
            arch.ffn
        };
        mlp(t, arch, &b("ffn"), "", f, &[]);
    } else {
        t.add(b("ffn_gate_inp.weight"), &[h, arch.experts]);
        if arch.router_bias {
            t.add(b("exp_probs_b.bias"), &[arch.experts]);
        }
        mlp(t, arch, &b("ffn"), "_exps", arch.ffn, &[arch.experts]);
        if arch.shared_experts > 0 {
            mlp(
                t,
                arch,
                &b("ffn"),
                "_shexp",
                arch.ffn * arch.shared_experts,
                &[],
            );
        }
    }
    if post_norms {
        t.norm(arch, &b("post_ffw_norm"));
    }
}

/// An MLP's matrices (`{prefix}_gate{suffix}`, `_up`, `_down`) and their biases, `extra`
/// dimensions appended to each (the expert count for stacked experts).
fn mlp(t: &mut List, arch: &ModelArch, prefix: &str, suffix: &str, f: u64, extra: &[u64]) {
    let h = arch.hidden;
    let mut add = |part: &str, input: u64, output: u64| {
        let mut dims = vec![input, output];
        dims.extend_from_slice(extra);
        t.add(format!("{prefix}_{part}{suffix}.weight"), &dims);
        if arch.mlp_bias {
            let mut bias = vec![output];
            bias.extend_from_slice(extra);
            t.add(format!("{prefix}_{part}{suffix}.bias"), &bias);
        }
    };
    if arch.mlp == Mlp::Swiglu {
        add("gate", h, f);
    }
    add("up", h, f);
    add("down", f, h);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::model_presets;

    #[test]
    fn every_preset_s_tensors_add_up_to_its_parameter_count() {
        for m in model_presets() {
            let list = tensors(&m.arch, GgufArch::of_model(m.id));
            let total: u64 = list.iter().map(TensorShape::elements).sum();
            assert_eq!(total, m.arch.params(), "{}", m.id);
        }
    }

    #[test]
    fn llama_3_8b_has_llama_cpp_s_291_tensors() {
        // llama.cpp's Llama 3 8B GGUF: 32 blocks × 9 tensors + token_embd, output_norm, output.
        let m = find_model("llama-3-8b").unwrap();
        let list = tensors(&m.arch, GgufArch::Llama);
        assert_eq!(list.len(), 291);
        assert_eq!(list[4].name, "blk.0.attn_v.weight");
        assert_eq!(list[4].dims, vec![4096, 1024]);
    }

    #[test]
    fn mixtral_stacks_its_experts_in_three_dimensional_tensors() {
        let m = find_model("mixtral-8x7b").unwrap();
        let list = tensors(&m.arch, GgufArch::Llama);
        let down = list
            .iter()
            .find(|t| t.name == "blk.0.ffn_down_exps.weight")
            .unwrap();
        assert_eq!(down.dims, vec![14336, 4096, 8]);
    }
}
