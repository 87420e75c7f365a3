//! The same setup's model states under every bookkeeping convention, and why they differ.

use crate::memory::estimate::estimate;
use crate::memory::options::Convention;
use crate::memory::setup::Setup;
use serde::Serialize;

/// One row of the conventions table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConventionRow {
    /// The convention.
    pub convention: Convention,
    /// Model states per GPU, or why this convention does not cover the setup.
    pub model_states: Result<u64, String>,
    /// CPU bytes (per GPU for offload; per node for DeepSpeed).
    pub cpu: u64,
    /// Why it differs from the others, in words.
    pub explanation: &'static str,
}

/// The same setup's model states under every convention.
pub fn compare_conventions(setup: &Setup) -> Vec<ConventionRow> {
    Convention::ALL
        .iter()
        .map(|&c| {
            let s = {
                let mut changed = setup.clone();
                changed.convention = c;
                changed
            };
            let result = estimate(&s)
                .map(|b| (b.model_states, b.cpu_offload))
                .map_err(|e| e.to_string());
            ConventionRow {
                convention: c,
                model_states: result.clone().map(|r| r.0),
                cpu: result.map(|r| r.1).unwrap_or(0),
                explanation: explain(c),
            }
        })
        .collect()
}

/// Why a convention counts what it counts.
pub const fn explain(c: Convention) -> &'static str {
    match c {
        Convention::Bitbudget => "The ZeRO paper's and EleutherAI's accounting (16-bit weights and gradients plus K bytes of optimizer state), with K and the widths following the chosen dtype and optimizer.",
        Convention::Zero => "Rajbhandari et al. 2020: mixed-precision Adam is 2Ψ + 2Ψ + KΨ with K = 12 (FP32 master weights, momentum, variance), whatever optimizer is chosen.",
        Convention::HfMegatron => "Megatron-LM keeps gradients in FP32 for accumulation: 2 + 4 + 12 = 18 bytes per parameter; Hugging Face's anatomy of training memory reaches the same 18 as 6 (FP32 + 16-bit weights) + 4 + 8.",
        Convention::Megatron => "Megatron-LM's theoretical_memory_usage.py counts the most loaded (first) pipeline stage, with the embedding: BF16 weights, FP32 main gradients, FP32 main parameters and Adam states, 18 bytes per parameter or 6 + 12/dp with the distributed optimizer; routed experts over etp × ep; it does not divide by context parallelism.",
        Convention::Deepspeed => "DeepSpeed's estimator adds a gathered FP32 copy of the largest layer, counts FP32 gradients inside 16 bytes of sharded state, sizes CPU memory per node with a 1.5 buffer factor, and prints GiB labelled 'GB'.",
    }
}
