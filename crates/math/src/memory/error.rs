//! Why a job cannot be sized: one variant per kind of problem, carrying the option it concerns and
//! the values involved. Messages are plain words that name the option by what it is (no CLI flag
//! syntax); the CLI may prefix `--key`, the page shows them as they are.

use super::keys::OptionKey;
use super::options::{Dtype, Mode};

/// An invalid job description or setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryError {
    /// A text value that does not parse (`reason` says why, e.g. "is not a number").
    BadValue {
        /// The option.
        option: OptionKey,
        /// The text given.
        value: String,
        /// Why it was refused, in words.
        reason: String,
    },
    /// A parallel degree or GPU count of 0.
    NoGpu {
        /// The option.
        option: OptionKey,
    },
    /// A count that must be at least 1 is 0.
    Zero {
        /// The option.
        option: OptionKey,
    },
    /// A count above the largest accepted value.
    TooLarge {
        /// The option.
        option: OptionKey,
        /// The value given.
        value: u64,
        /// The largest value accepted.
        limit: u64,
    },
    /// A ZeRO stage other than 0 to 3.
    NoSuchZeroStage {
        /// The stage given.
        stage: u8,
    },
    /// Full training with an integer weight dtype.
    IntegerTraining {
        /// The dtype.
        dtype: Dtype,
    },
    /// Training or LoRA with a llama.cpp file type as the weights.
    GgufTraining {
        /// The dtype.
        dtype: Dtype,
    },
    /// DeepSpeed's convention asked for ZeRO-0 or ZeRO-1 training.
    DeepspeedNeedsZero2 {
        /// The stage given.
        stage: u8,
    },
    /// LoRA or QLoRA with only a parameter count.
    AdaptersNeedArchitecture {
        /// The mode.
        mode: Mode,
    },
    /// `value` of `option` does not divide `total` of `of`.
    DoesNotDivide {
        /// The option whose value should divide.
        option: OptionKey,
        /// Its value.
        value: u64,
        /// What is divided, e.g. "attention heads".
        of: &'static str,
        /// How many of them.
        total: u64,
    },
    /// The hidden size is smaller than the number of heads (a head would have width 0).
    HiddenBelowHeads {
        /// Hidden size.
        hidden: u64,
        /// Heads.
        heads: u64,
    },
    /// More pipeline stages than layers.
    MoreStagesThanLayers {
        /// Pipeline-parallel degree.
        pp: u64,
        /// Layers.
        layers: u64,
    },
    /// Active experts not between 1 and the number of experts.
    BadExperts {
        /// Experts.
        experts: u64,
        /// Active experts per token.
        active: u64,
    },
    /// A knob of the step-time model out of its range.
    BadStepParameter {
        /// What the knob is, in words ("utilisation").
        what: &'static str,
        /// The value given, as text.
        value: String,
        /// The accepted range, in words.
        expected: String,
    },
    /// An architecture whose parameter count is above the accepted limit.
    ArchitectureTooLarge {
        /// Its (matmul) parameters.
        params: u128,
        /// The largest count accepted.
        limit: u64,
    },
    /// A result above `u64::MAX` bytes.
    Overflow,
    /// Both a model and a parameter count were given.
    ModelAndParams,
    /// No model, parameter count or custom architecture was given.
    NoModel,
    /// A key that is not a memory option.
    UnknownOption {
        /// The key given.
        key: String,
    },
}

impl std::fmt::Display for MemoryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use MemoryError::*;
        match self {
            BadValue { option, value, reason } => write!(f, "{}: '{value}' {reason}", option.what),
            NoGpu { option } => write!(f, "{} is 0: at least one GPU is needed", option.what),
            Zero { option } => write!(f, "{} must be at least 1", option.what),
            TooLarge { option, value, limit } => {
                write!(f, "{} {value} is above the limit of {limit}", option.what)
            }
            NoSuchZeroStage { stage } => {
                write!(f, "ZeRO stage {stage} does not exist: stages are 0 to 3")
            }
            IntegerTraining { dtype } => write!(
                f,
                "full training in {dtype} is not possible: choose QLoRA or inference"
            ),
            GgufTraining { dtype } => write!(
                f,
                "{dtype} is a llama.cpp file type for serving: {}",
                super::options::GGUF_SERVING_ONLY
            ),
            DeepspeedNeedsZero2 { stage } => write!(
                f,
                "DeepSpeed's estimators cover ZeRO-2 and ZeRO-3 only, not ZeRO stage {stage}: choose stage 2 or 3"
            ),
            AdaptersNeedArchitecture { mode } => write!(
                f,
                "{mode} needs an architecture to place adapters: choose a model or a custom architecture, not only a parameter count"
            ),
            DoesNotDivide { option, value, of, total } => {
                write!(f, "{} {value} does not divide the {total} {of}", option.what)
            }
            HiddenBelowHeads { hidden, heads } => write!(
                f,
                "hidden size {hidden} is smaller than the {heads} attention heads"
            ),
            MoreStagesThanLayers { pp, layers } => write!(
                f,
                "pipeline-parallel degree {pp} is more stages than the {layers} layers"
            ),
            BadExperts { experts, active } => write!(
                f,
                "{active} active experts of {experts}: active experts must be between 1 and the number of experts"
            ),
            BadStepParameter { what, value, expected } => {
                write!(f, "{what} {value} is out of range: {expected}")
            }
            ArchitectureTooLarge { params, limit } => write!(
                f,
                "the architecture has about {params} weights, above the limit of {limit}"
            ),
            Overflow => f.write_str("the result exceeds 18 exabytes: check the inputs"),
            ModelAndParams => f.write_str("give either a model or a parameter count, not both"),
            UnknownOption { key } => write!(f, "'{key}' is not a memory option"),
            NoModel => f.write_str(
                "give a model preset, a parameter count, or a custom architecture (layers, hidden, heads ...)",
            ),
        }
    }
}

impl std::error::Error for MemoryError {}

impl MemoryError {
    /// The option the problem concerns, when it is about one option.
    pub fn option(&self) -> Option<OptionKey> {
        use super::keys::*;
        match self {
            MemoryError::BadValue { option, .. }
            | MemoryError::NoGpu { option }
            | MemoryError::Zero { option }
            | MemoryError::TooLarge { option, .. }
            | MemoryError::DoesNotDivide { option, .. } => Some(*option),
            MemoryError::NoSuchZeroStage { .. } | MemoryError::DeepspeedNeedsZero2 { .. } => {
                Some(ZERO)
            }
            MemoryError::IntegerTraining { .. } | MemoryError::GgufTraining { .. } => Some(DTYPE),
            MemoryError::AdaptersNeedArchitecture { .. } => Some(MODE),
            MemoryError::HiddenBelowHeads { .. } => Some(HIDDEN),
            MemoryError::MoreStagesThanLayers { .. } => Some(PP),
            MemoryError::ModelAndParams => Some(PARAMS),
            MemoryError::BadExperts { .. }
            | MemoryError::BadStepParameter { .. }
            | MemoryError::ArchitectureTooLarge { .. }
            | MemoryError::Overflow
            | MemoryError::NoModel
            | MemoryError::UnknownOption { .. } => None,
        }
    }
}
