//! The published shape of an estimate: what `bitbudget memory --json` prints and what the app
//! downloads, so both always agree. Also a CSV rendering.

use crate::memory::activation::phases::{Phase, PhaseParts};
use crate::memory::estimate::{estimate, Breakdown};
use crate::memory::job::Job;
use crate::memory::part::Part;
use crate::memory::report::advice::{advise, Advice};
use crate::memory::report::conventions::compare_conventions;
use crate::memory::report::validation::{check_nearest, PytorchCheck};
use crate::memory::setup::{MemoryError, ModelSpec, Setup};
use crate::memory::step::{step_time, StepParams, StepTime};
use crate::numbers::format_count;
use serde::Serialize;

/// Per-GPU bytes of each part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PerGpu {
    /// Weights.
    pub weights: u64,
    /// Gradients.
    pub gradients: u64,
    /// Optimizer states.
    pub optimizer: u64,
    /// Activations.
    pub activations: u64,
    /// KV cache.
    pub kv_cache: u64,
    /// Overhead.
    pub overhead: u64,
    /// Weights + gradients + optimizer.
    pub model_states: u64,
    /// Everything.
    pub total: u64,
}

/// A formula and its explanation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Formula {
    /// The arithmetic with numbers filled in.
    pub formula: String,
    /// Why this memory is needed.
    pub why: String,
}

/// Formulas of each part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Formulas {
    /// Weights.
    pub weights: Formula,
    /// Gradients.
    pub gradients: Formula,
    /// Optimizer.
    pub optimizer: Formula,
    /// Activations.
    pub activations: Formula,
    /// KV cache.
    pub kv_cache: Formula,
    /// Overhead.
    pub overhead: Formula,
}

/// The setup as echoed in a report: every option the job uses, in the option table's order, as the
/// text the CLI and the URL accept (`{"model": "llama-3-8b", "mode": "train", "dp": "8", ...}`),
/// so a report says exactly how to ask for it again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupEcho(pub Vec<(&'static str, String)>);

impl Serialize for SetupEcho {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The GPU compared against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GpuSummary {
    /// Preset id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Capacity in bytes.
    pub capacity_bytes: u64,
    /// Source of the capacity.
    pub source: String,
}

/// One convention's model states.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConventionSummary {
    /// Convention name.
    pub name: String,
    /// Model states per GPU, or null where the convention does not cover the setup.
    pub model_states: Option<u64>,
    /// CPU bytes.
    pub cpu: u64,
    /// Why it is absent, if it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// Why it differs.
    pub explanation: String,
}

/// Everything an estimate reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Model name (preset id, "custom", or the parameter count).
    pub model: String,
    /// Total parameters.
    pub params: u64,
    /// Trainable parameters.
    pub trainable_params: u64,
    /// GPUs in the job (dp × tp × pp).
    pub gpus: u64,
    /// The options that describe the setup.
    pub setup: SetupEcho,
    /// Integer bytes per GPU.
    pub per_gpu: PerGpu,
    /// Formulas with numbers filled in.
    pub formulas: Formulas,
    /// CPU bytes from offloading (per GPU; per node under DeepSpeed's convention).
    pub cpu_offload_per_gpu: u64,
    /// The GPU, if one was chosen.
    pub gpu: Option<GpuSummary>,
    /// Whether the total fits the GPU.
    pub fits: Option<bool>,
    /// Capacity minus total (negative when it does not fit).
    pub headroom_bytes: Option<i64>,
    /// What would make it fit ([`advise`]), when a GPU was chosen: every answer is null when
    /// the setup already fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<Advice>,
    /// The same setup under each convention.
    pub conventions: Vec<ConventionSummary>,
    /// The phase that sets the peak (`forward`, `backward` or `optimizer_step`).
    pub peak_phase: Phase,
    /// What is alive at the peak of each phase, per GPU, overhead not included; `per_gpu.total`
    /// is the largest phase's total plus the overhead.
    pub phases: Vec<PhaseParts>,
    /// Remarks.
    pub notes: Vec<String>,
    /// The measured setup nearest to this one, part by part against PyTorch (`None` without
    /// committed measurements).
    pub checked_against_pytorch: Option<PytorchCheck>,
    /// Time of one optimizer step ([`step_time`]): FLOPs, seconds, bytes communicated by kind,
    /// the pipeline bubble and tokens per second (seconds are null without a GPU's tensor peak).
    pub step: StepTime,
    /// The full breakdown, for programs that want every field.
    #[serde(skip)]
    pub breakdown: Breakdown,
}

