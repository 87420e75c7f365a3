//! The words and comparisons of every chapter, in order: bytes per parameter, what training
//! adds, number formats, loss scaling (1–4); accumulation, checkpointing, 8-bit optimizers (5–7);
//! data parallel, offload, tensor and pipeline parallel (8–10); fused attention, adapters,
//! quantization for serving (11–13). The widgets that are not a comparison live in their own
//! files.

use super::scenario::{Choice, Row, Scenario};
use super::text::{comm_bytes, per_param, ChapterText, Widget};
use bitbudget_math::memory::step::CommKind;
use bitbudget_math::numbers::{format_bytes, format_count, human_bytes};

// ---- Chapters 1 to 4: bytes per parameter, what training adds, number formats, loss scaling.
/// Chapter 1.
pub const BYTES: ChapterText = ChapterText {
    title: "Bytes per parameter",
    paragraphs: &[
        "A model is a long list of numbers, its parameters. Each one is stored in a number format, and the format fixes how many bytes it takes: 4 bytes in FP32, 2 in FP16 or BF16, 1 in FP8 or INT8, half a byte in a 4-bit format.",
        "So the memory of the weights alone is the parameter count times the bytes per parameter. A billion parameters in FP32 fill 4 GB (10⁹ bytes each); the same model in 4 bits fits in half a gigabyte. Everything else in this story is added on top of this first number.",
    ],
    widget: Widget::Bytes,
    try_this: "Pick 70B parameters: in FP32 the weights alone need more than any single GPU holds, in 4 bits they fit one 80 GB card.",
};

fn bytes_per_param(row: &Row) -> String {
    row.memory
        .as_ref()
        .map_or("—".into(), |b| per_param(b.model_states, b.params))
}

/// Chapter 2's comparison: the same billion parameters served, then trained under each
/// convention.
pub static TRAINING: Scenario = Scenario {
    base: &[("params", "1e9"), ("gpu", "h100-80gb")],
    choices: &[
        Choice::new(
            "serving, FP32 weights",
            &[("mode", "inference"), ("dtype", "fp32")],
        ),
        Choice::new("training, FP32 + Adam", &[("dtype", "fp32")]),
        Choice::new("mixed precision (ZeRO paper)", &[("convention", "zero")]),
        Choice::new(
            "Megatron-LM / Hugging Face",
            &[("convention", "hf-megatron")],
        ),
        Choice::new(
            "DeepSpeed's estimator",
            &[("convention", "deepspeed"), ("zero", "3")],
        ),
    ],
    start: 2,
    scale: None,
    extra: ("model states per parameter", bytes_per_param),
};

/// Chapter 2.
pub const TRAINING_TEXT: ChapterText = ChapterText {
    title: "Training multiplies it",
    paragraphs: &[
        "Serving needs the weights. Training also needs a gradient for every weight, and Adam keeps two running averages per weight (its first and second moments). With mixed precision the weights and gradients are 16-bit, but an FP32 master copy of the weights is kept for the update: 2 + 2 + 4 + 4 + 4 = 16 bytes per parameter (Rajbhandari et al. 2020, ZeRO, section 3.1).",
        "Other bookkeepings count differently: Megatron-LM keeps FP32 gradients for accumulation (18 bytes), DeepSpeed's estimator counts its own buffers. Training in plain FP32 needs no master copy: 4 + 4 + 8 = 16 bytes too. The rule of thumb \"training takes about 6× the FP32 weights, 24 bytes per parameter\" adds room for activations on top of these 16 to 20 bytes. Activations depend on the batch and the sequence, not only on the parameter count, so a parameter count alone sizes the model states only.",
    ],
    widget: Widget::Scenario(&TRAINING),
    try_this: "Compare the serving row with the mixed-precision row: 4 bytes per parameter became 16. Then open the Megatron-LM row in the Memory page to see where its two extra bytes go.",
};

