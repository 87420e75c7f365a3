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
    /// Biases on the MLP matrices.
    pub mlp_bias: bool,
    /// A norm right after the token embedding (BLOOM).
    pub embedding_norm: bool,
    /// Output head shares the token embedding matrix.
    pub tied_embeddings: bool,
    /// Experts per MoE layer (1 = dense).
    pub experts: u64,
    /// Experts each token is routed to.
    pub active_experts: u64,
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
            norm: Norm::RmsNorm,
            norms_per_layer: 2,
            vocab,
            max_seq: 4096,
            position_embeddings: 0,
            qkv_bias: false,
            out_bias: false,
            mlp_bias: false,
            embedding_norm: false,
            tied_embeddings: false,
            experts: 1,
            active_experts: 1,
        }
    }

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

    /// Parameters of one block's attention: Q, K, V and output projections with their biases.
    pub fn attention_params(&self) -> u64 {
        let h = self.hidden;
        let qkv = h * (self.q_width() + 2 * self.kv_width());
        let qkv_bias = if self.qkv_bias {
            self.q_width() + 2 * self.kv_width()
        } else {
            0
        };
        let out = self.q_width() * h + if self.out_bias { h } else { 0 };
        qkv + qkv_bias + out
    }

    /// Parameters of one expert's MLP (the whole MLP when dense).
    pub fn expert_params(&self) -> u64 {
        let (h, f) = (self.hidden, self.ffn);
        match (self.mlp, self.mlp_bias) {
            (Mlp::Gelu, false) => 2 * h * f,
            (Mlp::Gelu, true) => 2 * h * f + f + h,
            (Mlp::Swiglu, false) => 3 * h * f,
            (Mlp::Swiglu, true) => 3 * h * f + 2 * f + h,
        }
    }

    /// Parameters of one block's MLP: every expert plus the router when MoE.
    pub fn mlp_params(&self) -> u64 {
        let router = if self.experts > 1 {
            self.hidden * self.experts
        } else {
            0
        };
        self.experts * self.expert_params() + router
    }

    /// Parameters of one transformer block.
    pub fn layer_params(&self) -> u64 {
        self.attention_params() + self.mlp_params() + self.norms_per_layer * self.norm_params()
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

    /// Total parameters, computed from the architecture.
    pub fn params(&self) -> u64 {
        self.layers * self.layer_params() + self.non_layer_params()
    }

    /// Parameters a token actually passes through (MoE: only the routed experts).
    pub fn active_params(&self) -> u64 {
        let inactive =
            (self.experts - self.active_experts.min(self.experts)) * self.expert_params();
        self.params() - self.layers * inactive
    }

    /// Parameters of the linear layers inside the blocks (what QLoRA stores in NF4).
    pub fn block_linear_params(&self) -> u64 {
        self.layers * (self.layer_params() - self.norms_per_layer * self.norm_params())
    }

    /// The largest single module's parameters (DeepSpeed's "largest layer"): the embedding, or the
    /// biggest linear.
    pub fn largest_layer_params(&self) -> u64 {
        let embed = self.vocab * self.hidden;
        let mlp_matrix = self.hidden * self.ffn;
        let qkv = self.hidden * (self.q_width() + 2 * self.kv_width());
        embed.max(mlp_matrix).max(qkv)
    }
}
