//! bitbudget against PyTorch: the measurements `validation/harness.py` committed in
//! `validation/results.json` (real Transformers models under fake tensors, one training step or a
//! prefill plus decode steps), included at compile time with the configs they were built from, and
//! bitbudget's estimate of each setup. The one source for the comparison test
//! (`tests/math/native/pytorch_validation.rs`) and the Memory page's "checked against PyTorch" panel,
//! which reads each config's architecture from `validation/config_archs.json` (the compact text its
//! links use, written from the configs: [`config_archs_json`]) instead of the configs themselves.
//!
//! What is compared: each part's largest size over the measured phases (activations include the
//! working tensors of forward/backward or prefill/decode, not the optimizer step's, which count in
//! the total) against bitbudget's line (for activations, bitbudget's activations at each of its
//! phases' peaks, the largest: measured the same way), and the measured peak against bitbudget's
//! total without its overhead (fake tensors see no CUDA context, caching allocator or
//! fragmentation).

use crate::memory::estimate::{estimate, Breakdown};
use crate::memory::model::arch::ModelArch;
use crate::memory::model::arch_text::{arch_from_text, arch_to_text};
use crate::memory::model::hf_config::parse_config;
use crate::memory::options::{Dtype, Mode, Optimizer, OptimizerStep, Precision, Recompute};
use crate::memory::setup::{LoraTargets, ModelSpec, Setup};
use serde_json::Value;

/// The committed measurements.
pub const RESULTS_JSON: &str = include_str!("../../../../../validation/results.json");

/// The configs the measured models were built from (`validation/configs/`): (file name, text).
pub const CONFIGS: &[(&str, &str)] = &[
    (
        "deepseek-v2-lite.json",
        include_str!("../../../../../validation/configs/deepseek-v2-lite.json"),
    ),
    (
        "gemma-3-1b.json",
        include_str!("../../../../../validation/configs/gemma-3-1b.json"),
    ),
    (
        "gpt-oss-20b.json",
        include_str!("../../../../../validation/configs/gpt-oss-20b.json"),
    ),
    (
        "gpt2.json",
        include_str!("../../../../../validation/configs/gpt2.json"),
    ),
    (
        "llama-3-70b.json",
        include_str!("../../../../../validation/configs/llama-3-70b.json"),
    ),
    (
        "llama-3-8b.json",
        include_str!("../../../../../validation/configs/llama-3-8b.json"),
    ),
    (
        "llama-3.2-1b.json",
        include_str!("../../../../../validation/configs/llama-3.2-1b.json"),
    ),
    (
        "mistral-7b.json",
        include_str!("../../../../../validation/configs/mistral-7b.json"),
    ),
    (
        "opt-125m.json",
        include_str!("../../../../../validation/configs/opt-125m.json"),
    ),
    (
        "phi-3-mini-4k.json",
        include_str!("../../../../../validation/configs/phi-3-mini-4k.json"),
    ),
    (
        "pythia-160m.json",
        include_str!("../../../../../validation/configs/pythia-160m.json"),
    ),
    (
        "qwen2.5-0.5b.json",
        include_str!("../../../../../validation/configs/qwen2.5-0.5b.json"),
    ),
    (
        "qwen3-30b-a3b.json",
        include_str!("../../../../../validation/configs/qwen3-30b-a3b.json"),
    ),
];

/// Largest relative error of an estimate's total against PyTorch's that counts as agreement (10 %).
pub const TOTAL_BOUND: f64 = 0.10;

/// Largest relative error of one part (weights, activations, …) that counts as agreement (15 %).
pub const PART_BOUND: f64 = 0.15;

/// The parts compared, in table order (`total` last).
pub const PARTS: [&str; 6] = [
    "weights",
    "gradients",
    "optimizer",
    "activations",
    "kv_cache",
    "total",
];

