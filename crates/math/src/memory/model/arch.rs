//! Transformer architectures and their exact parameter counts.

use serde::Serialize;

/// The feed-forward block's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mlp {
    /// Two matrices, hidden → ffn → hidden, with an elementwise activation (GELU, ReLU).
    Gelu,
    /// Three matrices (gate, up, down) with SiLU gating, as in LLaMA.
    Swiglu,
}

/// The normalisation layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Norm {
    /// LayerNorm: a weight and a bias per channel (2 × hidden parameters).
    LayerNorm,
    /// RMSNorm: a weight per channel (hidden parameters).
    RmsNorm,
}

/// A decoder-only transformer, as its published config describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelArch {
    /// Transformer blocks.
    pub layers: u64,
    /// Model (residual stream) width.
    pub hidden: u64,
    /// Query heads.
    pub heads: u64,
    /// Key/value heads (= heads for multi-head attention; fewer for GQA/MQA).
    pub kv_heads: u64,
    /// Width of one head.
    pub head_dim: u64,
    /// Feed-forward inner width (per expert).
    pub ffn: u64,
    /// Feed-forward shape.
    pub mlp: Mlp,
    /// Normalisation kind.
    pub norm: Norm,
    /// Norm layers per block (2 for pre-LN blocks; Falcon-40B's parallel block also has 2).
    pub norms_per_layer: u64,
    /// Vocabulary size (rows of the embedding matrix).
    pub vocab: u64,
    /// Longest sequence the model was trained for.
    pub max_seq: u64,
    /// Rows of a learned position-embedding table (0 for rotary or ALiBi).
    pub position_embeddings: u64,
    /// Bias on the query/key/value projections.
    pub qkv_bias: bool,
    /// Bias on the attention output projection.
    pub out_bias: bool,
    /// Biases on the MLP matrices, each expert's included: GELU f + hidden, gated 2 × f + hidden
    /// (gpt-oss's fused gate/up bias and its down bias, per expert).
    pub mlp_bias: bool,
    /// A norm right after the token embedding (BLOOM).
    pub embedding_norm: bool,
    /// Output head shares the token embedding matrix.
    pub tied_embeddings: bool,
    /// Experts per MoE layer (1 = dense).
    pub experts: u64,
    /// Experts each token is routed to.
    pub active_experts: u64,
    /// Experts every token passes through besides the routed ones (DeepSeek's shared experts), each
    /// `ffn` wide; 0 when there are none.
    pub shared_experts: u64,
    /// Leading blocks with a dense MLP instead of experts (DeepSeek's `first_k_dense_replace`).
    pub dense_layers: u64,
    /// Feed-forward width of those dense blocks (DeepSeek's `intermediate_size`; unused when
    /// `dense_layers` is 0).
    pub dense_ffn: u64,
    /// The MoE router has a bias, one per expert (DeepSeek-V3's `e_score_correction_bias`,
    /// gpt-oss's `router.bias`).
    pub router_bias: bool,
    /// RMSNorm on each query and key head (Qwen3, Gemma 3): 2 × head_dim parameters per block.
    pub qk_norm: bool,
    /// A learned attention-sink logit per query head (gpt-oss's `sinks`, BF16): `heads` parameters
    /// per block, counted with attention. They join each head's softmax as an extra column, so
    /// they add no KV cache.
    pub attention_sinks: bool,
    /// Multi-head latent attention (DeepSeek-V2/V3), replacing the Q/K/V projections.
    pub mla: Option<Mla>,
    /// Sliding-window attention span in tokens (0 = every layer attends to the whole sequence).
    pub sliding_window: u64,
    /// Blocks that use the sliding window (the others attend globally; Gemma 2 alternates).
    pub sliding_layers: u64,
    /// The MLP's GELU is the tanh approximation written as separate PyTorch ops (Transformers'
    /// `NewGELUActivation`, `activation_function: "gelu_new"`, GPT-2's), not one GELU kernel:
    /// in eager training three more f-wide tensors are saved for the backward pass.
    pub gelu_ops: bool,
    /// Dropout on the attention probabilities in training (GPT-2's `attn_pdrop`, OPT's
    /// `attention_dropout` above 0).
    pub attention_dropout: bool,
    /// Dropout on each sublayer's output before the residual add in training (GPT-2's
    /// `resid_pdrop`, OPT's `dropout` above 0).
    pub residual_dropout: bool,
    /// Multi-token prediction modules trained after the last block (DeepSeek-V3 trains 1;
    /// Megatron-LM's `--mtp-num-layers`): each is a block of the last block's kind, a projection
    /// of the normed hidden state and next-token embedding (2h → h) and three norms, on the last
    /// pipeline stage; it shares the embedding and the output head and adds its own logits and
    /// loss. Set by a training job's `mtp` option; 0 otherwise (serving loads none).
    pub mtp_modules: u64,
}

