//! Comparing strategies: the same setup under every sharding/offload strategy, per-GPU memory as
//! the GPU count grows, and the smallest setup that fits a GPU.

use super::estimate::{estimate, Breakdown};
use super::options::{Offload, ZeroStage};
use super::setup::Setup;
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
        Setup {
            zero: self.zero,
            offload: self.offload,
            ..setup.clone()
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

/// The setup's breakdown under every strategy in [`STRATEGIES`] (an `Err` text where the setup is
/// invalid for that strategy).
pub fn by_strategy(setup: &Setup) -> Vec<(Strategy, Result<Breakdown, String>)> {
    STRATEGIES
        .iter()
        .map(|s| (*s, estimate(&s.apply(setup)).map_err(|e| e.to_string())))
        .collect()
}

/// Data-parallel degrees swept by [`sweep`]: powers of two from 1 to 1024.
pub const SWEEP_DP: [u64; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/// One strategy's (total GPUs, bytes per GPU) points.
pub type SweepLine = (Strategy, Vec<(u64, u64)>);

/// Per-GPU totals for each of the first four strategies (no offload) as the data-parallel degree
/// goes from 1 to 1024: (total GPUs, bytes per GPU) points.
pub fn sweep(setup: &Setup) -> Vec<SweepLine> {
    STRATEGIES[..4]
        .iter()
        .map(|s| {
            let points = SWEEP_DP
                .iter()
                .filter_map(|&dp| {
                    estimate(&Setup {
                        dp,
                        ..s.apply(setup)
                    })
                    .ok()
                    .map(|b| (dp * setup.tp * setup.pp, b.total))
                })
                .collect();
            (*s, points)
        })
        .collect()
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
        estimate(&Setup {
            dp,
            ..s.apply(setup)
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
        Setup {
            seq: 4096,
            flash_attention: true,
            ..Setup::new(ModelSpec::Arch {
                name: m.id.into(),
                arch: Box::new(m.arch),
            })
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
                let smaller = estimate(&Setup {
                    dp: fit.dp - 1,
                    ..strategy.apply(&s)
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
    fn nothing_fits_a_tiny_gpu() {
        assert_eq!(smallest_fit(&llama8b(), 1 << 30, 1024, &STRATEGIES), None);
    }

    #[test]
    fn sweep_totals_never_grow_with_gpus() {
        for (_, points) in sweep(&llama8b()) {
            assert_eq!(points.len(), SWEEP_DP.len());
            assert!(points.windows(2).all(|w| w[1].1 <= w[0].1));
        }
    }
}
