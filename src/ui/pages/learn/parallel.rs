//! Chapters 8 to 10: data parallelism and ZeRO, offload, tensor and pipeline parallelism.

use super::scenario::{Choice, Row, Scenario};
use super::text::{comm_bytes, ChapterText, Widget};
use bitbudget_math::memory::step::CommKind;
use bitbudget_math::numbers::human_bytes;

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
        Choice {
            label: "DDP",
            pairs: &[("zero", "0")],
        },
        Choice {
            label: "ZeRO-1",
            pairs: &[("zero", "1")],
        },
        Choice {
            label: "ZeRO-2",
            pairs: &[("zero", "2")],
        },
        Choice {
            label: "ZeRO-3 / FSDP full shard",
            pairs: &[("zero", "3")],
        },
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
        Choice {
            label: "all on the GPU",
            pairs: &[("offload", "none")],
        },
        Choice {
            label: "optimizer states on the CPU",
            pairs: &[("offload", "optimizer")],
        },
        Choice {
            label: "weights too",
            pairs: &[("offload", "all"), ("zero", "3")],
        },
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
        Choice {
            label: "tensor parallel 8",
            pairs: &[("tp", "8")],
        },
        Choice {
            label: "pipeline 8, 1 micro-batch",
            pairs: &[("pp", "8"), ("grad-accum", "1")],
        },
        Choice {
            label: "pipeline 8, 8 micro-batches",
            pairs: &[("pp", "8"), ("grad-accum", "8")],
        },
        Choice {
            label: "pipeline 8, 32 micro-batches",
            pairs: &[("pp", "8"), ("grad-accum", "32")],
        },
        Choice {
            label: "tensor 2 × pipeline 4, 16 micro-batches",
            pairs: &[("tp", "2"), ("pp", "4"), ("grad-accum", "16")],
        },
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
