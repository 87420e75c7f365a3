//! Shared state of the Memory page: one typed query signal, and memos for everything derived
//! from it: the breakdown and the advice ([`MemoryState`]), and what the page shows beyond the
//! verdict and the bar, the step time and the strategy comparisons ([`MemoryDetails`], which the
//! light embed's binary neither builds nor links).

use crate::ui::pages::memory::query::MemoryQuery;
use bitbudget_math::memory::plan::{by_strategy, sweep, sweep_input, Strategy, SweepLine};
use bitbudget_math::memory::report::advice::{advise, Advice, Suggestion};
use bitbudget_math::memory::report::validation::Validation;
use bitbudget_math::memory::step::{self, order::StrategyOrder, StepTime};
use bitbudget_math::memory::{estimate, Breakdown, MemoryError, Part, Setup};
use leptos::prelude::*;
use std::sync::Arc;

/// The Memory page's state, provided through context.
#[derive(Clone, Copy)]
pub struct MemoryState {
    /// Every control's value.
    pub query: RwSignal<MemoryQuery>,
    /// The setup the query describes.
    pub setup: Memo<Setup>,
    /// Its breakdown, or why the setup is invalid.
    pub result: Memo<Result<Breakdown, MemoryError>>,
    /// The last valid breakdown (charts keep showing it while a control is invalid).
    pub shown: Memo<Option<Breakdown>>,
    /// What would make it fit on the chosen GPU (`memory::report::advice`; empty when it fits or no GPU
    /// is chosen).
    pub advice: Memo<Advice>,
    /// What the page changed on its own and why (a setup from a link that could not work, a mode
    /// change that ruled out the weights dtype).
    pub settled: RwSignal<Option<String>>,
    /// The part under the pointer or keyboard focus.
    pub hovered: RwSignal<Option<Part>>,
    /// The PyTorch measurements, fetched once the page is up (`None` until they arrive; an error
    /// says why they could not be read): the Memory page's code does not carry them.
    pub pytorch: RwSignal<Option<Result<Arc<Validation>, String>>>,
}

impl MemoryState {
    /// State starting from `initial`.
    pub fn new(mut initial: MemoryQuery) -> Self {
        let settled = RwSignal::new(initial.job.settle().map(|n| format!("From the link: {n}")));
        let query = RwSignal::new(initial);
        let setup = Memo::new(move |_| query.with(MemoryQuery::to_setup));
        let result = Memo::new(move |_| setup.with(estimate));
        let shown = Memo::new(move |prev: Option<&Option<Breakdown>>| match result.get() {
            Ok(b) => Some(b),
            Err(_) => prev.cloned().flatten(),
        });
        let advice = Memo::new(move |_| {
            setup.with(|s| {
                s.gpu
                    .as_ref()
                    .map_or_else(Advice::default, |g| advise(s, g.capacity_bytes))
            })
        });
        Self {
            query,
            setup,
            result,
            shown,
            advice,
            settled,
            hovered: RwSignal::new(None),
            pytorch: RwSignal::new(None),
        }
    }

    /// Changes the query, then settles it ([`bitbudget_math::memory::Job::settle`]): a value the
    /// change ruled out goes back to its default, and the note says so.
    pub fn set(&self, f: impl FnOnce(&mut MemoryQuery)) {
        let mut note = None;
        self.query.update(|q| {
            f(q);
            note = q.job.settle();
        });
        if note.is_some() {
            self.settled.set(note);
        }
    }

    /// Makes exactly the suggestion's changes, each through the option table (the key and value
    /// the CLI and the URL use).
    pub fn apply(&self, suggestion: &Suggestion) {
        self.set(|q| {
            for c in &suggestion.changes {
                // The changes are the table's own keys and values, which it accepts.
                let _ = q.apply(c.key(), &c.value());
            }
        });
    }
}

/// What the Memory page shows beyond the verdict and the bar, derived from [`MemoryState`]: the step
/// time and the strategy comparisons. Provided through context by the page's whole binary only.
#[derive(Clone, Copy)]
pub struct MemoryDetails {
    /// The same setup under every strategy.
    pub strategies: Memo<Vec<(Strategy, Result<Breakdown, MemoryError>)>>,
    /// Per-GPU totals as the GPU count grows.
    pub sweep: Memo<Vec<SweepLine>>,
    /// Time of one step with the query's step knobs, or why the knobs or the setup are invalid.
    pub step: Memo<Result<StepTime, MemoryError>>,
    /// The step time under every strategy (same order as `strategies`).
    pub step_strategies: Memo<Vec<(Strategy, Result<StepTime, MemoryError>)>>,
    /// How the strategies chart ranks its bars (the query's, so the URL carries it; change it
    /// with [`MemoryState::set`]).
    pub order: Memo<StrategyOrder>,
}

impl MemoryDetails {
    /// The details of `state`'s setup, computed when first read.
    pub fn new(state: MemoryState) -> Self {
        let (query, setup) = (state.query, state.setup);
        // The sweep runs over every data-parallel degree itself: changing dp alone reuses it.
        let sweep_key = Memo::new(move |_| setup.with(sweep_input));
        let step_params = Memo::new(move |_| query.with(|q| q.job.step_params()));
        Self {
            strategies: Memo::new(move |_| setup.with(by_strategy)),
            sweep: Memo::new(move |_| sweep_key.with(sweep)),
            step: Memo::new(move |_| {
                let p = step_params.get();
                setup.with(|s| step::step_time(s, &p))
            }),
            step_strategies: Memo::new(move |_| {
                let p = step_params.get();
                setup.with(|s| step::by_strategy(s, &p))
            }),
            order: Memo::new(move |_| query.with(|q| q.order)),
        }
    }
}
