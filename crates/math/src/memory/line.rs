//! One line of a breakdown (bytes, formula, why) and the helpers every model-state model shares:
//! a leaf module, so the estimate and the model-state models can both use it without importing
//! each other.

use super::setup::{MemoryError, Setup};
use crate::numbers::{format_bytes, format_count};
use serde::Serialize;

/// One component of the per-GPU total.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    /// Bytes on each GPU.
    pub bytes: u64,
    /// The arithmetic with the numbers filled in, e.g. `12 B × 7.00B params ÷ 8 GPUs = 10.50 GB`.
    pub formula: String,
    /// One sentence on why this memory is needed.
    pub why: String,
}

/// The three model-state lines, trainable parameters and CPU bytes.
pub struct StateLines {
    /// Weights per GPU.
    pub weights: Line,
    /// Gradients per GPU.
    pub gradients: Line,
    /// Optimizer states per GPU.
    pub optimizer: Line,
    /// Parameters that are trained.
    pub trainable: u64,
    /// Bytes in CPU memory per GPU.
    pub cpu: u64,
    /// Temporaries the optimizer step allocates on each GPU (for-each Adam's square-root buffer).
    pub step_temporaries: u64,
}

/// Converts to `u64`, or says the result is too large to be meaningful ([`MemoryError::Overflow`]).
pub fn to_u64(v: u128) -> Result<u64, MemoryError> {
    u64::try_from(v).map_err(|_| MemoryError::Overflow)
}

/// `n params` for formulas.
pub(crate) fn params_text(n: u64) -> String {
    format!("{} params", format_count(n))
}

/// A line of `bytes` (rounded by the caller) whose formula ends with `= <bytes>` in the setup's
/// units; [`MemoryError::Overflow`] above `u64::MAX`.
pub(crate) fn state_line(
    bytes: u128,
    formula: String,
    why: &str,
    setup: &Setup,
) -> Result<Line, MemoryError> {
    let bytes = to_u64(bytes)?;
    Ok(Line {
        formula: format!("{formula} = {}", format_bytes(bytes, setup.units)),
        bytes,
        why: why.into(),
    })
}

/// Why weights are needed.
pub(crate) const WHY_WEIGHTS: &str = "The parameters themselves, in the dtype the matmuls read.";
/// Why gradients are needed.
pub(crate) const WHY_GRADS: &str =
    "Backpropagation produces one gradient per trainable parameter before the optimizer step.";
/// Why optimizer states are needed, for `setup`'s optimizer and precision recipe.
pub(crate) fn why_optimizer(setup: &Setup) -> String {
    use super::options::{Dtype, Optimizer, Precision};
    let states = match setup.optimizer {
        Optimizer::Adamw => "Adam keeps running means of the gradient and its square",
        Optimizer::Adamw8bit => {
            "8-bit Adam keeps the same two running means, quantized to 8 bits in blocks of 256 with an FP32 absmax each"
        }
        Optimizer::SgdMomentum => "SGD with momentum keeps one running mean of the gradient",
        Optimizer::Sgd => "Plain SGD keeps no state",
    };
    let copy = match setup.precision {
        _ if setup.dtype == Dtype::Fp32 => "; everything is FP32, so no master copy is needed.",
        Precision::Mixed => {
            "; mixed precision adds an FP32 master copy of the weights, so that small updates are applied exactly."
        }
        Precision::Autocast => {
            "; the parameters are FP32 (autocast computes in 16 bits), so they are their own master copy."
        }
        Precision::Pure => {
            "; pure 16-bit training keeps no FP32 master copy, so the smallest updates can round away."
        }
        Precision::Fp8Rowwise => {
            "; torchtitan keeps the parameters in FP32, so they are their own master copy."
        }
        _ => {
            "; the FP8 and FP4 recipes keep an FP32 master copy of the weights (the matmuls' low-precision copies are made from it)."
        }
    };
    format!("{states}{copy}")
}