/// Chapter 3.
pub const FORMATS: ChapterText = ChapterText {
    title: "Number formats: range against precision",
    paragraphs: &[
        "A floating-point number is a sign, an exponent (the range: how big or small it can get) and a mantissa (the precision: how many digits it keeps). FP32 has 8 exponent bits and 23 mantissa bits. FP16 keeps 10 mantissa bits but only 5 exponent bits, so its largest value is 65504. BF16 keeps FP32's 8 exponent bits and only 7 mantissa bits.",
        "That is why BF16 trains without loss scaling: its range is FP32's, so gradients neither overflow nor vanish, and only the last digits are lost. FP16 is more precise but overflows to infinity above 65504 and flushes tiny gradients to zero (Micikevicius et al. 2018, \"Mixed precision training\"; Kalamkar et al. 2019 for BF16).",
    ],
    widget: Widget::Formats,
    try_this: "Choose 70000: FP16 overflows to infinity while BF16 stores a nearby value. Then choose 1e-8: FP16 rounds it to zero and BF16 keeps it.",
};

/// Chapter 4.
pub const LOSS_SCALING: ChapterText = ChapterText {
    title: "Mixed precision and loss scaling",
    paragraphs: &[
        "Gradients are small: most of the real ones below sit under FP16's smallest normal number (about 6 × 10⁻⁵), where FP16 keeps fewer and fewer digits, and some under its smallest subnormal (about 6 × 10⁻⁸), where they become zero. Loss scaling multiplies the loss by a factor S before the backward pass, so every gradient is S times larger and lands inside FP16's range; the optimizer divides by S again before the update (Micikevicius et al. 2018).",
        "Too large an S pushes the largest gradients past 65504 and they overflow. Dynamic loss scaling starts high, halves S whenever a step overflows (and skips that step), and doubles it after a run of clean steps. The update itself is applied to an FP32 master copy of the weights, because a small update added to a 16-bit weight is often rounded away.",
    ],
    widget: Widget::LossScale,
    try_this: "Raise the loss scale and watch the window of gradient magnitudes that FP16 keeps move down: small gradients survive, but the largest ones that fit shrink by the same factor.",
};

// ---- Chapters 5 to 7: gradient accumulation, activation checkpointing, 8-bit optimizers.
/// Llama 3 8B, ZeRO-3 over 8 H100s with FlashAttention: the setup chapters 5 and 6 vary.
const SHARDED_8B: &[(&str, &str)] = &[
    ("model", "llama-3-8b"),
    ("zero", "3"),
    ("dp", "8"),
    ("seq", "4096"),
    ("flash-attention", "1"),
    ("gpu", "h100-80gb"),
];

fn global_batch(row: &Row) -> String {
    let j = &row.job;
    let tokens = row.step.as_ref().map_or(0.0, |s| s.tokens_per_step);
    format!(
        "{} sequences ({} tokens)",
        j.batch * j.grad_accum * j.dp,
        format_count(tokens as u64)
    )
}

/// Chapter 5's comparison.
pub static ACCUMULATION: Scenario = Scenario {
    base: SHARDED_8B,
    choices: &[
        Choice::new("1 micro-batch per step", &[("grad-accum", "1")]),
        Choice::new("4 micro-batches", &[("grad-accum", "4")]),
        Choice::new("16 micro-batches", &[("grad-accum", "16")]),
        Choice::new("micro-batch 4, no accumulation", &[("batch", "4")]),
    ],
    start: 0,
    scale: None,
    extra: ("global batch", global_batch),
};

/// Chapter 5.
pub const ACCUMULATION_TEXT: ChapterText = ChapterText {
    title: "Gradient accumulation",
    paragraphs: &[
        "The batch the optimizer sees is micro-batch × accumulation steps × data-parallel GPUs. Each GPU runs its micro-batch forward and backward, adds the gradients to a running sum, and only after the last micro-batch does the optimizer step.",
        "Memory follows the micro-batch alone: the activations of one micro-batch are freed before the next starts. Time follows the total: four micro-batches do four times the work per step. A bigger micro-batch does the same work in one go but keeps more activations.",
    ],
    widget: Widget::Scenario(&ACCUMULATION),
    try_this: "Compare \"4 micro-batches\" with \"micro-batch 4\": the same global batch and about the same time, but only one of them fits.",
};