/// One measured setup compared with bitbudget.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The harness's setup name (`llama-3-8b-bf16-fused-sdpa`).
    pub name: String,
    /// The setup as bitbudget options.
    pub setup: Setup,
    /// Parameters of the model PyTorch built.
    pub measured_params: u64,
    /// The phase PyTorch's peak fell in (`forward`, `backward`, `optimizer`, `prefill`).
    pub measured_peak_phase: String,
    /// bitbudget's estimate.
    pub estimate: Breakdown,
    /// (part, bitbudget bytes, PyTorch bytes) for each part of [`PARTS`].
    pub parts: Vec<(&'static str, f64, f64)>,
    /// Inference: the bytes Transformers' KV cache holds after the decode steps (`None` for
    /// training, or a row measured before the harness recorded it). With a sliding window this
    /// is the window, while the prefill's peak still holds the whole prompt.
    pub measured_kv_after_decode: Option<f64>,
}

impl Row {
    /// bitbudget / PyTorch − 1 for `part`, or `None` when the part is absent or PyTorch measured 0.
    pub fn error(&self, part: &str) -> Option<f64> {
        let (_, est, got) = self.parts.iter().find(|(p, _, _)| *p == part)?;
        (*got > 0.0).then(|| est / got - 1.0)
    }
}

/// The committed measurements and the versions that made them.
#[derive(Clone, Debug, PartialEq)]
pub struct Validation {
    /// PyTorch's version (`2.15.0+cu132`).
    pub torch: String,
    /// Transformers' version.
    pub transformers: String,
    /// Every measured setup.
    pub rows: Vec<Row>,
}

fn text<'a>(s: &'a Value, k: &str) -> Result<&'a str, String> {
    s[k].as_str()
        .ok_or_else(|| format!("setup field {k} is missing"))
}

fn num(s: &Value, k: &str) -> Result<u64, String> {
    s[k].as_u64()
        .ok_or_else(|| format!("setup field {k} is missing"))
}

/// The architecture of a committed config by its file name (`"gpt2.json"`), read from the
/// config; an error names the file and what is wrong with it.
pub fn committed_arch(file: &str) -> Result<ModelArch, String> {
    let (_, config) = CONFIGS
        .iter()
        .find(|(f, _)| *f == file)
        .ok_or_else(|| format!("no config {file} in validation/configs"))?;
    parse_config(config)
        .map(|m| m.arch)
        .map_err(|e| format!("{file}: {e}"))
}

/// `validation/config_archs.json` as the committed configs make it: each config's file name and
/// its architecture in the compact text of a link's `arch=` (`memory::model::arch_text`), one per
/// line in [`CONFIGS`]' order. A test keeps the committed file equal to this.
pub fn config_archs_json() -> Result<String, String> {
    let mut lines = Vec::new();
    for (file, config) in CONFIGS {
        let m = parse_config(config).map_err(|e| format!("{file}: {e}"))?;
        let text = arch_to_text(&m.model_type, &m.arch);
        lines.push(format!("  {}: {}", Value::from(*file), Value::from(text)));
    }
    Ok(format!("{{\n{}\n}}\n", lines.join(",\n")))
}

/// Reads a `config_archs.json` document ([`config_archs_json`]) into a lookup of each config's
/// architecture by file name, for [`validation_of`]; an error names the entry that is wrong.
pub fn archs_from_json(json: &str) -> Result<impl Fn(&str) -> Result<ModelArch, String>, String> {
    let doc: Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let mut archs = Vec::new();
    for (file, text) in doc.as_object().ok_or("not an object")? {
        let text = text.as_str().ok_or_else(|| format!("{file}: not a text"))?;
        let (_, arch) = arch_from_text(text).map_err(|e| format!("{file}: {e}"))?;
        archs.push((file.clone(), arch));
    }
    Ok(move |file: &str| {
        archs
            .iter()
            .find(|(f, _)| f == file)
            .map(|(_, a)| a.clone())
            .ok_or_else(|| format!("no architecture for {file}"))
    })
}

