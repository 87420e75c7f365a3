//! Shared state of the Memory page: one typed query signal, and memos for everything derived
//! from it (the breakdown, every strategy, the GPU sweep, the smallest fit).

use crate::ui::memory_query::MemoryQuery;
use bitbudget_math::memory::plan::{
    by_strategy, smallest_fit, sweep, Fit, Strategy, SweepLine, STRATEGIES,
};
use bitbudget_math::memory::{estimate, Breakdown, Part, Setup};
use leptos::prelude::*;

/// The Memory page's state, provided through context.
#[derive(Clone, Copy)]
pub struct MemoryState {
    /// Every control's value.
    pub query: RwSignal<MemoryQuery>,
    /// The setup the query describes.
    pub setup: Memo<Setup>,
    /// Its breakdown, or why the setup is invalid.
    pub result: Memo<Result<Breakdown, String>>,
    /// The last valid breakdown (charts keep showing it while a control is invalid).
    pub shown: Memo<Option<Breakdown>>,
    /// The same setup under every strategy.
    pub strategies: Memo<Vec<(Strategy, Result<Breakdown, String>)>>,
    /// Per-GPU totals as the GPU count grows.
    pub sweep: Memo<Vec<SweepLine>>,
    /// Fewest GPUs that fit with any strategy, offload included.
    pub fit: Memo<Option<Fit>>,
    /// Fewest GPUs that fit without CPU offload.
    pub fit_on_gpu: Memo<Option<Fit>>,
    /// The part under the pointer or keyboard focus.
    pub hovered: RwSignal<Option<Part>>,
}

impl MemoryState {
    /// State starting from `initial`.
    pub fn new(initial: MemoryQuery) -> Self {
        let query = RwSignal::new(initial);
        let setup = Memo::new(move |_| query.with(MemoryQuery::to_setup));
        let result = Memo::new(move |_| setup.with(|s| estimate(s).map_err(|e| e.to_string())));
        let shown = Memo::new(move |prev: Option<&Option<Breakdown>>| match result.get() {
            Ok(b) => Some(b),
            Err(_) => prev.cloned().flatten(),
        });
        let strategies = Memo::new(move |_| setup.with(by_strategy));
        let sweep = Memo::new(move |_| setup.with(sweep));
        let fit_among = move |strategies: &'static [Strategy]| {
            Memo::new(move |_| {
                setup.with(|s| {
                    let gpu = s.gpu.as_ref()?;
                    smallest_fit(s, gpu.capacity_bytes, 1024, strategies)
                })
            })
        };
        let (fit, fit_on_gpu) = (fit_among(&STRATEGIES), fit_among(&STRATEGIES[..4]));
        Self {
            query,
            setup,
            result,
            shown,
            strategies,
            sweep,
            fit,
            fit_on_gpu,
            hovered: RwSignal::new(None),
        }
    }

    /// Changes one field of the query.
    pub fn set(&self, f: impl FnOnce(&mut MemoryQuery)) {
        self.query.update(f);
    }
}