fn recompute_cost(row: &Row) -> String {
    row.step.as_ref().map_or("—".into(), |s| {
        format!(
            "+{:.0}% FLOPs",
            (s.hardware_flops / s.model_flops - 1.0) * 100.0
        )
    })
}

/// Chapter 6's comparison.
pub static CHECKPOINTING: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("zero", "3"),
        ("dp", "8"),
        ("seq", "8192"),
        ("gpu", "h100-80gb"),
    ],
    choices: &[
        Choice::new("keep every activation", &[("recompute", "none")]),
        Choice::new("selective recompute", &[("recompute", "selective")]),
        Choice::new("full recompute", &[("recompute", "full")]),
    ],
    start: 0,
    scale: None,
    extra: ("compute paid", recompute_cost),
};

/// Chapter 6.
pub const CHECKPOINTING_TEXT: ChapterText = ChapterText {
    title: "Activation checkpointing",
    paragraphs: &[
        "The backward pass needs what the forward pass computed, so every layer's activations wait in memory. Checkpointing keeps only some of them and computes the rest again when the backward pass needs them: memory saved, compute paid.",
        "Full recomputation keeps only each block's input and runs the whole forward pass twice, about a third more work. Selective recomputation redoes only the attention scores, which are large but cheap to compute: most of the saving for a few percent of extra FLOPs (Korthikanti et al. 2022, \"Reducing activation recomputation in large transformer models\").",
    ],
    widget: Widget::Scenario(&CHECKPOINTING),
    try_this: "Choose each row in turn: the activations part of the bar shrinks, and the \"compute paid\" column says what it cost.",
};

fn optimizer_per_param(row: &Row) -> String {
    row.memory.as_ref().map_or("—".into(), |b| {
        per_param(b.optimizer.bytes, b.trainable_params)
    })
}

/// Chapter 7's comparison.
pub static OPTIMIZERS: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("gpu", "h100-80gb"),
        ("seq", "2048"),
        ("flash-attention", "1"),
    ],
    choices: &[
        Choice::new("AdamW (FP32 states)", &[("optimizer", "adamw")]),
        Choice::new("8-bit AdamW", &[("optimizer", "adamw-8bit")]),
        Choice::new("SGD with momentum", &[("optimizer", "sgd-momentum")]),
    ],
    start: 0,
    scale: None,
    extra: ("optimizer bytes per parameter", optimizer_per_param),
};

/// Chapter 7.
pub const OPTIMIZERS_TEXT: ChapterText = ChapterText {
    title: "8-bit optimizers",
    paragraphs: &[
        "Adam's two moments are 8 bytes per parameter in FP32, plus 4 for the FP32 master weights. 8-bit optimizers store each moment in one byte, with an FP32 scale for every block of 2048 values so that one outlier does not ruin the others: the states shrink from 8 bytes to about 2 (Dettmers et al. 2022, \"8-bit optimizers via block-wise quantization\").",
        "The master weights stay in FP32, so the saving is 6 of the 16 bytes. The update is computed in FP32 after dequantizing each block, which is why training quality holds.",
    ],
    widget: Widget::Scenario(&OPTIMIZERS),
    try_this: "Switch from AdamW to 8-bit AdamW and read the optimizer column; then see how much of the whole bar that was.",
};

// ---- Chapters 8 to 10: data parallelism and ZeRO, offload, tensor and pipeline parallelism.
const EIGHT_H100: &[(&str, &str)] = &[
    ("model", "llama-3-8b"),
    ("dp", "8"),
    ("seq", "4096"),
    ("flash-attention", "1"),
    ("gpu", "h100-80gb"),
];

