//! bitbudget against PyTorch itself: every setup in validation/results.json (measured by
//! validation/harness.py with real Transformers models under fake tensors) is recomputed from its
//! config.json and compared part by part.
//!
//! What is compared: each part's largest size over the measured phases (weights, gradients,
//! optimizer states, activations + temporaries, KV cache) against bitbudget's line for it, and the
//! measured peak total (the largest phase) against bitbudget's total without overhead (fake tensors
//! see no CUDA context, caching allocator or fragmentation). bitbudget adds its parts as if they
//! were all live at once, which is what a single peak over all phases would need.
//!
//! Bounds (issue #13): total within 10 %, each part within 15 %. Where today's model cannot meet a
//! bound, the pair is listed in KNOWN_GAPS with the reason; the test fails if a listed gap has
//! closed (so the list cannot go stale) and if any unlisted pair is out of bounds.

// Reads fixture files from disk: native only.
#![cfg(not(target_arch = "wasm32"))]

use bitbudget_math::memory::hf_config::parse_config;
use bitbudget_math::memory::{
    estimate, Breakdown, Dtype, LoraTargets, Mode, ModelSpec, Optimizer, OptimizerStep, Precision,
    Recompute, Setup,
};
use serde_json::Value;

/// Largest relative error of the total (issue #13).
const TOTAL_BOUND: f64 = 0.10;
/// Largest relative error of each part (issue #13).
const PART_BOUND: f64 = 0.15;
/// Parts smaller than this (bytes) in both estimate and measurement are not compared: a scalar
/// step counter or a last-token logit row is not a memory question.
const NEGLIGIBLE_BYTES: f64 = 16e6;

/// The parts compared, in table order.
const PARTS: [&str; 6] = [
    "weights",
    "gradients",
    "optimizer",
    "activations",
    "kv_cache",
    "total",
];

/// (substring of the setup name or "*", part, why the model misses the bound). Every other pair is
/// within bounds with the framework-faithful options (precision recipe, optimizer implementation,
/// attention kernel, per-layer checkpointing, adapter dtype and dropout as Transformers and peft
/// apply them).
const KNOWN_GAPS: &[(&str, &str, &str)] = &[
    // GPT-2 is the one family whose layers the Transformers tensor list does not describe.
    ("gpt2-autocast", "activations", "GPT-2's gelu_new is written out in Python ops (pow, tanh, several multiplies), each saving an f-wide tensor, and its three dropouts (p = 0.1) save masks; the CPU SDPA kernel with dropout falls back to the math path and stores the s×s scores (FlashAttention on a GPU would not)"),
    ("gpt2-autocast", "total", "activation-dominated: see activations"),
    ("gpt2-bf16", "activations", "as gpt2-autocast: gelu_new's Python ops, dropout masks, CPU SDPA's math path with dropout"),
    ("gpt2-bf16", "total", "activation-dominated: see activations"),
    // The measurement records each part at the moment of a phase's peak, not its own largest.
    ("phi-3-mini-bf16-fused-sdpa-ckpt", "activations", "PyTorch reports each part at a phase's peak; here the backward peak comes late (gradients dominate), so the FP32 logit gradients at the start of the backward pass (1.05 GB), which bitbudget's activation line includes, are in no phase's peak; the total is within 2 %"),
    // Sliding window: Transformers' DynamicCache keeps every token for Mistral; bitbudget caps the
    // cache at the window, as vLLM and Transformers' sliding-window cache layers do.
    ("mistral-7b-infer", "kv_cache", "Transformers' DynamicCache keeps all 8k tokens; bitbudget caps at the 4k window"),
    ("mistral-7b-infer", "activations", "with a sliding window SDPA cannot use is_causal, so Transformers materialises an s×s mask (8k × 8k) that bitbudget does not count"),
];

fn repo_path(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// The one place that turns a harness setup into a bitbudget Setup (adapt here when Setup changes).
fn bitbudget_setup(s: &Value) -> Setup {
    let text = |k: &str| s[k].as_str().unwrap_or_else(|| panic!("setup field {k}"));
    let num = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("setup field {k}"));
    let config_path = repo_path(&format!("validation/configs/{}", text("config")));
    let config = std::fs::read_to_string(&config_path).expect("config");
    let model = parse_config(&config).unwrap_or_else(|e| panic!("{config_path}: {e}"));
    let mut setup = Setup::new(ModelSpec::Arch {
        name: text("name").into(),
        arch: Box::new(model.arch),
    });
    setup.mode = match text("mode") {
        "train" => Mode::Train,
        "lora" => Mode::Lora,
        "qlora" => Mode::Qlora,
        "inference" => Mode::Inference,
        other => panic!("mode {other}"),
    };
    (setup.dtype, setup.precision) = match text("precision") {
        "fp32" => (Dtype::Fp32, Precision::Pure),
        "bf16" => (Dtype::Bf16, Precision::Pure),
        "autocast-bf16" => (Dtype::Bf16, Precision::Autocast),
        other => panic!("precision {other}"),
    };
    setup.kv_dtype = setup.dtype;
    setup.optimizer = Optimizer::Adamw;
    setup.optimizer_step = match text("optimizer") {
        "adamw-fused" => OptimizerStep::Fused,
        "adamw-foreach" => OptimizerStep::Foreach,
        "none" => OptimizerStep::Fused,
        other => panic!("optimizer {other}"),
    };
    setup.flash_attention = text("attention") == "sdpa";
    setup.recompute = if s["checkpointing"].as_bool() == Some(true) {
        Recompute::Layer
    } else {
        Recompute::None
    };
    setup.adapter_dtype = match text("adapter_dtype") {
        "fp32" => Dtype::Fp32,
        "bf16" => Dtype::Bf16,
        other => panic!("adapter_dtype {other}"),
    };
    setup.lora_dropout = s["lora_dropout"].as_f64().unwrap_or(0.0) > 0.0;
    setup.batch = num("batch");
    setup.seq = num("seq") + num("decode_steps");
    setup.overhead_bytes = 0;
    if matches!(setup.mode, Mode::Lora | Mode::Qlora) {
        setup.lora_rank = num("lora_rank");
        setup.lora_targets = match &s["lora_targets"] {
            Value::String(all) if all == "all-linear" => LoraTargets {
                q: true,
                k: true,
                v: true,
                o: true,
                mlp: true,
            },
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
            other => panic!("lora_targets {other}"),
        };
    }
    setup
}

