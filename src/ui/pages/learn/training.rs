//! Chapters 5 to 7: gradient accumulation, activation checkpointing, 8-bit optimizers.

use super::scenario::{Choice, Row, Scenario};
use super::text::{per_param, ChapterText, Widget};
use bitbudget_math::numbers::format_count;

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
        Choice {
            label: "1 micro-batch per step",
            pairs: &[("grad-accum", "1")],
        },
        Choice {
            label: "4 micro-batches",
            pairs: &[("grad-accum", "4")],
        },
        Choice {
            label: "16 micro-batches",
            pairs: &[("grad-accum", "16")],
        },
        Choice {
            label: "micro-batch 4, no accumulation",
            pairs: &[("batch", "4")],
        },
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
        Choice {
            label: "keep every activation",
            pairs: &[("recompute", "none")],
        },
        Choice {
            label: "selective recompute",
            pairs: &[("recompute", "selective")],
        },
        Choice {
            label: "full recompute",
            pairs: &[("recompute", "full")],
        },
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
        Choice {
            label: "AdamW (FP32 states)",
            pairs: &[("optimizer", "adamw")],
        },
        Choice {
            label: "8-bit AdamW",
            pairs: &[("optimizer", "adamw-8bit")],
        },
        Choice {
            label: "SGD with momentum",
            pairs: &[("optimizer", "sgd-momentum")],
        },
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