/// Multi-head latent attention's widths (DeepSeek-V2, Liu et al. 2024, section 2.1): queries and
/// keys/values go through low-rank latents; keys carry a separate rotary part shared by all heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mla {
    /// Query latent width (0 = a plain hidden → heads × qk_head_dim projection).
    pub q_lora_rank: u64,
    /// Key/value latent width: what a token's KV cache holds, besides the rotary key.
    pub kv_lora_rank: u64,
    /// Per-head query/key width without rotary embedding.
    pub qk_nope_head_dim: u64,
    /// Rotary query/key width (the rotary key is shared by all heads).
    pub qk_rope_head_dim: u64,
    /// Per-head value width.
    pub v_head_dim: u64,
}

impl ModelArch {
    /// A plain GPT-style architecture from a few numbers (as the CLI's custom model): head_dim =
    /// hidden / heads, learned positions absent, no biases, RMSNorm, untied embeddings, dense.
    pub fn custom(
        layers: u64,
        hidden: u64,
        heads: u64,
        kv_heads: u64,
        ffn: u64,
        vocab: u64,
        mlp: Mlp,
    ) -> Self {
        Self {
            layers,
            hidden,
            heads,
            kv_heads,
            head_dim: hidden.checked_div(heads).unwrap_or(0),
            ffn,
            mlp,
            vocab,
            max_seq: 4096,
            ..Self::DENSE_EXTRAS
        }
    }

    /// The fields a plain dense model leaves at their neutral values, for struct update syntax:
    /// `ModelArch { layers, hidden, .., ..ModelArch::DENSE_EXTRAS }`. Its own dimensions are 0.
    pub const DENSE_EXTRAS: ModelArch = ModelArch {
        layers: 0,
        hidden: 0,
        heads: 0,
        kv_heads: 0,
        head_dim: 0,
        ffn: 0,
        mlp: Mlp::Swiglu,
        norm: Norm::RmsNorm,
        norms_per_layer: 2,
        vocab: 0,
        max_seq: 0,
        position_embeddings: 0,
        qkv_bias: false,
        out_bias: false,
        mlp_bias: false,
        embedding_norm: false,
        tied_embeddings: false,
        experts: 1,
        active_experts: 1,
        shared_experts: 0,
        dense_layers: 0,
        dense_ffn: 0,
        router_bias: false,
        qk_norm: false,
        attention_sinks: false,
        mla: None,
        sliding_window: 0,
        sliding_layers: 0,
        gelu_ops: false,
        attention_dropout: false,
        residual_dropout: false,
        mtp_modules: 0,
    };

    fn norm_params(&self) -> u64 {
        match self.norm {
            Norm::LayerNorm => 2 * self.hidden,
            Norm::RmsNorm => self.hidden,
        }
    }

    /// Width of all query heads together (heads × head_dim).
    pub fn q_width(&self) -> u64 {
        self.heads * self.head_dim
    }

    /// Width of all key (or value) heads together (kv_heads × head_dim).
    pub fn kv_width(&self) -> u64 {
        self.kv_heads * self.head_dim
    }

    /// Per-block parameters that are neither linears nor the block's norms: the per-head Q/K norms
    /// (2 × head_dim) and the attention sinks (heads), counted with attention.
    fn head_vector_params(&self) -> u64 {
        let qk_norm = if self.qk_norm { 2 * self.head_dim } else { 0 };
        let sinks = if self.attention_sinks { self.heads } else { 0 };
        qk_norm + sinks
    }