fn data_parallel_bytes(row: &Row) -> String {
    comm_bytes(row, CommKind::DataParallel)
}

/// Chapter 8's comparison.
pub static SHARDING: Scenario = Scenario {
    base: EIGHT_H100,
    choices: &[
        Choice::new("DDP", &[("zero", "0")]),
        Choice::new("ZeRO-1", &[("zero", "1")]),
        Choice::new("ZeRO-2", &[("zero", "2")]),
        Choice::new("ZeRO-3 / FSDP full shard", &[("zero", "3")]),
    ],
    start: 0,
    scale: None,
    extra: ("sent per GPU per step", data_parallel_bytes),
};

/// Chapter 8.
pub const SHARDING_TEXT: ChapterText = ChapterText {
    title: "Data parallel: DDP, ZeRO and FSDP",
    paragraphs: &[
        "Data parallelism gives every GPU a different slice of the batch. With DDP each GPU holds the whole model, gradients and optimizer states, and the GPUs average their gradients with an all-reduce after the backward pass.",
        "ZeRO removes the copies: stage 1 shards the optimizer states over the GPUs, stage 2 also the gradients, stage 3 (FSDP's full shard) also the weights, gathering each layer's weights just before it is used. Stages 1 and 2 send as much as DDP; stage 3 sends 1.5× as much, because the weights are gathered once in the forward and again in the backward pass (Rajbhandari et al. 2020, section 7).",
    ],
    widget: Widget::Scenario(&SHARDING),
    try_this: "Walk from DDP to ZeRO-3: the memory per GPU falls, the bytes sent rise only at stage 3, and the step time barely moves because NVLink carries it while the GPUs compute.",
};

fn pcie(row: &Row) -> String {
    let cpu = row.memory.as_ref().map_or(0, |b| b.cpu_offload);
    format!(
        "{} over PCIe; {} in CPU memory",
        comm_bytes(row, CommKind::Offload),
        human_bytes(cpu)
    )
}

/// Chapter 9's comparison.
pub static OFFLOAD: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("zero", "2"),
        ("dp", "8"),
        ("seq", "4096"),
        ("flash-attention", "1"),
        ("gpu", "h100-80gb"),
    ],
    choices: &[
        Choice::new("all on the GPU", &[("offload", "none")]),
        Choice::new("optimizer states on the CPU", &[("offload", "optimizer")]),
        Choice::new("weights too", &[("offload", "all"), ("zero", "3")]),
    ],
    start: 0,
    scale: None,
    extra: ("CPU traffic per GPU per step", pcie),
};

/// Chapter 9.
pub const OFFLOAD_TEXT: ChapterText = ChapterText {
    title: "Offload to CPU memory",
    paragraphs: &[
        "A server has far more CPU memory than GPU memory. ZeRO-Offload keeps the optimizer states and the FP32 master weights there and runs the optimizer step on the CPU: each step the 16-bit gradients cross PCIe to the CPU and the updated 16-bit weights come back (Ren et al. 2021, \"ZeRO-Offload\").",
        "ZeRO-Infinity also keeps the weights off the GPU and streams them in for every forward and backward pass. PCIe is much slower than the GPU's own memory, so what crosses it each step decides whether offload costs little or a lot.",
    ],
    widget: Widget::Scenario(&OFFLOAD),
    try_this: "Offload the optimizer, then the weights too: each time a part of the bar leaves the GPU (the activations stay), the bytes over PCIe grow, and the time per step shows what they cost.",
};

fn bubble(row: &Row) -> String {
    row.step.as_ref().map_or("—".into(), |s| {
        format!("{:.0}% idle", s.bubble_fraction * 100.0)
    })
}

