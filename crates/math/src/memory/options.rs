//! The choices a memory estimate is made of, each a typed enum with a stable name for the CLI and
//! URLs (`FromStr` + `Display`).

use crate::gguf::TensorType;
use crate::named::named_enum;
use serde::Serialize;

named_enum! {
    /// What the GPUs are doing.
    Mode {
        /// Full training: every parameter has gradients and optimizer states.
        Train = "train",
        /// Frozen base weights plus trainable low-rank adapters (Hu et al. 2021).
        Lora = "lora",
        /// LoRA on a base whose block linears are stored in NF4 (Dettmers et al. 2023).
        Qlora = "qlora",
        /// Serving: weights, KV cache and one forward pass.
        Inference = "inference",
    }
}

named_enum! {
    /// Storage type of the weights (and, in training, the compute type).
    Dtype {
        /// 32-bit float.
        Fp32 = "fp32",
        /// IEEE half.
        Fp16 = "fp16",
        /// bfloat16.
        Bf16 = "bf16",
        /// 8-bit float (E4M3 / E5M2).
        Fp8 = "fp8",
        /// 8-bit integer.
        Int8 = "int8",
        /// 4-bit integer.
        Int4 = "int4",
        // llama.cpp's file types (`llama_ftype`, include/llama.h): a mix of GGML types per
        // tensor, chosen by llama.cpp's rules (memory::states::gguf_mix). Serving only.
        /// llama.cpp Q2_K: Q2_K with Q3_K/Q4_K for the sensitive tensors.
        Q2K = "q2_k",
        /// llama.cpp Q3_K_S: Q3_K throughout.
        Q3KS = "q3_k_s",
        /// llama.cpp Q3_K_M: Q3_K with Q4_K/Q5_K for attention V and output and FFN down.
        Q3KM = "q3_k_m",
        /// llama.cpp Q3_K_L: Q3_K with Q5_K for attention V and output and FFN down.
        Q3KL = "q3_k_l",
        /// llama.cpp Q4_0: Q4_0 throughout (32-value blocks, one scale).
        Q40 = "q4_0",
        /// llama.cpp Q4_1: Q4_1 throughout.
        Q41 = "q4_1",
        /// llama.cpp Q5_0: Q5_0 throughout.
        Q50 = "q5_0",
        /// llama.cpp Q5_1: Q5_1 throughout.
        Q51 = "q5_1",
        /// llama.cpp Q8_0: Q8_0 throughout.
        Q80 = "q8_0",
        /// llama.cpp Q4_K_S: Q4_K with Q5_K for the first attention V and FFN down blocks.
        Q4KS = "q4_k_s",
        /// llama.cpp Q4_K_M: Q4_K with Q6_K for half of attention V and FFN down.
        Q4KM = "q4_k_m",
        /// llama.cpp Q5_K_S: Q5_K throughout.
        Q5KS = "q5_k_s",
        /// llama.cpp Q5_K_M: Q5_K with Q6_K for half of attention V and FFN down.
        Q5KM = "q5_k_m",
        /// llama.cpp Q6_K: Q6_K throughout.
        Q6K = "q6_k",
        /// llama.cpp IQ4_NL: non-linear 4-bit codes in 32-value blocks.
        Iq4Nl = "iq4_nl",
        /// llama.cpp IQ4_XS: non-linear 4-bit codes in 256-value super-blocks.
        Iq4Xs = "iq4_xs",
    }
}

/// Why a llama.cpp file type cannot be trained.
pub const GGUF_SERVING_ONLY: &str = "llama.cpp file types (q4_k_m, q8_0, ...) are for serving with llama.cpp: training needs fp32, fp16, bf16 or fp8 weights";

impl Mode {
    /// The modes the Memory page and `bitbudget memory` size: training and fine-tuning (serving
    /// is sized by the engines' accounting, [`crate::serve`]).
    pub const TRAINING: &'static [Mode] = &[Mode::Train, Mode::Lora, Mode::Qlora];
}

