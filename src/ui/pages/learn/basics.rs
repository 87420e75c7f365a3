//! Chapters 1 to 4: bytes per parameter, what training adds, number formats, loss scaling.

use super::scenario::{Choice, Row, Scenario};
use super::text::{per_param, ChapterText, Widget};

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
        Choice {
            label: "serving, FP32 weights",
            pairs: &[("mode", "inference"), ("dtype", "fp32")],
        },
        Choice {
            label: "training, FP32 + Adam",
            pairs: &[("dtype", "fp32")],
        },
        Choice {
            label: "mixed precision (ZeRO paper)",
            pairs: &[("convention", "zero")],
        },
        Choice {
            label: "Megatron-LM / Hugging Face",
            pairs: &[("convention", "hf-megatron")],
        },
        Choice {
            label: "DeepSpeed's estimator",
            pairs: &[("convention", "deepspeed"), ("zero", "3")],
        },
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
        "Gradients are often tiny: many sit far below FP16's smallest subnormal (about 6 × 10⁻⁸) and would become zero. Loss scaling multiplies the loss by a factor S before the backward pass, so every gradient is S times larger and lands inside FP16's range; the optimizer divides by S again before the update (Micikevicius et al. 2018).",
        "Too large an S pushes the largest gradients past 65504 and they overflow. Dynamic loss scaling starts high, halves S whenever a step overflows (and skips that step), and doubles it after a run of clean steps. The update itself is applied to an FP32 master copy of the weights, because a small update added to a 16-bit weight is often rounded away.",
    ],
    widget: Widget::LossScale,
    try_this: "Raise the loss scale and watch the window of gradient magnitudes that FP16 keeps move down: small gradients survive, but the largest ones that fit shrink by the same factor.",
};