/// Chapter 10's comparison.
pub static MODEL_PARALLEL: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("seq", "4096"),
        ("flash-attention", "1"),
        ("recompute", "selective"),
        ("gpu", "h100-80gb"),
    ],
    choices: &[
        Choice::new("tensor parallel 8", &[("tp", "8")]),
        Choice::new(
            "pipeline 8, 1 micro-batch",
            &[("pp", "8"), ("grad-accum", "1")],
        ),
        Choice::new(
            "pipeline 8, 8 micro-batches",
            &[("pp", "8"), ("grad-accum", "8")],
        ),
        Choice::new(
            "pipeline 8, 32 micro-batches",
            &[("pp", "8"), ("grad-accum", "32")],
        ),
        Choice::new(
            "tensor 2 × pipeline 4, 16 micro-batches",
            &[("tp", "2"), ("pp", "4"), ("grad-accum", "16")],
        ),
    ],
    start: 0,
    scale: None,
    extra: ("pipeline bubble", bubble),
};

/// Chapter 10.
pub const MODEL_PARALLEL_TEXT: ChapterText = ChapterText {
    title: "Tensor and pipeline parallel",
    paragraphs: &[
        "When one layer is too big, tensor parallelism splits its matrices across GPUs: each GPU multiplies a slice and the partial results are summed with an all-reduce twice per block, forward and backward (Shoeybi et al. 2019, Megatron-LM). That traffic sits on the critical path, so it stays inside one NVLink node.",
        "Pipeline parallelism gives each GPU a run of layers. The first stage must finish a micro-batch before the second can start, so at the start and end of each step some stages wait: the bubble is (p − 1)/(m + p − 1) of the time for p stages and m micro-batches (Narayanan et al. 2021). More micro-batches shrink it.",
    ],
    widget: Widget::Scenario(&MODEL_PARALLEL),
    try_this: "Compare the three pipeline rows: 8 stages with a single micro-batch idle most of the time; with 32 micro-batches the bubble is small.",
};

// ---- Chapters 11 to 13: FlashAttention, LoRA and QLoRA, quantization for serving.
fn activations(row: &Row) -> String {
    row.memory.as_ref().map_or("—".into(), |b| {
        format_bytes(b.activations.bytes, row.job.units)
    })
}

/// Chapter 11's comparison.
pub static FLASH: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("zero", "3"),
        ("dp", "8"),
        ("gpu", "h100-80gb"),
    ],
    choices: &[
        Choice::new("standard attention", &[("flash-attention", "0")]),
        Choice::new("FlashAttention", &[("flash-attention", "1")]),
    ],
    // The frameworks' default (Transformers' SDPA, Megatron-LM, every serving engine).
    start: 1,
    scale: Some(("Sequence length", "seq", &["2048", "4096", "8192", "16384"])),
    extra: ("activations per GPU", activations),
};

/// Chapter 11.
pub const FLASH_TEXT: ChapterText = ChapterText {
    title: "FlashAttention and fused kernels",
    paragraphs: &[
        "Attention compares every token with every other: for a sequence of s tokens each head builds an s × s matrix of scores, and a standard implementation keeps it (and its softmax) for the backward pass. That memory grows with the square of the sequence.",
        "FlashAttention computes attention in tiles that stay in the GPU's fast on-chip memory and never writes the s × s matrices out; the backward pass recomputes them from the inputs (Dao et al. 2022, \"FlashAttention\"). Memory becomes linear in s, and the kernel is faster because it moves fewer bytes.",
    ],
    widget: Widget::Scenario(&FLASH),
    try_this: "Raise the sequence length to 16384: without FlashAttention the activations explode with s², with it they only double with each doubling of s. The step time grows too: standard attention writes every score to GPU memory and reads it back, several times per layer.",
};

fn trainable(row: &Row) -> String {
    row.memory
        .as_ref()
        .map_or("—".into(), |b| format_count(b.trainable_params))
}