impl Dtype {
    /// The plain number types (no llama.cpp file types): what a KV cache or training can use.
    pub const PLAIN: &'static [Dtype] = &[
        Dtype::Fp32,
        Dtype::Fp16,
        Dtype::Bf16,
        Dtype::Fp8,
        Dtype::Int8,
        Dtype::Int4,
    ];

    /// Bits per element. For a llama.cpp file type, its main GGML type's bits per weight
    /// rounded up (Q4_K's 4.5 gives 5): an upper bound for per-element estimates; the weights
    /// themselves are sized tensor by tensor ([`crate::memory::states::gguf_mix`]).
    pub const fn bits(self) -> u64 {
        match self {
            Dtype::Fp32 => 32,
            Dtype::Fp16 | Dtype::Bf16 => 16,
            Dtype::Fp8 | Dtype::Int8 => 8,
            Dtype::Int4 => 4,
            _ => match self.gguf_type() {
                Some(t) => (8 * t.block_bytes()).div_ceil(t.block_values()),
                None => 16,
            },
        }
    }

    /// Whether this is a llama.cpp file type (a per-tensor mix of GGML types; serving only).
    pub const fn is_gguf(self) -> bool {
        self.gguf_type().is_some()
    }

    /// The main GGML type of a llama.cpp file type (`llama_ftype_get_default_type` in
    /// llama.cpp's `src/llama-quant.cpp`); `None` for the plain dtypes.
    pub const fn gguf_type(self) -> Option<TensorType> {
        use TensorType as T;
        Some(match self {
            Dtype::Q2K => T::Q2_K,
            Dtype::Q3KS | Dtype::Q3KM | Dtype::Q3KL => T::Q3_K,
            Dtype::Q40 => T::Q4_0,
            Dtype::Q41 => T::Q4_1,
            Dtype::Q50 => T::Q5_0,
            Dtype::Q51 => T::Q5_1,
            Dtype::Q80 => T::Q8_0,
            Dtype::Q4KS | Dtype::Q4KM => T::Q4_K,
            Dtype::Q5KS | Dtype::Q5KM => T::Q5_K,
            Dtype::Q6K => T::Q6_K,
            Dtype::Iq4Nl => T::IQ4_NL,
            Dtype::Iq4Xs => T::IQ4_XS,
            Dtype::Fp32 | Dtype::Fp16 | Dtype::Bf16 | Dtype::Fp8 | Dtype::Int8 | Dtype::Int4 => {
                return None
            }
        })
    }
}

named_enum! {
    /// The optimizer.
    Optimizer {
        /// AdamW with FP32 first and second moments.
        Adamw = "adamw",
        /// bitsandbytes 8-bit AdamW: 8-bit moments plus an FP32 absmax per 256-element block.
        Adamw8bit = "adamw-8bit",
        /// SGD with an FP32 momentum buffer.
        SgdMomentum = "sgd-momentum",
        /// Plain SGD: no state.
        Sgd = "sgd",
    }
}

named_enum! {
    /// Activation recomputation (Korthikanti et al. 2022).
    Recompute {
        /// Keep every activation for the backward pass.
        None = "none",
        /// Recompute the attention core (scores, softmax, dropout): drops the 5as/h term.
        Selective = "selective",
        /// Keep only each layer's input and recompute the layer in the backward pass.
        Full = "full",
        /// Hugging Face's `gradient_checkpointing_enable()`: `torch.utils.checkpoint` around each
        /// decoder layer. Each layer's input stays; in the backward pass one layer at a time is
        /// recomputed, so one layer's full activations come back; the output layer (logits, loss)
        /// is not checkpointed.
        Layer = "layer",
    }
}

named_enum! {
    /// Where the FP32 copies of a training run live (the weight dtype is the compute dtype).
    Precision {
        /// Mixed precision with an FP32 master copy (Micikevicius et al. 2018; Megatron-LM,
        /// DeepSpeed): 16-bit weights and gradients, FP32 master weights and Adam moments in the
        /// optimizer, persistent gradient buffers, fused kernels (Korthikanti et al.'s activations).
        Mixed = "mixed",
        /// PyTorch's `torch.autocast`: FP32 parameters, gradients and Adam moments; the matmuls
        /// run on 16-bit copies of the weights, which autocast caches through the forward pass
        /// (Transformers' activation tensors).
        Autocast = "autocast",
        /// Parameters, gradients and optimizer states all in the weight dtype, no master copy
        /// (a model loaded with `torch_dtype=bfloat16` and trained as is; Transformers' tensors).
        Pure = "pure",
        /// Transformer Engine's `DelayedScaling` (Megatron-LM `--fp8-recipe delayed`): per-tensor
        /// FP8 scales from an amax history of 1024 steps per FP8 tensor.
        Fp8Delayed = "fp8-delayed",
        /// Transformer Engine's `Float8CurrentScaling` (Megatron-LM `--fp8-recipe tensorwise`):
        /// one FP8 scale per tensor from the tensor itself.
        Fp8Current = "fp8-current",
        /// torchao's float8 `rowwise` recipe (torchtitan): a scale per row, FP32 parameters under
        /// FSDP2, the high-precision input saved for the backward pass.
        Fp8Rowwise = "fp8-rowwise",
        /// DeepSeek-V3's recipe (Transformer Engine `Float8BlockScaling`, Megatron-LM
        /// `--fp8-recipe blockwise`): 1×128 activation tiles, 128×128 weight blocks, FP32 scales.
        Fp8Blockwise = "fp8-blockwise",
        /// OCP MX FP8 (Transformer Engine `MXFP8BlockScaling`, Blackwell): E4M3 in blocks of 32
        /// with an E8M0 scale each, both orientations of every weight.
        Mxfp8 = "mxfp8",
        /// NVFP4 training (Transformer Engine `NVFP4BlockScaling`, arXiv:2509.25149): E2M1 in
        /// blocks of 16 with E4M3 scales and an FP32 tensor scale, 16×16 weight blocks, the last
        /// 15% of the blocks in BF16.
        Nvfp4 = "nvfp4",
    }
}