    /// Parameters of one block's attention: Q, K, V and output projections with their biases (or
    /// MLA's latent projections and their norms), plus per-head Q/K norms and attention sinks when
    /// present.
    pub fn attention_params(&self) -> u64 {
        let h = self.hidden;
        let per_head = self.head_vector_params();
        if let Some(m) = self.mla {
            let qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
            // Queries: hidden → heads × qk_head directly, or through a normed latent.
            let q = if m.q_lora_rank == 0 {
                h * self.heads * qk_head
            } else {
                h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * self.heads * qk_head
            };
            // Keys/values: hidden → latent + shared rotary key, latent norm, latent → per-head
            // non-rotary keys and values.
            let kv = h * (m.kv_lora_rank + m.qk_rope_head_dim)
                + m.kv_lora_rank
                + m.kv_lora_rank * self.heads * (m.qk_nope_head_dim + m.v_head_dim);
            let out = self.heads * m.v_head_dim * h + if self.out_bias { h } else { 0 };
            return q + kv + out + per_head;
        }
        let qkv = h * (self.q_width() + 2 * self.kv_width());
        let qkv_bias = if self.qkv_bias {
            self.q_width() + 2 * self.kv_width()
        } else {
            0
        };
        let out = self.q_width() * h + if self.out_bias { h } else { 0 };
        qkv + qkv_bias + out + per_head
    }

    /// Parameters of one expert's MLP (the whole MLP when dense).
    pub fn expert_params(&self) -> u64 {
        self.mlp_params_of_width(self.ffn)
    }

    /// The biases among [`Self::expert_params`] (0 without `mlp_bias`): f + hidden for GELU,
    /// 2 × f + hidden gated. Checkpoints that quantize experts (gpt-oss's MXFP4) keep them BF16.
    pub fn expert_bias_params(&self) -> u64 {
        if !self.mlp_bias {
            return 0;
        }
        match self.mlp {
            Mlp::Gelu => self.ffn + self.hidden,
            Mlp::Swiglu => 2 * self.ffn + self.hidden,
        }
    }

    fn mlp_params_of_width(&self, f: u64) -> u64 {
        let h = self.hidden;
        match (self.mlp, self.mlp_bias) {
            (Mlp::Gelu, false) => 2 * h * f,
            (Mlp::Gelu, true) => 2 * h * f + f + h,
            (Mlp::Swiglu, false) => 3 * h * f,
            (Mlp::Swiglu, true) => 3 * h * f + 2 * f + h,
        }
    }

    /// Parameters of one block's MLP: every expert, the shared experts and the router when MoE.
    pub fn mlp_params(&self) -> u64 {
        let router = if self.experts > 1 {
            self.hidden * self.experts + if self.router_bias { self.experts } else { 0 }
        } else {
            0
        };
        (self.experts + self.shared_experts) * self.expert_params() + router
    }

    /// Norm parameters inside one block (the per-head Q/K norms are counted with attention).
    pub fn layer_norm_params(&self) -> u64 {
        self.norms_per_layer * self.norm_params()
    }

    /// Parameters of one transformer block (an MoE block when the model also has dense ones).
    pub fn layer_params(&self) -> u64 {
        self.attention_params() + self.mlp_params() + self.layer_norm_params()
    }

    /// Parameters of one of the leading dense blocks of an MoE model (0 when there are none).
    pub fn dense_layer_params(&self) -> u64 {
        if self.dense_layers == 0 {
            return 0;
        }
        self.attention_params()
            + self.mlp_params_of_width(self.dense_ffn)
            + self.layer_norm_params()
    }

    /// Blocks with the `layer_params` shape: all of them, less the leading dense ones.
    fn main_layers(&self) -> u64 {
        self.layers.saturating_sub(self.dense_layers)
    }

    /// Parameters of one multi-token prediction module: a block of the last block's kind, the
    /// 2h → h projection and its three norms (the embedding and the output head are shared).
    pub fn mtp_module_params(&self) -> u64 {
        self.layer_params() + 2 * self.hidden * self.hidden + 3 * self.norm_params()
    }

    /// Blocks whose experts are routed: the main blocks and the MTP modules' blocks.
    fn routed_blocks(&self) -> u64 {
        self.main_layers() + self.mtp_modules
    }

    /// Token embedding, learned positions, embedding norm, final norm and (untied) output head.
    pub fn non_layer_params(&self) -> u64 {
        let embed = self.vocab * self.hidden;
        let head = if self.tied_embeddings { 0 } else { embed };
        let positions = self.position_embeddings * self.hidden;
        let embed_norm = if self.embedding_norm {
            self.norm_params()
        } else {
            0
        };
        embed + head + positions + embed_norm + self.norm_params()
    }