/// Chapter 12's comparison.
pub static ADAPTERS: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("seq", "2048"),
        ("flash-attention", "1"),
        ("gpu", "rtx-4090"),
    ],
    choices: &[
        Choice::new("full fine-tuning", &[("mode", "train")]),
        Choice::new("LoRA (BF16 base)", &[("mode", "lora")]),
        Choice::new("QLoRA (NF4 base)", &[("mode", "qlora")]),
    ],
    start: 1,
    scale: None,
    extra: ("trainable parameters", trainable),
};

/// Chapter 12.
pub const ADAPTERS_TEXT: ChapterText = ChapterText {
    title: "LoRA, QLoRA and other adapters",
    paragraphs: &[
        "Fine-tuning rarely needs to move every weight. LoRA freezes the model and learns a small low-rank update B·A beside chosen matrices: only the adapters have gradients and optimizer states, a fraction of a percent of the parameters (Hu et al. 2021, \"LoRA\").",
        "The frozen weights still have to be stored. QLoRA stores them in 4-bit NF4 and trains BF16 adapters on top, which brings a 65B model's fine-tuning onto one 48 GB GPU (Dettmers et al. 2023, \"QLoRA\"). The backward pass still runs through the frozen layers to reach the adapters below them.",
    ],
    widget: Widget::Scenario(&ADAPTERS),
    try_this: "Choose QLoRA and compare its bar with LoRA's: the weights part shrinks (NF4 blocks, BF16 embeddings) and the setup now fits the 24 GB card, even though QLoRA adapts every linear layer and so trains more parameters than LoRA's q and v.",
};

/// Chapter 13.
pub const QUANTIZE_TEXT: ChapterText = ChapterText {
    title: "Quantization for serving",
    paragraphs: &[
        "To serve a model in 8 or 4 bits, each block of weights is mapped onto a few integer codes with a scale. Absmax quantization divides by the largest magnitude so the codes are symmetric around zero; zero-point (asymmetric) quantization maps the block's minimum and maximum onto the code range, which wastes no codes when the values are lopsided.",
        "One large value stretches the scale and the small values lose their precision. Block-wise scales limit the damage to one block; LLM.int8() goes further and keeps the few outlier feature dimensions in 16 bits (Dettmers et al. 2022, \"LLM.int8()\"). Quantizing a trained model is post-training quantization (PTQ); quantization-aware training (QAT) simulates the rounding during training so the model learns around it.",
    ],
    widget: Widget::Quantize,
    try_this: "Add the outlier: with one scale for all eight weights the small ones collapse onto a few codes, one scale per block of four confines the damage to the last block, and keeping the outlier in 16 bits saves the rest. Then train both models: at 4 bits PTQ loses accuracy that QAT keeps.",
};

/// Chapter 14: serving, where the KV cache is the budget.
pub const SERVING_TEXT: ChapterText = ChapterText {
    title: "Serving: the KV cache is the budget",
    paragraphs: &[
        "A serving engine keeps every request's keys and values for every layer, so that each new token attends to the whole context without recomputing it. One token costs 2 × layers × KV heads × head width × bytes per value: 128 KiB for Llama 3.1 8B in BF16. Grouped-query attention (8 KV heads instead of 32) made that four times smaller; DeepSeek's latent attention caches one 576-wide latent per layer instead.",
        "The engines size the cache from what is left. vLLM takes gpu_memory_utilization (0.9) of the GPU, loads the weights, runs one batch as large as max_num_batched_tokens to measure the activation peak, and gives the rest to the KV cache in blocks of 16 tokens. SGLang's mem_fraction_static and TensorRT-LLM's free_gpu_memory_fraction divide the same memory differently; llama.cpp allocates n_ctx cells up front. How many requests run at once is that cache divided by what one request of max_model_len holds.",
        "Decode reads every weight and every running request's cache at each step, so one GPU's memory bandwidth sets the tokens per second while the batch is small; batching more requests shares the weight reads until the arithmetic catches up.",
    ],
    widget: Widget::Serve,
    try_this: "Raise max_model_len from 8,192 to 131,072: the same cache holds sixteen times fewer requests. Then switch the KV cache to FP8, which halves every token, and pick Gemma 3 12B, whose windowed layers keep only the last 1,024 tokens.",
};