/// The bitbudget setup of one harness setup (the one place that maps harness names onto options);
/// `arch_of` gives a config's architecture by its file name.
pub fn setup_of(
    s: &Value,
    arch_of: &dyn Fn(&str) -> Result<ModelArch, String>,
) -> Result<Setup, String> {
    let arch = arch_of(text(s, "config")?)?;
    let mut setup = Setup::new(ModelSpec::Arch {
        name: text(s, "name")?.into(),
        arch: Box::new(arch),
    });
    setup.mode = text(s, "mode")?.parse::<Mode>()?;
    (setup.dtype, setup.precision) = match text(s, "precision")? {
        "fp32" => (Dtype::Fp32, Precision::Pure),
        "bf16" => (Dtype::Bf16, Precision::Pure),
        "autocast-bf16" => (Dtype::Bf16, Precision::Autocast),
        other => return Err(format!("precision {other}")),
    };
    setup.kv_dtype = setup.dtype;
    setup.optimizer = Optimizer::Adamw;
    setup.optimizer_step = match text(s, "optimizer")? {
        "adamw-foreach" => OptimizerStep::Foreach,
        "adamw-fused" | "none" => OptimizerStep::Fused,
        other => return Err(format!("optimizer {other}")),
    };
    setup.flash_attention = text(s, "attention")? == "sdpa";
    setup.recompute = if s["checkpointing"].as_bool() == Some(true) {
        Recompute::Layer
    } else {
        Recompute::None
    };
    setup.adapter_dtype = text(s, "adapter_dtype")?.parse::<Dtype>()?;
    setup.lora_dropout = s["lora_dropout"].as_f64().unwrap_or(0.0) > 0.0;
    setup.batch = num(s, "batch")?;
    setup.seq = num(s, "seq")? + num(s, "decode_steps")?;
    setup.overhead_bytes = 0;
    if matches!(setup.mode, Mode::Lora | Mode::Qlora) {
        setup.lora_rank = num(s, "lora_rank")?;
        setup.lora_targets = match &s["lora_targets"] {
            Value::String(all) if all == "all-linear" => LoraTargets::ALL_LINEAR,
            Value::Array(names) => {
                let has = |n: &str| names.iter().any(|v| v.as_str() == Some(n));
                LoraTargets {
                    q: has("q_proj"),
                    k: has("k_proj"),
                    v: has("v_proj"),
                    o: has("o_proj"),
                    mlp: has("gate_proj"),
                }
            }
            other => return Err(format!("lora_targets {other}")),
        };
    }
    Ok(setup)
}

fn estimated(b: &Breakdown, part: &str) -> f64 {
    (match part {
        "weights" => b.weights.bytes,
        "gradients" => b.gradients.bytes,
        "optimizer" => b.optimizer.bytes,
        // As the measurement: the part at each phase's peak, the largest over the phases.
        "activations" => b
            .phases
            .iter()
            .map(|p| p.activations)
            .max()
            .unwrap_or(b.activations.bytes),
        "kv_cache" => b.kv_cache.bytes,
        _ => b.total - b.overhead.bytes,
    }) as f64
}

/// Each part's largest size over the measured phases; activations with the working tensors of
/// the phases that compute (not the optimizer step's); the total is the measured peak.
fn measured(m: &Value, part: &str) -> Result<f64, String> {
    if part == "total" {
        return m["peak"]["total"].as_f64().ok_or("no peak total".into());
    }
    let phases = m["phases"].as_object().ok_or("no phases")?;
    let mut most: f64 = 0.0;
    for (name, p) in phases.iter().filter(|(_, p)| p.is_object()) {
        let v = match part {
            "activations" if name == "optimizer" => 0.0,
            "activations" => {
                p["activations"].as_f64().unwrap_or(0.0) + p["temporaries"].as_f64().unwrap_or(0.0)
            }
            _ => p[part].as_f64().unwrap_or(0.0),
        };
        most = most.max(v);
    }
    Ok(most)
}

/// Reads [`RESULTS_JSON`] and estimates every setup; an error names the setup and the problem.
pub fn validation() -> Result<Validation, String> {
    validation_of(RESULTS_JSON, &committed_arch)
}