/// Estimates `setup`, and the time of one step with the knobs `step`, and packages the result.
/// Errors name the option or knob that is invalid.
pub fn report(setup: &Setup, step: &StepParams) -> Result<Report, MemoryError> {
    report_checked(setup, step, check_nearest(setup))
}

/// [`report`] with the PyTorch check given (the Memory page fetches the measurements, so its
/// code does not carry them; `None` until they are there).
pub fn report_checked(
    setup: &Setup,
    step: &StepParams,
    checked: Option<PytorchCheck>,
) -> Result<Report, MemoryError> {
    let b = estimate(setup)?;
    let step_estimate = step_time(setup, step)?;
    let s = setup;
    let f = |l: &crate::memory::estimate::Line| Formula {
        formula: l.formula.clone(),
        why: l.why.clone(),
    };
    let model = match &s.model {
        ModelSpec::Arch { name, .. } => name.clone(),
        ModelSpec::Params(n) => format!("{} params", format_count(*n)),
    };
    let conventions = compare_conventions(s)
        .into_iter()
        .map(|row| ConventionSummary {
            name: row.convention.name().into(),
            model_states: row.model_states.as_ref().ok().copied(),
            cpu: row.cpu,
            unavailable: row.model_states.err(),
            explanation: row.explanation.into(),
        })
        .collect();
    Ok(Report {
        model,
        params: b.params,
        trainable_params: b.trainable_params,
        gpus: b.gpus,
        setup: SetupEcho(Job::from_setup_and_step(s, step).to_pairs(false)),
        per_gpu: PerGpu {
            weights: b.weights.bytes,
            gradients: b.gradients.bytes,
            optimizer: b.optimizer.bytes,
            activations: b.activations.bytes,
            kv_cache: b.kv_cache.bytes,
            overhead: b.overhead.bytes,
            model_states: b.model_states,
            total: b.total,
        },
        formulas: Formulas {
            weights: f(&b.weights),
            gradients: f(&b.gradients),
            optimizer: f(&b.optimizer),
            activations: f(&b.activations),
            kv_cache: f(&b.kv_cache),
            overhead: f(&b.overhead),
        },
        cpu_offload_per_gpu: b.cpu_offload,
        gpu: s.gpu.as_ref().map(|g| GpuSummary {
            id: g.id.into(),
            name: g.name.into(),
            capacity_bytes: g.capacity_bytes,
            source: g.source.into(),
        }),
        fits: s.gpu.as_ref().map(|g| b.total <= g.capacity_bytes),
        headroom_bytes: s
            .gpu
            .as_ref()
            .map(|g| (g.capacity_bytes as i128 - b.total as i128) as i64),
        advice: s.gpu.as_ref().map(|g| advise(s, g.capacity_bytes)),
        conventions,
        peak_phase: b.peak_phase,
        phases: b.phases.clone(),
        notes: b.notes.clone(),
        checked_against_pytorch: checked,
        step: step_estimate,
        breakdown: b,
    })
}

impl Report {
    /// CSV: `part,bytes,formula,why` per part, then total, model states and CPU rows. Fields are
    /// quoted and inner quotes doubled (RFC 4180).
    pub fn to_csv(&self) -> String {
        let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let p = &self.per_gpu;
        let mut out = String::from("part,bytes_per_gpu,formula,why\n");
        for part in Part::ALL {
            let line = part.line(&self.breakdown);
            out += &format!(
                "{},{},{},{}\n",
                part.key(),
                line.bytes,
                q(&line.formula),
                q(&line.why)
            );
        }
        out += &format!(
            "model_states,{},,\ntotal,{},,\ncpu_offload,{},,\n",
            p.model_states, p.total, self.cpu_offload_per_gpu
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::find_model;

    #[test]
    fn csv_rows_add_up_and_quote_formulas() {
        let m = find_model("gpt2").unwrap();
        let r = report(
            &Setup::new(ModelSpec::Arch {
                name: "gpt2".into(),
                arch: Box::new(m.arch),
            }),
            &StepParams::default(),
        )
        .unwrap();
        let csv = r.to_csv();
        let sum: u64 = csv
            .lines()
            .skip(1)
            .take(6)
            .map(|l| l.split(',').nth(1).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(sum, r.per_gpu.total);
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("weights,248879616,\"2 B × 124.4M params"));
    }
}