/// Chapter 15's comparison: Llama 3 8B on 8 GPUs with ZeRO-1 (Megatron-LM's distributed
/// optimizer), FlashAttention, 4k tokens, under each FP8 and FP4 recipe.
pub static FP8_RECIPES: Scenario = Scenario {
    base: &[
        ("model", "llama-3-8b"),
        ("zero", "1"),
        ("dp", "8"),
        ("batch", "2"),
        ("seq", "4096"),
        ("flash-attention", "1"),
    ],
    choices: &[
        Choice::new(
            "BF16 (Megatron-LM: FP32 gradients)",
            &[("precision", "mixed"), ("convention", "hf-megatron")],
        ),
        Choice::new(
            "FP8, delayed scaling (Transformer Engine)",
            &[("precision", "fp8-delayed")],
        ),
        Choice::new(
            "FP8, current scaling + FP8 all-gather",
            &[("precision", "fp8-current"), ("fp8-param-gather", "1")],
        ),
        Choice::new(
            "FP8 1×128 / 128×128 (DeepSeek-V3)",
            &[("precision", "fp8-blockwise"), ("moments", "bf16")],
        ),
        Choice::new("MXFP8 (Blackwell)", &[("precision", "mxfp8")]),
        Choice::new("NVFP4 (Blackwell)", &[("precision", "nvfp4")]),
    ],
    start: 1,
    scale: Some(("GPU", "gpu", &["h100-80gb", "b200"])),
    extra: ("weights with their copies", weights),
};

fn weights(row: &Row) -> String {
    row.memory.as_ref().map_or("—".into(), |b| {
        format_bytes(b.weights.bytes, row.job.units)
    })
}

/// Chapter 15: FP8 and FP4 training.
pub const FP8_TEXT: ChapterText = ChapterText {
    title: "FP8 and FP4 training: what they cost and buy",
    paragraphs: &[
        "FP8 and FP4 tensor cores multiply two to four times faster than BF16 ones (Hopper and Ada run FP8, Blackwell also FP4). Training in them does not mean storing the model in 8 bits: the recipes keep the BF16 weights, the FP32 master copy, FP32 gradients and Adam's moments, and add low-precision copies of each linear layer's weight for the matmuls. On Hopper an FP8 matmul reads its operands one way only, so Transformer Engine keeps a transposed copy too; block-scaled formats keep both orientations because their scales differ. That is why users report FP8 runs that take more memory than BF16 (Transformer Engine issues #257, #1429).",
        "What FP8 saves is the activations: a linear layer's input is saved for the backward pass in 8 bits instead of 16. DeepSeek-V3 went further: 1×128 tiles for activations, 128×128 blocks for weights, BF16 moments and recomputed SwiGLU outputs (arXiv:2412.19437, section 3.3). The FP8 all-gather (Megatron-LM's --fp8-param-gather) drops the BF16 copy of the quantized layers altogether.",
        "The scale is the other half of the story. One scale per tensor lets a single large value set the step for everything; finer blocks confine an outlier to its own block, at the cost of more scales. NVFP4 uses 16-value blocks with an E4M3 scale and a per-tensor FP32 scale, keeps the last blocks in BF16, and applies a random Hadamard transform and stochastic rounding to the inputs of the weight-gradient matmuls (arXiv:2509.25149, section 4). On the weight below the transform lowers the SQNR: it spreads an outlier's rounding error over its 16 neighbours; the paper uses it on gradients, whose outliers it turns into a near-Gaussian spread that 4-bit blocks represent better.",
        "A per-tensor scale also has a when. Transformer Engine's delayed scaling quantizes this step's tensor with a scale from the largest magnitudes of the steps before (an amax history, 1024 steps by default), so that it never waits for a pass over the tensor. A tensor that grows faster than its history saturates at ±448; one that shrinks while a large amax is still remembered flushes its small values to zero. Current scaling reads the tensor first and pays one more pass.",
    ],
    widget: Widget::Fp8,
    try_this: "Compare delayed scaling with BF16: the weights grow by the FP8 copy and its transpose, the activations shrink. Switch the GPU to the B200: the transpose disappears and MXFP8 and NVFP4 become real options. Then make channel 5 an outlier and watch one scale per tensor lose its precision while 1×128 tiles keep most of theirs.",
};

