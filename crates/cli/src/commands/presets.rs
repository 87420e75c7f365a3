//! `bitbudget models` and `bitbudget gpus`, plus argument helpers shared by the memory command.

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

/// Parses a non-negative whole count, accepting scientific notation (`7.5e9`, `4096`).
pub fn parse_count(text: &str) -> Result<u64, String> {
    if let Ok(n) = text.trim().parse::<u64>() {
        return Ok(n);
    }
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("'{text}' must be a finite number ≥ 0"));
    }
    if v.fract() != 0.0 || v > 1.8e19 {
        return Err(format!("'{text}' must be a whole number below 1.8e19"));
    }
    Ok(v as u64)
}

/// Up to three ids closest to `wanted`: ids containing it first, then by edit distance.
pub fn closest(wanted: &str, ids: &[&str]) -> Vec<String> {
    let w = wanted.to_ascii_lowercase();
    let mut scored: Vec<(bool, usize, &str)> = ids
        .iter()
        .map(|id| (!id.contains(&w), edit_distance(&w, id), *id))
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, _, id)| id.to_string())
        .collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accept_scientific_and_reject_nonsense() {
        assert_eq!(parse_count("7.5e9"), Ok(7_500_000_000));
        assert_eq!(parse_count("4096"), Ok(4096));
        assert!(parse_count("-1").is_err());
        assert!(parse_count("NaN").is_err());
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("1e300").is_err());
    }

    #[test]
    fn closest_ids_suggest_the_typo() {
        assert_eq!(
            closest("lama-3-8b", &["gpt2", "llama-3-8b", "llama-2-7b"])[0],
            "llama-3-8b"
        );
    }
}
