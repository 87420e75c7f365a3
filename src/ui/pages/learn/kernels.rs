//! Chapters 11 to 13: FlashAttention, LoRA and QLoRA, quantization for serving.

use super::scenario::{Choice, Row, Scenario};
use super::text::{ChapterText, Widget};
use bitbudget_math::numbers::{format_bytes, format_count};

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
        Choice {
            label: "standard attention",
            pairs: &[("flash-attention", "0")],
        },
        Choice {
            label: "FlashAttention",
            pairs: &[("flash-attention", "1")],
        },
    ],
    start: 0,
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
    try_this: "Raise the sequence length to 16384: without FlashAttention the activations explode with s², with it they only double with each doubling of s.",
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
        Choice {
            label: "full fine-tuning",
            pairs: &[("mode", "train")],
        },
        Choice {
            label: "LoRA (BF16 base)",
            pairs: &[("mode", "lora")],
        },
        Choice {
            label: "QLoRA (NF4 base)",
            pairs: &[("mode", "qlora")],
        },
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