/// [`validation`] of any results document in the harness's format, each config's architecture
/// given by its file name through `arch_of` (the Memory page fetches the results and
/// `config_archs.json` instead of carrying them in its code).
pub fn validation_of(
    results_json: &str,
    arch_of: &dyn Fn(&str) -> Result<ModelArch, String>,
) -> Result<Validation, String> {
    let doc: Value = serde_json::from_str(results_json).map_err(|e| e.to_string())?;
    let version = |k: &str| doc["versions"][k].as_str().unwrap_or("?").to_string();
    let mut rows = Vec::new();
    for row in doc["setups"].as_array().ok_or("no setups")? {
        let s = &row["setup"];
        let name = text(s, "name")?.to_string();
        let m = row.get("measured").ok_or(format!("{name}: not measured"))?;
        let setup = setup_of(s, arch_of).map_err(|e| format!("{name}: {e}"))?;
        let estimate = estimate(&setup).map_err(|e| format!("{name}: {e}"))?;
        let mut parts = Vec::new();
        for part in PARTS {
            parts.push((part, estimated(&estimate, part), measured(m, part)?));
        }
        rows.push(Row {
            measured_params: m["base_params"].as_u64().unwrap_or(0),
            measured_peak_phase: m["peak_phase"].as_str().unwrap_or("?").into(),
            measured_kv_after_decode: m["kv_cache_after_decode"].as_f64(),
            name,
            setup,
            estimate,
            parts,
        });
    }
    Ok(Validation {
        torch: version("torch"),
        transformers: version("transformers"),
        rows,
    })
}

/// How alike two setups are for accuracy's sake: the same mode first, then precision recipe,
/// checkpointing, attention kernel and optimizer implementation, then the closest model size.
fn likeness(a: &Setup, b: &Setup) -> (u32, i64) {
    let same = |x: bool, w: u32| if x { w } else { 0 };
    let ckpt = |s: &Setup| s.recompute != Recompute::None;
    let score = same(a.mode == b.mode, 16)
        + same(a.precision == b.precision, 8)
        + same(ckpt(a) == ckpt(b), 4)
        + same(a.flash_attention == b.flash_attention, 2)
        + same(a.optimizer_step == b.optimizer_step, 1);
    let size = |s: &Setup| s.arch().map_or(0.0, |m| (m.params().max(1) as f64).ln());
    (score, -((size(a) - size(b)).abs() * 1000.0) as i64)
}

/// [`validation`], computed once (the page asks on every setup change).
pub fn committed() -> &'static Result<Validation, String> {
    static ONCE: std::sync::OnceLock<Result<Validation, String>> = std::sync::OnceLock::new();
    ONCE.get_or_init(validation)
}

impl Validation {
    /// The setups whose total is within `bound` (0.10 = 10 %), and the largest |error| among them.
    pub fn totals_within(&self, bound: f64) -> (usize, f64) {
        self.rows
            .iter()
            .filter_map(|r| r.error("total"))
            .filter(|e| e.abs() <= bound)
            .fold((0, 0.0), |(n, most), e| (n + 1, f64::max(most, e.abs())))
    }

    /// The measured setup most like `setup` (see the ranking in `likeness`).
    pub fn nearest(&self, setup: &Setup) -> Option<&Row> {
        self.rows.iter().max_by_key(|r| likeness(&r.setup, setup))
    }
}

/// One part of the nearest measured setup: bitbudget's bytes against PyTorch's.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PartCheck {
    /// The part (`weights`, …, `total`).
    pub part: &'static str,
    /// bitbudget's bytes for the measured setup.
    pub bitbudget: f64,
    /// PyTorch's bytes.
    pub pytorch: f64,
    /// bitbudget / PyTorch − 1; `None` where PyTorch measured 0.
    pub error: Option<f64>,
}

/// How the estimate compares with PyTorch on the measured setup nearest to the one asked about,
/// part by part: what the page's panel, the CLI's text and the JSON report show.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PytorchCheck {
    /// PyTorch's version.
    pub torch: String,
    /// The nearest measured setup's name.
    pub setup: String,
    /// Each part of [`PARTS`] that either side has.
    pub parts: Vec<PartCheck>,
}

