//! The name of every option a job is described by: its key (the CLI's long flag without `--`, and
//! the URL parameter) and what it is, in words. Leaf module: errors, validation and the option table
//! all name options through these constants, so a key is spelled once.

/// An option's key and its description in plain words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OptionKey {
    /// Key, e.g. `dp`: the CLI's `--dp` and the URL's `dp=`.
    pub key: &'static str,
    /// What it is, e.g. "data-parallel degree": used in messages.
    pub what: &'static str,
}

macro_rules! keys {
    ($($(#[$m:meta])* $name:ident = $key:literal, $what:literal;)+) => {
        $($(#[$m])* pub const $name: OptionKey = OptionKey { key: $key, what: $what };)+
    };
}

keys! {
    /// Model preset id, or `custom`.
    MODEL = "model", "model";
    /// Parameter count alone.
    PARAMS = "params", "parameter count";
    /// Custom architecture: blocks.
    LAYERS = "layers", "number of layers";
    /// Custom architecture: hidden size.
    HIDDEN = "hidden", "hidden size";
    /// Custom architecture: attention heads.
    HEADS = "heads", "number of attention heads";
    /// Custom architecture: key/value heads.
    KV_HEADS = "kv-heads", "number of KV heads";
    /// Custom architecture: feed-forward width.
    FFN = "ffn", "feed-forward size";
    /// Custom architecture: vocabulary.
    VOCAB = "vocab", "vocabulary size";
    /// A whole architecture read from a config, as text (links carry it).
    ARCH = "arch", "architecture";
    /// Custom architecture: MLP shape.
    MLP = "mlp", "MLP kind";
    /// Training, fine-tuning or serving.
    MODE = "mode", "mode";
    /// Weight dtype.
    DTYPE = "dtype", "weight dtype";
    /// Optimizer.
    OPTIMIZER = "optimizer", "optimizer";
    /// ZeRO stage.
    ZERO = "zero", "ZeRO stage";
    /// Data-parallel degree.
    DP = "dp", "data-parallel degree";
    /// Tensor-parallel degree.
    TP = "tp", "tensor-parallel degree";
    /// Pipeline-parallel degree.
    PP = "pp", "pipeline-parallel degree";
    /// Virtual pipeline stages per pipeline rank (interleaved 1F1B).
    VPP = "vpp", "virtual pipeline stages per GPU";
    /// Context-parallel degree.
    CP = "cp", "context-parallel degree";
    /// Expert-parallel degree.
    EP = "ep", "expert-parallel degree";
    /// Expert tensor-parallel degree.
    ETP = "etp", "expert tensor-parallel degree";
    /// The busiest GPU's routed tokens against even routing, in percent.
    EXPERT_LOAD = "expert-load", "busiest expert GPU's load";
    /// Multi-token prediction modules trained.
    MTP = "mtp", "multi-token prediction modules";
    /// Sequence parallelism.
    SEQUENCE_PARALLEL = "sequence-parallel", "sequence parallelism";
    /// Micro-batch per GPU.
    BATCH = "batch", "micro-batch size";
    /// Sequence length.
    SEQ = "seq", "sequence length";
    /// Activation recomputation.
    RECOMPUTE = "recompute", "activation recomputation";
    /// FlashAttention.
    FLASH_ATTENTION = "flash-attention", "FlashAttention";
    /// CPU offload.
    OFFLOAD = "offload", "CPU offload";
    /// KV-cache dtype.
    KV_DTYPE = "kv-dtype", "KV-cache dtype";
    /// LoRA rank.
    LORA_RANK = "lora-rank", "LoRA rank";
    /// LoRA targets.
    LORA_TARGETS = "lora-targets", "LoRA targets";
    /// Precision recipe (where the FP32 copies live).
    PRECISION = "precision", "precision recipe";
    /// How the optimizer step is implemented (its transient memory).
    OPTIMIZER_STEP = "optimizer-step", "optimizer implementation";
    /// LoRA dropout on the adapters' input.
    LORA_DROPOUT = "lora-dropout", "LoRA dropout";
    /// Adapter weight dtype.
    ADAPTER_DTYPE = "adapter-dtype", "adapter dtype";
    /// FP32 gradient accumulation buffer.
    FP32_GRAD_ACCUM = "fp32-grad-accum", "FP32 gradient accumulation";
    /// Adam's moments' number type.
    MOMENTS = "moments", "moments' dtype";
    /// FP8 weights gathered as the parameters.
    FP8_PARAM_GATHER = "fp8-param-gather", "FP8 parameter all-gather";
    /// Step time: share of the tensor peak sustained, in percent.
    UTILISATION = "utilisation", "utilisation";
    /// Step time: micro-batches per optimizer step.
    GRAD_ACCUM = "grad-accum", "gradient accumulation steps";
    /// Overhead in bytes.
    OVERHEAD = "overhead", "overhead per GPU in bytes";
    /// GPU preset.
    GPU = "gpu", "GPU";
    /// Bookkeeping convention.
    CONVENTION = "convention", "convention";
    /// GPUs per node.
    GPUS_PER_NODE = "gpus-per-node", "number of GPUs per node";
    /// GB or GiB.
    UNITS = "units", "units";
}
