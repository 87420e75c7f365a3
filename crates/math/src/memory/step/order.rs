//! The order in which the strategies chart lists strategies: by memory per GPU or by step time.

use super::StepTime;
use crate::memory::error::MemoryError;
use crate::memory::estimate::Breakdown;
use crate::memory::plan::Strategy;

/// What the strategies are ranked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StrategyOrder {
    /// The table's order (DDP, ZeRO-1, ... , offload), as the strategies are usually taught.
    #[default]
    Table,
    /// Least memory per GPU first.
    Memory,
    /// Shortest step first.
    StepTime,
}

impl StrategyOrder {
    /// Every order, in menu order.
    pub const ALL: [StrategyOrder; 3] = [
        StrategyOrder::Table,
        StrategyOrder::Memory,
        StrategyOrder::StepTime,
    ];

    /// Stable name: `table`, `memory`, `time`.
    pub const fn name(self) -> &'static str {
        match self {
            StrategyOrder::Table => "table",
            StrategyOrder::Memory => "memory",
            StrategyOrder::StepTime => "time",
        }
    }

    /// Words for a menu.
    pub const fn label(self) -> &'static str {
        match self {
            StrategyOrder::Table => "DDP to offload",
            StrategyOrder::Memory => "memory per GPU",
            StrategyOrder::StepTime => "time per step",
        }
    }
}

crate::name_text!(StrategyOrder, String, |s: &str| format!(
    "order '{s}' is not table, memory or time"
));

/// Indices into `memory` (and `time`, the same strategies in the same order, as from
/// [`crate::memory::plan::by_strategy`] and [`super::by_strategy`]) ranked by `by`, smallest
/// first. Ties keep the table's order; a strategy with no value (an invalid setup, or no step
/// time without a GPU speed) goes last.
pub fn strategy_order(
    memory: &[(Strategy, Result<Breakdown, MemoryError>)],
    time: &[(Strategy, Result<StepTime, MemoryError>)],
    by: StrategyOrder,
) -> Vec<usize> {
    let key = |i: usize| -> Option<f64> {
        match by {
            StrategyOrder::Table => Some(i as f64),
            StrategyOrder::Memory => memory.get(i)?.1.as_ref().ok().map(|b| b.total as f64),
            StrategyOrder::StepTime => time.get(i)?.1.as_ref().ok()?.seconds(),
        }
    };
    let mut order: Vec<usize> = (0..memory.len()).collect();
    order.sort_by(|&a, &b| match (key(a), key(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::plan::by_strategy as memory_by_strategy;
    use crate::memory::step::{by_strategy, StepParams};
    use crate::memory::{find_gpu, find_model, ModelSpec, Setup};

    #[test]
    fn strategies_rank_by_memory_or_by_time() {
        let mut s = Setup::new(ModelSpec::Arch {
            name: "llama-3-8b".into(),
            arch: Box::new(find_model("llama-3-8b").unwrap().arch),
        });
        (s.gpu, s.dp) = (find_gpu("h100-80gb"), 8);
        let memory = memory_by_strategy(&s);
        let time = by_strategy(&s, &StepParams::default());
        let table = strategy_order(&memory, &time, StrategyOrder::Table);
        assert_eq!(table, (0..memory.len()).collect::<Vec<_>>());
        let by_memory = strategy_order(&memory, &time, StrategyOrder::Memory);
        let totals: Vec<u64> = by_memory
            .iter()
            .map(|&i| memory[i].1.as_ref().unwrap().total)
            .collect();
        assert!(totals.windows(2).all(|w| w[0] <= w[1]), "{totals:?}");
        let by_time = strategy_order(&memory, &time, StrategyOrder::StepTime);
        let secs: Vec<f64> = by_time
            .iter()
            .map(|&i| time[i].1.as_ref().unwrap().seconds().unwrap())
            .collect();
        assert!(secs.windows(2).all(|w| w[0] <= w[1]), "{secs:?}");
        // The two rankings disagree: full offload needs least memory and takes longest.
        assert_ne!(by_memory, by_time);
        assert_eq!("time".parse(), Ok(StrategyOrder::StepTime));
        assert_eq!(
            "speed".parse::<StrategyOrder>(),
            Err("order 'speed' is not table, memory or time".to_string())
        );
    }
}