/// Chapter 16's comparison: Llama 3 70B on 64 H100s at 32k tokens, laid out five ways.
pub static FIVE_D: Scenario = Scenario {
    base: &[
        ("model", "llama-3-70b"),
        ("seq", "32768"),
        ("flash-attention", "1"),
        ("recompute", "selective"),
        ("gpu", "h100-80gb"),
    ],
    choices: &[
        Choice::new("DP 64, ZeRO-3", &[("dp", "64"), ("zero", "3")]),
        Choice::new(
            "TP 8 × DP 8, ZeRO-1",
            &[
                ("tp", "8"),
                ("sequence-parallel", "1"),
                ("dp", "8"),
                ("zero", "1"),
            ],
        ),
        Choice::new(
            "TP 8 × PP 4 × DP 2, ZeRO-1",
            &[
                ("tp", "8"),
                ("sequence-parallel", "1"),
                ("pp", "4"),
                ("dp", "2"),
                ("zero", "1"),
                ("grad-accum", "8"),
            ],
        ),
        Choice::new(
            "TP 8 × CP 4 × DP 2, ZeRO-1",
            &[
                ("tp", "8"),
                ("sequence-parallel", "1"),
                ("cp", "4"),
                ("dp", "2"),
                ("zero", "1"),
            ],
        ),
        Choice::new(
            "TP 8 × CP 8, ZeRO-1",
            &[
                ("tp", "8"),
                ("sequence-parallel", "1"),
                ("cp", "8"),
                ("dp", "1"),
                ("zero", "1"),
            ],
        ),
    ],
    start: 3,
    scale: Some(("Sequence", "seq", &["32768", "65536", "8192"])),
    extra: ("activations", activations),
};

/// Chapter 16.
pub const FIVE_D_TEXT: ChapterText = ChapterText {
    title: "5D parallelism: data, tensor, pipeline, context, expert",
    paragraphs: &[
        "A large training job divides its work five ways. Data parallelism runs replicas on different micro-batches (ZeRO shards their states); tensor parallelism splits every matrix; pipeline parallelism gives each GPU a run of layers; context parallelism splits every sequence; expert parallelism divides a mixture-of-experts model's routed experts. The GPUs are dp × tp × pp × cp; expert parallelism re-divides the same GPUs (Hugging Face's Ultra-Scale Playbook, 2025; Megatron-LM).",
        "Each divides something different, and pays for it in different traffic. Tensor parallelism divides weights and activations by t but all-reduces on the critical path, so it stays inside a node. A pipeline divides the weights by stage, but its first stage still holds p micro-batches in flight: as many activations as the whole model's. Context parallelism divides the activations of long sequences, passing keys and values round a ring while each chunk's attention is computed (Liu et al. 2023, ring attention). Expert parallelism sends every token to its experts' GPUs and back, two all-to-alls per MoE layer.",
        "Megatron-LM numbers the GPUs tensor-parallel first, then context, data and pipeline, so a tensor-parallel group is one node and the pipeline's stages are the farthest apart. The grid shows where each GPU sits: point at one to see its groups and what it holds.",
    ],
    widget: Widget::Layout(&FIVE_D),
    try_this: "At 32k tokens only context parallelism fits the 64 GPUs: the pipeline divides the weights but not the first stage's activations. Raise the sequence to 65,536: now only context parallel 8 fits. Then point at GPU 17 in the grid and read which tokens of each sequence it holds.",
};