fn estimated(b: &Breakdown, part: &str) -> f64 {
    (match part {
        "weights" => b.weights.bytes,
        "gradients" => b.gradients.bytes,
        "optimizer" => b.optimizer.bytes,
        "activations" => b.activations.bytes,
        "kv_cache" => b.kv_cache.bytes,
        "total" => b.total - b.overhead.bytes,
        _ => unreachable!(),
    }) as f64
}

/// Each part's largest size over the phases. Activations include the temporaries of the phases
/// that compute (forward, backward, prefill, decode), not the optimizer step's, which bitbudget does
/// not model yet (they count in the total).
fn measured(m: &Value, part: &str) -> f64 {
    if part == "total" {
        return m["peak"]["total"].as_f64().expect("peak total");
    }
    let phases = m["phases"].as_object().expect("phases");
    phases
        .iter()
        .filter(|(k, p)| p.is_object() && !(part == "activations" && *k == "optimizer"))
        .map(|(_, p)| match part {
            "activations" => {
                p["activations"].as_f64().unwrap() + p["temporaries"].as_f64().unwrap()
            }
            _ => p[part].as_f64().unwrap(),
        })
        .fold(0.0, f64::max)
}

fn gap_reason(name: &str, part: &str) -> Option<&'static str> {
    KNOWN_GAPS
        .iter()
        .find(|(pattern, p, _)| *p == part && matches(pattern, name))
        .map(|(_, _, why)| *why)
}

/// A gap's pattern is "*" (every setup) or a substring of the setup name.
fn matches(pattern: &str, name: &str) -> bool {
    pattern == "*" || name.contains(pattern)
}

#[test]
fn bitbudget_stays_within_the_bounds_against_pytorch_or_names_the_gap() {
    let text = std::fs::read_to_string(repo_path("validation/results.json")).expect("results.json");
    let doc: Value = serde_json::from_str(&text).expect("results.json is JSON");
    let rows = doc["setups"].as_array().expect("setups");
    assert!(
        rows.len() >= 20,
        "the harness measured {} setups",
        rows.len()
    );
    let v = &doc["versions"];
    println!(
        "PyTorch {} · Transformers {} · peft {} · Python {}",
        v["torch"], v["transformers"], v["peft"], v["python"]
    );
    println!(
        "{:<44} {:<11} {:>9} {:>9} {:>8}  note",
        "setup", "part", "bitbudget", "PyTorch", "error"
    );
    let mut failures = Vec::new();
    let mut out_of_bound = Vec::new();
    let mut within = 0;
    let mut compared = 0;
    for row in rows {
        let s = &row["setup"];
        let name = s["name"].as_str().unwrap();
        let m = row
            .get("measured")
            .unwrap_or_else(|| panic!("{name} has no measurement: {}", row["error"]));
        let b = estimate(&bitbudget_setup(s)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            b.params,
            m["base_params"].as_u64().unwrap(),
            "{name}: parameter count from config.json vs the built model"
        );
        for part in PARTS {
            let (est, got) = (estimated(&b, part), measured(m, part));
            if est < NEGLIGIBLE_BYTES && got < NEGLIGIBLE_BYTES {
                continue;
            }
            compared += 1;
            let err = if got > 0.0 {
                est / got - 1.0
            } else {
                f64::INFINITY
            };
            let bound = if part == "total" {
                TOTAL_BOUND
            } else {
                PART_BOUND
            };
            let ok = err.abs() <= bound;
            within += ok as u32;
            if !ok {
                out_of_bound.push((name, part));
            }
            let note = match (ok, gap_reason(name, part)) {
                (true, _) => String::new(),
                (false, Some(why)) => format!("known gap: {why}"),
                (false, None) => {
                    failures.push(format!("{name} {part}: {:+.1}%", err * 100.0));
                    format!("OUT OF BOUND (±{:.0}%)", bound * 100.0)
                }
            };
            println!(
                "{name:<44} {part:<11} {:>8.3}G {:>8.3}G {:>+7.1}%  {note}",
                est / 1e9,
                got / 1e9,
                err * 100.0
            );
        }
    }
    println!("{within} of {compared} comparisons within bounds");
    assert!(
        failures.is_empty(),
        "out of bounds and not a known gap: {failures:#?}"
    );
    // A listed gap that no setup misses any more has closed: take it off the list.
    let closed: Vec<_> = KNOWN_GAPS
        .iter()
        .filter(|(pattern, part, _)| {
            !out_of_bound
                .iter()
                .any(|(name, p)| p == part && matches(pattern, name))
        })
        .collect();
    assert!(
        closed.is_empty(),
        "known gaps that no longer miss the bound: {closed:#?}"
    );
}
