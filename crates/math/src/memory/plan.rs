//! Comparing strategies: the same setup under every sharding/offload strategy, per-GPU memory as
//! the GPU count grows, and the smallest setup that fits a GPU.

use crate::memory::error::MemoryError;
use crate::memory::estimate::{estimate, Breakdown};
use crate::memory::options::{Offload, ZeroStage};
use crate::memory::setup::Setup;
use serde::Serialize;

/// A sharding strategy: ZeRO stage plus offload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Strategy {
    /// ZeRO stage / FSDP strategy.
    pub zero: ZeroStage,
    /// What is offloaded to the CPU.
    pub offload: Offload,
}

impl Strategy {
    /// Short label: `DDP`, `ZeRO-2`, `ZeRO-3 + offload`.
    pub fn label(&self) -> String {
        let base = match self.zero.0 {
            0 => "DDP".to_string(),
            n => format!("ZeRO-{n}"),
        };
        match self.offload {
            Offload::None => base,
            Offload::Optimizer => format!("{base} + opt offload"),
            Offload::All => format!("{base} + full offload"),
        }
    }

    /// `setup` with this strategy applied.
    pub fn apply(&self, setup: &Setup) -> Setup {
        {
            let mut changed = setup.clone();
            changed.zero = self.zero;
            changed.offload = self.offload;
            changed
        }
    }
}

/// The strategies compared side by side, least to most aggressive: DDP, ZeRO-1/2/3, then ZeRO-2
/// and ZeRO-3 with optimizer offload and ZeRO-3 with everything offloaded.
pub const STRATEGIES: [Strategy; 7] = [
    Strategy {
        zero: ZeroStage(0),
        offload: Offload::None,
    },
    Strategy {
        zero: ZeroStage(1),
        offload: Offload::None,
    },
    Strategy {
        zero: ZeroStage(2),
        offload: Offload::None,
    },
    Strategy {
        zero: ZeroStage(3),
        offload: Offload::None,
    },
    Strategy {
        zero: ZeroStage(2),
        offload: Offload::Optimizer,
    },
    Strategy {
        zero: ZeroStage(3),
        offload: Offload::Optimizer,
    },
    Strategy {
        zero: ZeroStage(3),
        offload: Offload::All,
    },
];

/// The setup's breakdown under every strategy in [`STRATEGIES`] (an `Err` where the setup is
/// invalid for that strategy).
pub fn by_strategy(setup: &Setup) -> Vec<(Strategy, Result<Breakdown, MemoryError>)> {
    STRATEGIES
        .iter()
        .map(|s| (*s, estimate(&s.apply(setup))))
        .collect()
}

/// Data-parallel degrees swept by [`sweep`]: powers of two from 1 to 1024.
pub const SWEEP_DP: [u64; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// One strategy's (total GPUs, bytes per GPU) points.
pub type SweepLine = (Strategy, Vec<(u64, u64)>);

/// Per-GPU totals for each of the first four strategies (no offload) as the data-parallel degree
/// goes from 1 to 1024: (total GPUs, bytes per GPU) points, in increasing GPU count. With a GPU in
/// the setup, each line also holds its exact smallest fit ([`smallest_fit`], the binary search the
/// advice uses), so the first point at or under the capacity is the fewest GPUs that fit, not the
/// next power of two.
///
/// The result does not depend on `setup.dp` (every line runs over [`SWEEP_DP`]): a page may keep
/// it while only the data-parallel degree changes ([`sweep_input`]).
pub fn sweep(setup: &Setup) -> Vec<SweepLine> {
    STRATEGIES[..4]
        .iter()
        .map(|s| {
            let mut points: Vec<(u64, u64)> = SWEEP_DP
                .iter()
                .filter_map(|&dp| {
                    estimate(&{
                        let mut changed = s.apply(setup);
                        changed.dp = dp;
                        changed
                    })
                    .ok()
                    .map(|b| (dp * setup.tp * setup.pp, b.total))
                })
                .collect();
            let max_dp = SWEEP_DP[SWEEP_DP.len() - 1];
            let fit = setup
                .gpu
                .as_ref()
                .and_then(|g| smallest_fit(setup, g.capacity_bytes, max_dp, &[*s]));
            if let Some(f) = fit {
                if !points.iter().any(|(g, _)| *g == f.gpus) {
                    points.push((f.gpus, f.total));
                    points.sort_unstable();
                }
            }
            (*s, points)
        })
        .collect()
}

/// What [`sweep`] reads of `setup`: all of it but the data-parallel degree (set to 1), so that a
/// memo keyed on it recomputes the sweep only when something the sweep uses changes.
pub fn sweep_input(setup: &Setup) -> Setup {
    setup.clone().with(|r| r.dp = 1)
}

/// The smallest setup that fits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fit {
    /// The strategy.
    pub strategy: Strategy,
    /// Data-parallel degree.
    pub dp: u64,
    /// Total GPUs (dp × tp × pp).
    pub gpus: u64,
    /// Bytes per GPU.
    pub total: u64,
}