    /// Parameters the heaviest of `pp` pipeline stages holds (`pp` ≥ 1): its share of the blocks
    /// (`layers ÷ pp`, rounded up, of the largest blocks) plus the larger end: the first stage's
    /// token embedding (with learned positions and an embedding norm), or the last stage's final
    /// norm and output head, which Megatron-LM keeps as a copy of the embedding when the two are
    /// tied. With one stage, [`Self::params`]. `without_routed` leaves the routed experts out
    /// (when expert parallelism divides them apart).
    pub fn heaviest_stage_params(&self, pp: u64, without_routed: bool) -> u64 {
        let routed_per_block = if without_routed && self.experts > 1 {
            self.experts * self.expert_params()
        } else {
            0
        };
        if pp <= 1 || self.layers == 0 {
            return self.params() - routed_per_block * self.routed_blocks();
        }
        let embed = self.vocab * self.hidden;
        let embed_norm = if self.embedding_norm {
            self.norm_params()
        } else {
            0
        };
        let first_end = embed + self.position_embeddings * self.hidden + embed_norm;
        // The last stage also holds the MTP modules (Megatron-LM puts them there).
        let last_end = embed
            + self.norm_params()
            + self.mtp_modules * (self.mtp_module_params() - routed_per_block);
        let per_stage = self.layers.div_ceil(pp);
        let dense_blocks = self.dense_layers.min(self.layers);
        let moe_block = self.layer_params() - routed_per_block;
        // Only the stages that hold leading dense blocks, the one after them and the last can
        // differ from a middle stage: the others are copies of the one after the dense blocks.
        let last = (self.layers - 1) / per_stage;
        let first_plain = (dense_blocks / per_stage + 1).min(last);
        (0..=first_plain)
            .chain(std::iter::once(last))
            .map(|stage| {
                let (from, to) = (
                    stage * per_stage,
                    ((stage + 1) * per_stage).min(self.layers),
                );
                let dense = to.min(dense_blocks).saturating_sub(from);
                let blocks = dense * self.dense_layer_params() + (to - from - dense) * moe_block;
                let ends = match (stage == 0, (stage + 1) * per_stage >= self.layers) {
                    (true, true) => first_end + last_end,
                    (true, false) => first_end,
                    (false, true) => last_end,
                    (false, false) => 0,
                };
                blocks + ends
            })
            .max()
            .unwrap_or(0)
    }

    /// Total parameters, computed from the architecture.
    pub fn params(&self) -> u64 {
        self.main_layers() * self.layer_params()
            + self.dense_layers.min(self.layers) * self.dense_layer_params()
            + self.non_layer_params()
            + self.mtp_modules * self.mtp_module_params()
    }

    /// Parameters of every routed expert in every MoE block (0 for a dense model): what expert
    /// parallelism divides.
    pub fn routed_expert_params(&self) -> u64 {
        if self.experts <= 1 {
            return 0;
        }
        self.routed_blocks() * self.experts * self.expert_params()
    }

    /// Parameters a token actually passes through (MoE: only the routed and shared experts).
    pub fn active_params(&self) -> u64 {
        let inactive =
            (self.experts - self.active_experts.min(self.experts)) * self.expert_params();
        self.params() - self.routed_blocks() * inactive
    }

    /// Parameters of the linear layers inside the blocks (what QLoRA stores in NF4): everything in
    /// the blocks but the norms, the per-head Q/K norms and the attention sinks. (The MoE router
    /// and the biases are included, and the MTP modules' blocks and projections.)
    pub fn block_linear_params(&self) -> u64 {
        let norms = self.layer_norm_params()
            + self.head_vector_params()
            + self.mla.map_or(0, |m| {
                m.kv_lora_rank + if m.q_lora_rank > 0 { m.q_lora_rank } else { 0 }
            });
        let dense = self.dense_layers.min(self.layers);
        self.main_layers() * (self.layer_params() - norms)
            + dense * self.dense_layer_params().saturating_sub(norms)
            + self.mtp_modules * (self.layer_params() - norms + 2 * self.hidden * self.hidden)
    }

    /// KV-cache elements one token stores in one layer: K and V of every KV head, or MLA's latent
    /// plus its shared rotary key (what vLLM and SGLang cache for DeepSeek).
    pub fn kv_elements_per_token_layer(&self) -> u64 {
        match self.mla {
            Some(m) => m.kv_lora_rank + m.qk_rope_head_dim,
            None => 2 * self.kv_width(),
        }
    }

    /// The largest single module's parameters (DeepSpeed's "largest layer"): the embedding, or the
    /// biggest linear.
    pub fn largest_layer_params(&self) -> u64 {
        let embed = self.vocab * self.hidden;
        let mlp_matrix = self.hidden * self.ffn.max(self.dense_ffn);
        let qkv = self.hidden * (self.q_width() + 2 * self.kv_width());
        embed.max(mlp_matrix).max(qkv)
    }
}
