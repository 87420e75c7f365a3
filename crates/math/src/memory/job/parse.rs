//! Reading and writing option values as text: counts in scientific notation, flags, named
//! choices with suggestions, MLP shapes and LoRA target lists.

use crate::memory::model::arch::Mlp;
use crate::memory::setup::LoraTargets;
use crate::numbers::Units;

/// An on/off value ([`crate::named::parse_flag`]), with the refusal worded for an option.
pub(super) fn flag(text: &str) -> Result<bool, String> {
    crate::named::parse_flag(text).ok_or_else(|| "is not 1 or 0".into())
}

/// Parses a whole count ≥ 0, accepting scientific notation (`7.5e9`, `4096`); the error says why
/// in words that follow the text ("is not a number").
pub(super) fn count(text: &str) -> Result<u64, &'static str> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    let v: f64 = t.parse().map_err(|_| "is not a number")?;
    if !v.is_finite() || v < 0.0 {
        return Err("must be a finite number ≥ 0");
    }
    if v.fract() != 0.0 || v >= 1.8e19 {
        return Err("must be a whole number below 1.8e19");
    }
    Ok(v as u64)
}

/// Parses a non-negative whole count, accepting scientific notation (`7.5e9`, `4096`). Errors
/// quote the text: `'-5' must be a finite number ≥ 0`, `'1.5' must be a whole number below 1.8e19`.
pub fn parse_count(text: &str) -> Result<u64, String> {
    count(text).map_err(|reason| format!("'{text}' {reason}"))
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

/// Parses one of `all` by its name, or says which names exist.
pub(super) fn named<T: Copy + std::fmt::Display>(text: &str, all: &[T]) -> Result<T, String> {
    let wanted = text.trim().to_ascii_lowercase();
    all.iter()
        .copied()
        .find(|v| v.to_string() == wanted)
        .ok_or_else(|| {
            let names: Vec<String> = all.iter().map(T::to_string).collect();
            format!("is not one of {}", names.join(", "))
        })
}

const MLPS: [Mlp; 2] = [Mlp::Gelu, Mlp::Swiglu];

/// The name of an MLP shape in options: `gelu` or `swiglu`.
pub const fn mlp_name(m: Mlp) -> &'static str {
    match m {
        Mlp::Gelu => "gelu",
        Mlp::Swiglu => "swiglu",
    }
}

pub(super) fn parse_mlp(text: &str) -> Result<Mlp, String> {
    let wanted = text.trim().to_ascii_lowercase();
    MLPS.iter()
        .copied()
        .find(|m| mlp_name(*m) == wanted)
        .ok_or_else(|| "is not one of gelu, swiglu".into())
}

pub(super) const UNITS: [Units; 2] = [Units::Gb, Units::Gib];

/// LoRA targets as `q,v` (in the order q, k, v, o, mlp), or `none`.
pub fn lora_targets_text(t: LoraTargets) -> String {
    let names: Vec<&str> = [
        (t.q, "q"),
        (t.k, "k"),
        (t.v, "v"),
        (t.o, "o"),
        (t.mlp, "mlp"),
    ]
    .into_iter()
    .filter_map(|(on, n)| on.then_some(n))
    .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(",")
    }
}

pub(super) fn parse_lora_targets(text: &str) -> Result<LoraTargets, String> {
    let mut t = LoraTargets {
        q: false,
        k: false,
        v: false,
        o: false,
        mlp: false,
    };
    match text.trim() {
        "none" => return Ok(t),
        "all" => return Ok(LoraTargets::ALL_LINEAR),
        _ => {}
    }
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "q" => t.q = true,
            "k" => t.k = true,
            "v" => t.v = true,
            "o" => t.o = true,
            "mlp" => t.mlp = true,
            other => {
                return Err(format!(
                    "names '{other}': targets are q, k, v, o and mlp (or all, none, auto)"
                ))
            }
        }
    }
    Ok(t)
}

/// `wanted` when it is one of `ids`, or an error naming what it is not and the closest ids.
pub(super) fn known_id(wanted: &str, ids: &[&str], what: &str) -> Result<String, String> {
    if ids.contains(&wanted) {
        return Ok(wanted.into());
    }
    Err(format!(
        "is not {what}; closest: {}",
        closest(wanted, ids).join(", ")
    ))
}

pub(super) fn auto_count(text: &str, max: u64) -> Result<Option<u64>, String> {
    if text.trim() == "auto" {
        return Ok(None);
    }
    let n = count(text)?;
    if n == 0 || n > max {
        return Err(format!("is outside 1..={max} (or auto)"));
    }
    Ok(Some(n))
}

pub(super) fn auto_text(v: Option<u64>) -> String {
    v.map_or_else(|| "auto".into(), |n| n.to_string())
}