/// Fewest GPUs (data-parallel degree up to `max_dp`, tp and pp as given) with which one of
/// `strategies` fits in `capacity` bytes per GPU; among equal GPU counts the earlier (less
/// aggressive) strategy wins. Binary search: per-GPU memory never grows with the data-parallel degree.
pub fn smallest_fit(
    setup: &Setup,
    capacity: u64,
    max_dp: u64,
    strategies: &[Strategy],
) -> Option<Fit> {
    let fits = |s: &Strategy, dp: u64| {
        estimate(&{
            let mut changed = s.apply(setup);
            changed.dp = dp;
            changed
        })
        .ok()
        .filter(|b| b.total <= capacity)
    };
    let mut best: Option<Fit> = None;
    for s in strategies {
        if fits(s, max_dp).is_none() {
            continue;
        }
        let (mut lo, mut hi) = (1, max_dp);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if fits(s, mid).is_some() {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let b = fits(s, lo)?;
        let candidate = Fit {
            strategy: *s,
            dp: lo,
            gpus: lo * setup.tp * setup.pp,
            total: b.total,
        };
        if best.as_ref().is_none_or(|f| candidate.gpus < f.gpus) {
            best = Some(candidate);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{find_model, ModelSpec};

    fn llama8b() -> Setup {
        let m = find_model("llama-3-8b").unwrap();
        {
            let mut changed = Setup::new(ModelSpec::preset(m.id).unwrap());
            changed.seq = 4096;
            changed.flash_attention = true;
            changed
        }
    }

    #[test]
    fn smallest_fit_is_minimal_and_fits() {
        let s = llama8b();
        let cap = 81559u64 << 20;
        let fit = smallest_fit(&s, cap, 1024, &STRATEGIES).expect("some setup fits");
        assert!(fit.total <= cap);
        for strategy in STRATEGIES {
            if fit.dp > 1 {
                let smaller = estimate(&{
                    let mut changed = strategy.apply(&s);
                    changed.dp = fit.dp - 1;
                    changed
                })
                .unwrap();
                assert!(
                    smaller.total > cap,
                    "{} fits on {} GPUs",
                    strategy.label(),
                    fit.dp - 1
                );
            }
        }
    }

    #[test]
    fn the_sweep_does_not_depend_on_the_data_parallel_degree() {
        let s = Setup {
            gpu: crate::memory::find_gpu("a100-80gb"),
            ..llama8b()
        };
        let at_8 = s.clone().with(|r| r.dp = 8);
        assert_eq!(sweep(&s), sweep(&at_8));
        assert_eq!(sweep_input(&at_8), sweep_input(&s));
    }

    #[test]
    fn nothing_fits_a_tiny_gpu() {
        assert_eq!(smallest_fit(&llama8b(), 1 << 30, 1024, &STRATEGIES), None);
    }

    /// The case: ZeRO-2 fits Llama 3 8B training from 3 GPUs (79.86 GB on an 80 GB H100),
    /// but sampling powers of two said 4. The sweep now holds the exact smallest fit per strategy.
    #[test]
    fn sweep_holds_the_exact_smallest_fit_of_each_strategy() {
        let s = {
            let mut changed = llama8b();
            changed.gpu = crate::memory::find_gpu("h100-80gb");
            changed.seq = 4096;
            changed.flash_attention = true;
            changed
        };
        let cap = s.gpu.as_ref().unwrap().capacity_bytes;
        let mut exacts = Vec::new();
        for (strategy, points) in sweep(&s) {
            let first = points.iter().find(|(_, b)| *b <= cap).map(|(g, _)| *g);
            let exact = smallest_fit(&s, cap, 1024, &[strategy]).map(|f| f.gpus);
            assert_eq!(first, exact, "{}", strategy.label());
            assert!(points.windows(2).all(|w| w[0].0 < w[1].0));
            exacts.extend(exact);
        }
        // Powers of two alone would have missed this case.
        assert!(exacts.iter().any(|g| !g.is_power_of_two()), "{exacts:?}");
    }

    #[test]
    fn sweep_totals_never_grow_with_gpus() {
        for (_, points) in sweep(&llama8b()) {
            assert_eq!(points.len(), SWEEP_DP.len());
            assert!(points.windows(2).all(|w| w[1].1 <= w[0].1));
        }
    }
}
