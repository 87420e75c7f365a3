//! The parts a GPU's memory is split into, in the order the stacked bar draws them.

use super::estimate::{Breakdown, Line};
use serde::Serialize;

/// The six parts of a GPU's memory, bottom of the bar first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
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

    /// What the page calls it.
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

    /// Key used in the JSON report, the CSV and test ids.
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

    /// Its line in `b`.
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
