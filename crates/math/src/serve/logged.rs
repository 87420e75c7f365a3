//! bitbudget against what the engines printed: the published startup logs and benchmark rows in
//! `validation/serve/engine_logs.json` (engine, version, model, GPU and knobs, each with its
//! source), included at compile time and answered with [`serve`]. The one source for the
//! comparison test (`tests/math/native/serve_logs.rs`), `bitbudget serve --check` and the Serve page's
//! "checked against engine logs" line.

use super::setup::ServeSetup;
use super::{serve, Checkpoint, Engine, ServeReport};
use crate::memory::{find_gpu, find_model};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The committed table.
pub const ENGINE_LOGS_JSON: &str = include_str!("../../../../validation/serve/engine_logs.json");

/// One logged case, as committed.
#[derive(Clone, Debug, Deserialize)]
pub struct LoggedCase {
    /// Short id ("V1", "S1", "L2").
    pub id: String,
    /// Engine name.
    pub engine: String,
    /// The engine's version (or date) in the source.
    pub version: String,
    /// Model preset id.
    pub model: String,
    /// Checkpoint format name.
    pub checkpoint: String,
    /// GPU preset id.
    pub gpu: String,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// The engine's memory fraction, where the log gives one.
    pub memory_fraction: Option<f64>,
    /// `max_model_len` / `n_ctx`.
    pub max_model_len: Option<u64>,
    /// `max_num_seqs`.
    pub max_num_seqs: Option<u64>,
    /// `max_num_batched_tokens`.
    pub max_num_batched_tokens: Option<u64>,
    /// llama.cpp `-ngl`.
    pub gpu_layers: Option<u64>,
    /// The KV cache's element type where the log shows one other than the model's (`fp8`).
    #[serde(default)]
    pub kv_dtype: Option<String>,
    /// The total memory the log prints for the GPU, GiB (CUDA's figure, which the fraction
    /// multiplies), where it prints one.
    pub cuda_total_gib: Option<f64>,
    /// Context while decoding (llama-bench's tg128 averages 64).
    pub prompt_tokens: Option<u64>,
    /// The printed figures, by quantity name.
    pub logged: BTreeMap<String, f64>,
    /// The lines as printed.
    pub printed: String,
    /// Where it was published.
    pub source: String,
    /// Quantities missed by more than the bound, with the reason.
    #[serde(default)]
    pub outside: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Table {
    bounds: BTreeMap<String, f64>,
    cases: Vec<LoggedCase>,
}

/// One quantity of one case: what the engine printed and what bitbudget gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The case's id.
    pub id: String,
    /// Engine, model, GPU and version in words.
    pub case: String,
    /// The quantity (`kv_gib`, `kv_tokens`, `kv_blocks`, `max_concurrency`,
    /// `decode_tokens_per_s`).
    pub quantity: String,
    /// What the engine printed.
    pub logged: f64,
    /// bitbudget's figure.
    pub estimate: f64,
    /// estimate / logged − 1.
    pub error: f64,
    /// The bound for this quantity.
    pub bound: f64,
    /// Why the case is outside its bound, when the table says it is.
    pub outside: Option<String>,
    /// The source.
    pub source: String,
}

/// The committed table, parsed once.
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(ENGINE_LOGS_JSON).expect("validation/serve/engine_logs.json is valid")
    })
}

/// Every case, as committed.
pub fn cases() -> Vec<LoggedCase> {
    table().cases.clone()
}

/// The setup a case describes, or what in it names nothing known.
pub fn setup_of(c: &LoggedCase) -> Result<ServeSetup, String> {
    let engine: Engine = c.engine.parse()?;
    let model = find_model(&c.model).ok_or(format!("{}: no model preset '{}'", c.id, c.model))?;
    let gpu = find_gpu(&c.gpu).ok_or(format!("{}: no GPU preset '{}'", c.id, c.gpu))?;
    let checkpoint: Checkpoint = c.checkpoint.parse()?;
    let mut s = ServeSetup::new(engine, &c.model, model.arch, gpu);
    s.tp = c.tp;
    s.checkpoint = checkpoint;
    s.memory_fraction = c.memory_fraction;
    s.max_model_len = c.max_model_len;
    s.max_num_seqs = c.max_num_seqs;
    s.max_num_batched_tokens = c.max_num_batched_tokens;
    s.gpu_layers = c.gpu_layers;
    if let Some(k) = &c.kv_dtype {
        s.kv_dtype = k.parse().map_err(|e| format!("{}: {e}", c.id))?;
    }
    s.prompt_tokens = c
        .prompt_tokens
        .unwrap_or(1)
        .min(c.max_model_len.unwrap_or(u64::MAX));
    s.concurrency = Some(1);
    s.cuda_total_bytes = c.cuda_total_gib.map(|g| (g * (1u64 << 30) as f64) as u64);
    Ok(s)
}

fn quantity(r: &ServeReport, name: &str) -> Option<f64> {
    Some(match name {
        "kv_gib" => r.per_gpu.kv_cache as f64 / (1u64 << 30) as f64,
        "kv_tokens" => r.kv_tokens as f64,
        "kv_blocks" => r.kv_blocks as f64,
        "max_concurrency" => r.max_concurrency,
        "decode_tokens_per_s" => r.decode.tokens_per_s,
        _ => return None,
    })
}

/// Every logged quantity of every case against bitbudget's figure, in table order; computed once
/// (the Serve page asks on every change of a knob).
pub fn comparisons() -> Result<Vec<Comparison>, String> {
    static ALL: OnceLock<Result<Vec<Comparison>, String>> = OnceLock::new();
    ALL.get_or_init(compare_all).clone()
}

fn compare_all() -> Result<Vec<Comparison>, String> {
    let t = table();
    let mut out = Vec::new();
    for c in &t.cases {
        let setup = setup_of(c)?;
        let r = serve(&setup).map_err(|e| format!("{}: {e}", c.id))?;
        for (name, &logged) in &c.logged {
            let estimate =
                quantity(&r, name).ok_or(format!("{}: unknown quantity '{name}'", c.id))?;
            let bound = *t.bounds.get(name).ok_or(format!("no bound for '{name}'"))?;
            out.push(Comparison {
                id: c.id.clone(),
                case: format!(
                    "{} {} · {} {} · {}×{}",
                    setup.engine.label(),
                    c.version,
                    c.model,
                    c.checkpoint,
                    c.tp,
                    c.gpu
                ),
                quantity: name.clone(),
                logged,
                estimate,
                error: estimate / logged - 1.0,
                bound,
                outside: c.outside.get(name).cloned(),
                source: c.source.clone(),
            });
        }
    }
    Ok(out)
}

/// The logged comparison nearest to `setup`, and whether it is of the same model: the same
/// engine first, then the same model, then a case within its bound (so that another model's
/// case is never one listed as outside), then the same GPU, a memory quantity before a speed.
pub fn nearest(setup: &ServeSetup) -> Option<(Comparison, bool)> {
    let all = comparisons().ok()?;
    let t = table();
    let score = |cmp: &Comparison| {
        let c = t.cases.iter().find(|c| c.id == cmp.id)?;
        Some((
            c.engine.parse::<Engine>().ok()? == setup.engine,
            c.model == setup.model_id,
            cmp.outside.is_none(),
            c.gpu == setup.gpu.id,
            cmp.quantity != "decode_tokens_per_s",
        ))
    };
    // The first of the best (max_by_key keeps the last, so the list is walked backwards).
    all.iter()
        .rev()
        .filter_map(|c| Some((score(c)?, c)))
        .max_by_key(|(s, _)| *s)
        .map(|(s, c)| (c.clone(), s.1))
}
