//! Tokens per second from a roofline per GPU: a decode step reads the weights once (for MoE, the
//! experts the batch touches) and every sequence's KV cache, and does 2 FLOPs per active parameter
//! per token plus attention; it takes the longer of its memory time and its compute time at the
//! stated shares of peak bandwidth and FLOP/s. Host-resident layers (llama.cpp) read at the host's
//! bandwidth. Tensor-parallel communication is not modelled.

use super::budget::Budget;
use super::kv::KvLayout;
use super::setup::{Knobs, ServeSetup, TOKEN_LIMIT};
use serde::Serialize;

/// Decode at one concurrency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Decode {
    /// Sequences decoding together.
    pub concurrency: u64,
    /// Tokens each sequence's KV holds while decoding (the prompt).
    pub context_tokens: u64,
    /// Seconds per decode step.
    pub step_seconds: f64,
    /// Tokens per second of one sequence (1 / step).
    pub tokens_per_s: f64,
    /// Tokens per second of all sequences together.
    pub aggregate_tokens_per_s: f64,
    /// Whether the step is bound by memory (`"memory"`) or by compute (`"compute"`).
    pub bound: &'static str,
    /// The smallest concurrency at which decode is compute-bound (`None`: memory-bound up to the
    /// largest accepted, or no published FLOP/s for the GPU).
    pub compute_bound_from: Option<u64>,
}

/// The prompt's prefill.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prefill {
    /// Prompt tokens.
    pub tokens: u64,
    /// Seconds to the first token with the GPU to itself (`None` without a published FLOP/s).
    pub seconds: Option<f64>,
}

struct Roofline<'a> {
    setup: &'a ServeSetup,
    knobs: &'a Knobs,
    budget: &'a Budget,
}