impl Precision {
    /// The FP8 and FP4 recipes, in the order the CLI lists them.
    pub const LOW: [Precision; 6] = [
        Precision::Fp8Delayed,
        Precision::Fp8Current,
        Precision::Fp8Rowwise,
        Precision::Fp8Blockwise,
        Precision::Mxfp8,
        Precision::Nvfp4,
    ];

    /// Whether this is an FP8 or FP4 recipe (matmuls in 8 or 4 bits, copies of the weights in
    /// those formats beside the 16-bit ones).
    pub fn is_low(self) -> bool {
        Self::LOW.contains(&self)
    }
}

named_enum! {
    /// The number type of Adam's two moments in an FP8 or FP4 recipe.
    Moments {
        /// FP32 moments (PyTorch's, Megatron-LM's and Transformer Engine's default).
        Fp32 = "fp32",
        /// BF16 moments, as DeepSeek-V3 kept them (arXiv:2412.19437, section 3.3.3; Megatron-LM
        /// `--exp-avg-dtype bf16 --exp-avg-sq-dtype bf16`).
        Bf16 = "bf16",
    }
}

impl Moments {
    /// Bytes per element of one moment.
    pub const fn bytes(self) -> u64 {
        match self {
            Moments::Fp32 => 4,
            Moments::Bf16 => 2,
        }
    }
}

named_enum! {
    /// How the optimizer step is implemented, which decides its transient memory.
    OptimizerStep {
        /// One fused kernel per parameter group (`torch.optim.AdamW(fused=True)`, apex and
        /// DeepSpeed FusedAdam): no step temporaries.
        Fused = "fused",
        /// `torch._foreach_*` over parameter lists (PyTorch's default on CUDA): Adam's
        /// `_multi_tensor_adam` allocates `exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs)`, one
        /// temporary the size of the parameters it steps.
        Foreach = "foreach",
    }
}

named_enum! {
    /// What is moved to CPU memory (ZeRO-Offload / ZeRO-Infinity).
    Offload {
        /// Everything on the GPU.
        None = "none",
        /// Optimizer states (and the update) on the CPU.
        Optimizer = "optimizer",
        /// Optimizer states and weights on the CPU; the GPU holds one layer's weights at a time.
        All = "all",
    }
}

named_enum! {
    /// Whose bookkeeping the model states follow.
    Convention {
        /// bitbudget's default: the ZeRO paper's 2 + 2 + K bytes per parameter, adjusted for the
        /// chosen dtype and optimizer.
        Bitbudget = "bitbudget",
        /// The ZeRO paper (Rajbhandari et al. 2020): mixed-precision Adam, 2 + 2 + 12 = 16 B/param.
        Zero = "zero",
        /// Megatron-LM / Hugging Face: FP32 gradients, 2 + 4 + 12 = 18 B/param.
        HfMegatron = "hf-megatron",
        /// DeepSpeed's `estimate_zero2/3_model_states_mem_needs`, with its CPU memory.
        Deepspeed = "deepspeed",
        /// Megatron-LM's `theoretical_memory_usage.py`: weights and optimizer of the most loaded
        /// shard, and its activation formula.
        Megatron = "megatron",
    }
}

/// ZeRO stage / FSDP sharding strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
pub struct ZeroStage(pub u8);

impl ZeroStage {
    /// Every stage.
    pub const ALL: [ZeroStage; 4] = [ZeroStage(0), ZeroStage(1), ZeroStage(2), ZeroStage(3)];

    /// Human name with the FSDP equivalent: "DDP (FSDP NO_SHARD)", "ZeRO-3 (FSDP FULL_SHARD)".
    pub const fn label(self) -> &'static str {
        match self.0 {
            0 => "DDP (FSDP NO_SHARD)",
            1 => "ZeRO-1",
            2 => "ZeRO-2 (FSDP SHARD_GRAD_OP)",
            _ => "ZeRO-3 (FSDP FULL_SHARD)",
        }
    }
}

impl std::str::FromStr for ZeroStage {
    type Err = String;

    /// `0`–`3`, or the FSDP names `no_shard`, `shard_grad_op`, `full_shard`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "0" | "ddp" | "no_shard" => Ok(ZeroStage(0)),
            "1" => Ok(ZeroStage(1)),
            "2" | "shard_grad_op" => Ok(ZeroStage(2)),
            "3" | "full_shard" | "fsdp" => Ok(ZeroStage(3)),
            _ => Err(format!("unknown ZeRO stage '{s}'; expected 0, 1, 2, 3, no_shard, shard_grad_op or full_shard")),
        }
    }
}

impl std::fmt::Display for ZeroStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
