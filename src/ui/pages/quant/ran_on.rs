//! Where the lab's last computation ran: typed, so the page words it once and tests can ask for the
//! place rather than match a sentence.

use bitbudget_math::quant::scheme::Scheme;
use std::fmt;

/// Where a computation of the lab ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RanOn {
    /// On the GPU `adapter`; the `cpu_only` schemes (no GPU quantize kernel) on the CPU.
    Gpu {
        /// The adapter's name as the browser reports it.
        adapter: String,
        /// Schemes computed on the CPU instead.
        cpu_only: Vec<Scheme>,
    },
    /// On the CPU, in this many Web Workers.
    Workers(usize),
    /// On the CPU, on the page's own thread; why Web Workers were not used, when they were tried.
    PageThread(Option<String>),
}

impl RanOn {
    /// A short stable name for the place (`gpu`, `workers`, `page`), for `data-` attributes.
    pub const fn kind(&self) -> &'static str {
        match self {
            RanOn::Gpu { .. } => "gpu",
            RanOn::Workers(_) => "workers",
            RanOn::PageThread(_) => "page",
        }
    }
}

/// The place in one sentence ("Computed on the CPU (WebAssembly), in 2 Web Workers.").
impl fmt::Display for RanOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RanOn::Gpu { adapter, cpu_only } if cpu_only.is_empty() => {
                write!(f, "Computed on the GPU: {adapter}.")
            }
            RanOn::Gpu { adapter, cpu_only } => {
                let names: Vec<&str> = cpu_only.iter().map(|s| s.name()).collect();
                write!(
                    f,
                    "Computed on the GPU: {adapter}; {} on the CPU (no GPU quantize kernel).",
                    names.join(", ")
                )
            }
            RanOn::Workers(n) => {
                let workers = if *n == 1 { "Web Worker" } else { "Web Workers" };
                write!(f, "Computed on the CPU (WebAssembly), in {n} {workers}.")
            }
            RanOn::PageThread(Some(why)) => write!(
                f,
                "Computed on the CPU (WebAssembly), on the page's own thread: {why}."
            ),
            RanOn::PageThread(None) => write!(f, "Computed on the CPU (WebAssembly)."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn each_place_is_one_sentence_with_its_kind() {
        let gpu = RanOn::Gpu {
            adapter: "lavapipe".into(),
            cpu_only: vec![],
        };
        assert_eq!(gpu.to_string(), "Computed on the GPU: lavapipe.");
        let mixed = RanOn::Gpu {
            adapter: "x".into(),
            cpu_only: vec![Scheme::Nf4],
        };
        assert!(mixed
            .to_string()
            .ends_with("; nf4 on the CPU (no GPU quantize kernel)."));
        assert_eq!(
            RanOn::Workers(1).to_string(),
            "Computed on the CPU (WebAssembly), in 1 Web Worker."
        );
        assert_eq!(RanOn::Workers(2).kind(), "workers");
        assert!(RanOn::PageThread(Some("no Worker".into()))
            .to_string()
            .ends_with("own thread: no Worker."));
        assert_eq!(RanOn::PageThread(None).kind(), "page");
    }
}