impl PytorchCheck {
    /// "weights +0.0%, activations −4.6%, total −4.6%": the parts PyTorch measured.
    pub fn summary(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| {
                p.error
                    .map(|e| format!("{} {}", p.part.replace('_', " "), signed_percent(e)))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A relative error as a signed percentage to 0.1 ("+2.3%", "-10.8%"); errors that round to zero
/// read "0.0%" (never "-0.0%").
pub fn signed_percent(e: f64) -> String {
    let p = (e * 1000.0).round() / 10.0;
    if p == 0.0 {
        "0.0%".into()
    } else {
        format!("{p:+.1}%")
    }
}

/// The check of the committed measured setup nearest to `setup`, or `None` when there are no
/// committed measurements.
pub fn check_nearest(setup: &Setup) -> Option<PytorchCheck> {
    committed().as_ref().ok()?.check_nearest(setup)
}

impl Validation {
    /// The check of the measured setup nearest to `setup`: each part PyTorch or bitbudget has,
    /// with its error; `None` when there are no rows.
    pub fn check_nearest(&self, setup: &Setup) -> Option<PytorchCheck> {
        let r = self.nearest(setup)?;
        Some(PytorchCheck {
            torch: self.torch.clone(),
            setup: r.name.clone(),
            parts: r
                .parts
                .iter()
                .filter(|(_, est, got)| *est > 0.0 || *got > 0.0)
                .map(|&(part, bitbudget, pytorch)| PartCheck {
                    part,
                    bitbudget,
                    pytorch,
                    error: r.error(part),
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest setup's parts: every one PyTorch measured has its error, and the total is
    /// the last.
    #[test]
    fn the_check_names_each_part_of_the_nearest_setup() {
        let v = validation().unwrap();
        let c = check_nearest(&v.rows[0].setup).unwrap();
        assert_eq!(c.setup, v.rows[0].name);
        assert_eq!(c.parts.last().unwrap().part, "total");
        assert!(c
            .parts
            .iter()
            .any(|p| p.part == "activations" && p.error.is_some()));
        assert!(c.summary().contains("total "), "{}", c.summary());
        assert_eq!(signed_percent(-0.00001), "0.0%");
        assert_eq!(signed_percent(-0.108), "-10.8%");
        assert_eq!(signed_percent(0.023), "+2.3%");
    }

    /// The page's architectures are the configs': the committed `config_archs.json` is what the
    /// configs make, and each text reads back into the config's architecture.
    #[test]
    fn the_pages_architectures_are_the_configs() {
        let made = config_archs_json().unwrap();
        let committed = include_str!("../../../../../validation/config_archs.json");
        assert!(
            made == committed,
            "validation/config_archs.json differs from the configs; it should read:\n{made}"
        );
        let arch_of = archs_from_json(committed).unwrap();
        for (file, _) in CONFIGS {
            assert_eq!(arch_of(file), committed_arch(file), "{file}");
        }
        assert_eq!(
            validation_of(RESULTS_JSON, &arch_of),
            validation(),
            "the page's validation is the CLI's"
        );
        assert!(archs_from_json("[]").is_err());
        let bad = archs_from_json(r#"{"x.json": "llama.Q7"}"#).err().unwrap();
        assert!(bad.starts_with("x.json: "), "{bad}");
    }

    #[test]
    fn every_committed_setup_is_estimated_and_counts_the_same_parameters() {
        let v = validation().unwrap();
        assert!(v.rows.len() >= 20, "{} setups", v.rows.len());
        for r in &v.rows {
            assert_eq!(r.estimate.params, r.measured_params, "{}", r.name);
        }
    }

    #[test]
    fn totals_within_counts_only_setups_inside_the_bound() {
        let v = committed().as_ref().unwrap();
        let (n, most) = v.totals_within(0.10);
        assert!(n <= v.rows.len() && most <= 0.10);
        assert_eq!(v.totals_within(f64::INFINITY).0, v.rows.len());
    }

    #[test]
    fn the_nearest_setup_shares_the_mode_and_the_recipe() {
        let v = validation().unwrap();
        let mut s = v.rows[0].setup.clone();
        s.mode = Mode::Inference;
        assert_eq!(v.nearest(&s).unwrap().setup.mode, Mode::Inference);
    }
}
