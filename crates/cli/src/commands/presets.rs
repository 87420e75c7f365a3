//! `bitbudget models` and `bitbudget gpus`, plus the count parser other commands share (the math
//! crate's, so every command reads `7.5e9` the same way).

use bitbudget_math::memory::{gpu_presets, model_presets};
use bitbudget_math::numbers::{format_bytes, format_count, Units};
use clap::Args;
use serde_json::json;

/// Arguments of `models` and `gpus`.
#[derive(Args)]
pub struct ListArgs {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Lists the model presets with their computed parameter counts.
pub fn run_models(args: ListArgs) -> Result<(), String> {
    let models = model_presets();
    if args.json {
        let rows: Vec<_> = models.iter().map(|m| json!({ "id": m.id, "name": m.name, "family": m.family, "params": m.arch.params(), "arch": m.arch, "source": m.source })).collect();
        crate::io::emit(&(serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())? + "\n"))?;
        return Ok(());
    }
    let text: String = models
        .iter()
        .map(|m| {
            let a = &m.arch;
            format!("{:<16}{:>10}  {:<16} layers {:>3}  hidden {:>5}  heads {:>3}/{:<3}  ffn {:>5}  vocab {:>6}\n", m.id, format_count(a.params()), m.name, a.layers, a.hidden, a.heads, a.kv_heads, a.ffn, a.vocab)
        })
        .collect();
    crate::io::emit(&text)
}

/// Lists the GPU presets with their capacities.
pub fn run_gpus(args: ListArgs) -> Result<(), String> {
    let gpus = gpu_presets();
    if args.json {
        crate::io::emit(&(serde_json::to_string_pretty(&gpus).map_err(|e| e.to_string())? + "\n"))?;
        return Ok(());
    }
    let text: String = gpus
        .iter()
        .map(|g| {
            format!(
                "{:<16}{:>12}{:>12}  {}  ({})\n",
                g.id,
                format_bytes(g.capacity_bytes, Units::Gb),
                format_bytes(g.capacity_bytes, Units::Gib),
                g.name,
                g.source
            )
        })
        .collect();
    crate::io::emit(&text)
}

pub use bitbudget_math::memory::job::parse_count;