impl Roofline<'_> {
    fn bandwidth(&self) -> f64 {
        self.setup.gpu.memory_bytes_per_s as f64 * self.knobs.bandwidth_efficiency
    }

    fn flops(&self) -> Option<f64> {
        self.setup
            .gpu
            .dense_16bit_flops_per_s
            .map(|p| p as f64 * self.knobs.flops_efficiency)
    }

    /// Share of the routed experts a batch of `c` sequences touches, routing uniform: 1 − (1 − k/E)^c.
    fn touched(&self, c: u64) -> f64 {
        let a = &self.setup.arch;
        if a.experts <= 1 {
            return 1.0;
        }
        let k = a.active_experts.min(a.experts) as f64 / a.experts as f64;
        1.0 - (1.0 - k).powf(c as f64)
    }

    /// Bytes one step reads on the GPU and on the host: weights (the untouched experts skipped)
    /// and `c` sequences' KV of `ctx` tokens.
    fn step_bytes(&self, c: u64, ctx: u64) -> (f64, f64) {
        let b = self.budget;
        let placed = &b.placed;
        let touched = self.touched(c);
        let untouched = (1.0 - touched) * placed.gpu_experts as f64;
        let gpu_weights = b.per_gpu.weights as f64 - untouched;
        let kv = KvLayout {
            arch: &self.setup.arch,
            tp: self.setup.tp,
            dtype: self.setup.kv_dtype,
            layers: b.gpu_layers,
        };
        let kv_gpu = c as f64 * kv.sequence_bytes(ctx) as f64;
        // The host keeps the token embedding (rows looked up, not read whole): leave it out.
        // Host experts are touched like the GPU's; the rest of the host's weights read whole.
        let host_dense = placed
            .host
            .saturating_sub(placed.host_embedding)
            .saturating_sub(placed.host_experts);
        let host = host_dense as f64 + touched * placed.host_experts as f64;
        let a = &self.setup.arch;
        let host_kv = if self.setup.engine == super::Engine::LlamaCpp && b.gpu_layers < a.layers {
            let all = KvLayout {
                layers: a.layers,
                ..kv
            };
            c as f64 * (all.sequence_bytes(ctx) - kv.sequence_bytes(ctx)) as f64
        } else {
            0.0
        };
        (gpu_weights + kv_gpu, host + host_kv)
    }

    fn step_flops(&self, c: u64, ctx: u64) -> f64 {
        let a = &self.setup.arch;
        let tp = self.setup.tp as f64;
        let per_token =
            2.0 * a.active_params() as f64 + 4.0 * (a.layers * a.q_width()) as f64 * ctx as f64;
        c as f64 * per_token / tp / self.setup.pp as f64
    }

    fn memory_seconds(&self, c: u64, ctx: u64) -> f64 {
        let (gpu, host) = self.step_bytes(c, ctx);
        let host_bw = self.setup.cpu_bytes_per_s as f64 * self.knobs.bandwidth_efficiency;
        gpu / self.bandwidth() + host / host_bw
    }

    fn compute_seconds(&self, c: u64, ctx: u64) -> Option<f64> {
        self.flops().map(|f| self.step_flops(c, ctx) / f)
    }

    /// Decode at concurrency `c`: with `pp` stages the sequences run as `pp` microbatches of
    /// ⌈c / pp⌉, one in each stage at a time, so a token takes `pp` stage steps.
    fn decode(&self, c: u64, ctx: u64) -> Decode {
        let pp = self.setup.pp.max(1);
        let micro = |c: u64| c.div_ceil(pp);
        let memory = self.memory_seconds(micro(c), ctx);
        let compute = self.compute_seconds(micro(c), ctx).unwrap_or(0.0);
        let step = pp as f64 * memory.max(compute);
        let compute_bound = |c: u64| {
            self.compute_seconds(micro(c), ctx)
                .is_some_and(|t| t >= self.memory_seconds(micro(c), ctx))
        };
        let compute_bound_from = if !compute_bound(TOKEN_LIMIT) {
            None
        } else {
            let (mut lo, mut hi) = (1u64, TOKEN_LIMIT);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if compute_bound(mid) {
                    hi = mid
                } else {
                    lo = mid + 1
                }
            }
            Some(lo)
        };
        Decode {
            concurrency: c,
            context_tokens: ctx,
            step_seconds: step,
            tokens_per_s: 1.0 / step,
            aggregate_tokens_per_s: c as f64 / step,
            bound: if compute > memory {
                "compute"
            } else {
                "memory"
            },
            compute_bound_from,
        }
    }

    /// One prompt alone: its FLOPs (attention causal: 2 × P² × query width per layer) at the
    /// compute share, or its weight reads (once per `max_num_batched_tokens` chunk), whichever is
    /// longer; host-resident weights cross PCIe once per chunk.
    fn prefill(&self, p: u64) -> Prefill {
        let a = &self.setup.arch;
        let tp = self.setup.tp as f64;
        let Some(flops) = self.flops() else {
            return Prefill {
                tokens: p,
                seconds: None,
            };
        };
        // Per stage; the prompt passes the `pp` stages one after another.
        let pp = self.setup.pp.max(1) as f64;
        let work = (2.0 * a.active_params() as f64 * p as f64
            + 2.0 * (a.layers * a.q_width()) as f64 * (p as f64).powi(2))
            / tp
            / pp;
        let chunks = p.div_ceil(self.knobs.max_num_batched_tokens.max(1)) as f64;
        let weights = self.budget.per_gpu.weights as f64 / self.bandwidth();
        let host = match self.setup.gpu.pcie_bytes_per_s {
            Some(link) => {
                let p = &self.budget.placed;
                p.host.saturating_sub(p.host_embedding) as f64 / link as f64
            }
            None => 0.0,
        };
        Prefill {
            tokens: p,
            seconds: Some(pp * ((work / flops).max(chunks * weights) + chunks * host)),
        }
    }
}

/// Decode at concurrency `c` with `ctx` tokens of context per sequence.
pub fn decode(setup: &ServeSetup, knobs: &Knobs, budget: &Budget, c: u64, ctx: u64) -> Decode {
    Roofline {
        setup,
        knobs,
        budget,
    }
    .decode(c.max(1), ctx)
}

/// The prefill of a `p`-token prompt.
pub fn prefill(setup: &ServeSetup, knobs: &Knobs, budget: &Budget, p: u64) -> Prefill {
    Roofline {
        setup,
        knobs,
        budget,
    }
    .prefill(p)
}
