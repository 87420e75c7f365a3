//! Shared state of the Memory page: one typed query signal, and memos for everything derived
//! from it (the breakdown, every strategy, the GPU sweep, the smallest fit).

use crate::ui::memory_query::MemoryQuery;
use crate::ui::palette::{Rgb, Theme};
use bitbudget_math::memory::plan::{
    by_strategy, smallest_fit, sweep, Fit, Strategy, SweepLine, STRATEGIES,
};
use bitbudget_math::memory::{estimate, Breakdown, Line, Setup};
use leptos::prelude::*;

/// The six parts of a GPU's memory, bottom of the bar first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// Weights.
    Weights,
    /// Gradients.
    Gradients,
    /// Optimizer states.
    Optimizer,
    /// Activations.
    Activations,
    /// KV cache.
    KvCache,
    /// Overhead.
    Overhead,
}

impl Part {
    /// Bottom to top.
    pub const ALL: [Part; 6] = [
        Part::Weights,
        Part::Gradients,
        Part::Optimizer,
        Part::Activations,
        Part::KvCache,
        Part::Overhead,
    ];

    /// Label.
    pub const fn label(self) -> &'static str {
        match self {
            Part::Weights => "weights",
            Part::Gradients => "gradients",
            Part::Optimizer => "optimizer states",
            Part::Activations => "activations",
            Part::KvCache => "KV cache",
            Part::Overhead => "overhead",
        }
    }

    /// Key used in CSV/JSON and test ids.
    pub const fn key(self) -> &'static str {
        match self {
            Part::Weights => "weights",
            Part::Gradients => "gradients",
            Part::Optimizer => "optimizer",
            Part::Activations => "activations",
            Part::KvCache => "kv_cache",
            Part::Overhead => "overhead",
        }
    }

    /// Its colour in `theme`.
    pub const fn color(self, theme: &Theme) -> Rgb {
        match self {
            Part::Weights => theme.weights,
            Part::Gradients => theme.gradients,
            Part::Optimizer => theme.optimizer,
            Part::Activations => theme.activations,
            Part::KvCache => theme.kv_cache,
            Part::Overhead => theme.overhead,
        }
    }

    /// Its line in a breakdown.
    pub fn line(self, b: &Breakdown) -> &Line {
        match self {
            Part::Weights => &b.weights,
            Part::Gradients => &b.gradients,
            Part::Optimizer => &b.optimizer,
            Part::Activations => &b.activations,
            Part::KvCache => &b.kv_cache,
            Part::Overhead => &b.overhead,
        }
    }
}

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
        let result = Memo::new(move |_| setup.with(|s| estimate(s).map_err(|e| e.0)));
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
