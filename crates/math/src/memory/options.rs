//! The choices a memory estimate is made of, each a typed enum with a stable name for the CLI and
//! URLs (`FromStr` + `Display`).

use serde::Serialize;

macro_rules! named_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in menu order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name used by the CLI and URLs.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let wanted = s.trim().to_ascii_lowercase();
                $name::ALL.iter().copied().find(|v| v.name() == wanted).ok_or_else(|| {
                    let names: Vec<&str> = $name::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown {} '{}'; expected one of {}", stringify!($name).to_ascii_lowercase(), s, names.join(", "))
                })
            }
        }
    };
}

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
    }
}

impl Dtype {
    /// Bits per element.
    pub const fn bits(self) -> u64 {
        match self {
            Dtype::Fp32 => 32,
            Dtype::Fp16 | Dtype::Bf16 => 16,
            Dtype::Fp8 | Dtype::Int8 => 8,
            Dtype::Int4 => 4,
        }
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
