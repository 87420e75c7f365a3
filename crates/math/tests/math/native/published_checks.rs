//! bitbudget against memory figures others have published: validation/published/figures.json
//! holds each figure with its source, the quote, the setup as `bitbudget memory` options and what
//! it measures. The Ultra-Scale Playbook's ZeRO, TP, TP + SP, CP and PP charts (formulas, with
//! their own transformer block), torchtitan's measured context-parallel runs of Llama 3.1 8B, and
//! measured FSDP2 + expert-parallel scaling of Qwen3-30B-A3B.
//!
//! Each setup is built through `Job::from_pairs`, as the CLI builds it, and estimated. Where the
//! figure's assumptions are bitbudget's, the estimate is held to within 5 %; where they differ,
//! to the band the figure's `differences` explains, so a drift of the model either way fails.
//! Run with `-- --nocapture` to print the table.

use bitbudget_math::memory::{estimate, Breakdown, Job, ModelSpec, Setup};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The relative error allowed where the figure's assumptions are bitbudget's.
const MATCH: f64 = 0.05;
/// The widest band a figure that differs may have: wider would check nothing.
const WIDEST_BAND: f64 = 0.15;

const FIGURES: &str = include_str!("../../../../../validation/published/figures.json");

#[derive(Deserialize)]
struct File {
    sources: BTreeMap<String, Source>,
    figures: Vec<Figure>,
    not_usable: Vec<NotUsable>,
}

#[derive(Deserialize)]
struct Source {
    title: String,
    url: String,
    version: String,
    units: String,
}

#[derive(Clone, Deserialize)]
struct Figure {
    id: String,
    source: String,
    #[serde(rename = "where")]
    location: String,
    quote: String,
    setup: BTreeMap<String, String>,
    #[serde(default)]
    minus_setup: Option<BTreeMap<String, String>>,
    #[serde(default)]
    scope: Option<String>,
    part: String,
    published: f64,
    unit: String,
    assumptions_match: bool,
    #[serde(default)]
    band: Option<[f64; 2]>,
    differences: String,
}

#[derive(Deserialize)]
struct NotUsable {
    source: String,
    quote: String,
    why: String,
}

fn file() -> File {
    serde_json::from_str(FIGURES).expect("validation/published/figures.json parses")
}

fn unit_bytes(unit: &str) -> f64 {
    match unit {
        "GB" => 1e9,
        "GiB" => (1u64 << 30) as f64,
        "MiB" => (1u64 << 20) as f64,
        other => panic!("unknown unit {other}"),
    }
}

fn setup_of(pairs: &BTreeMap<String, String>) -> Setup {
    Job::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .unwrap_or_else(|e| panic!("{pairs:?}: {e}"))
        .to_setup()
}

fn part(b: &Breakdown, name: &str) -> u64 {
    match name {
        "weights" => b.weights.bytes,
        "gradients" => b.gradients.bytes,
        "optimizer" => b.optimizer.bytes,
        "model_states" => b.model_states,
        "activations" => b.activations.bytes,
        "total" => b.total,
        other => panic!("unknown part {other}"),
    }
}

fn layers(s: &Setup) -> u64 {
    match &s.model {
        ModelSpec::Arch { arch, .. } => arch.layers,
        ModelSpec::Params(_) => panic!("a layer scope needs an architecture"),
    }
}

/// The figure's quantity by bitbudget, in bytes: the part, of the decoder layers alone with
/// `scope: layers` (the estimate with one layer fewer, subtracted, times the layers), less the
/// same of `minus_setup` where given.
fn ours(f: &Figure) -> f64 {
    let value = |pairs: &BTreeMap<String, String>| -> f64 {
        let s = setup_of(pairs);
        let whole = part(
            &estimate(&s).unwrap_or_else(|e| panic!("{}: {e}", f.id)),
            &f.part,
        );
        match f.scope.as_deref() {
            None => whole as f64,
            Some("layers") => {
                let mut fewer = s.clone();
                if let ModelSpec::Arch { arch, .. } = &mut fewer.model {
                    arch.layers -= 1;
                }
                let less = part(&estimate(&fewer).unwrap(), &f.part);
                (whole - less) as f64 * layers(&s) as f64
            }
            Some(other) => panic!("{}: unknown scope {other}", f.id),
        }
    };
    let v = value(&f.setup);
    match &f.minus_setup {
        Some(m) => v - value(m),
        None => v,
    }
}

/// Whether bitbudget's `ours` (bytes) meets the figure's bound: within [`MATCH`] where the
/// assumptions match, inside the band otherwise. Returns the relative error.
fn check(f: &Figure, ours: f64) -> Result<f64, String> {
    let published = f.published * unit_bytes(&f.unit);
    let err = ours / published - 1.0;
    let (lo, hi) = match (f.assumptions_match, f.band) {
        (true, None) => (-MATCH, MATCH),
        (false, Some([lo, hi])) => (lo, hi),
        (true, Some(_)) => return Err(format!("{}: a matching figure has no band", f.id)),
        (false, None) => return Err(format!("{}: a figure that differs needs a band", f.id)),
    };
    if (lo..=hi).contains(&err) {
        Ok(err)
    } else {
        Err(format!(
            "{}: bitbudget {:.4} {} against the published {} {}: {:+.1} %, outside [{:+.1} %, {:+.1} %] ({})",
            f.id,
            ours / unit_bytes(&f.unit),
            f.unit,
            f.published,
            f.unit,
            100.0 * err,
            100.0 * lo,
            100.0 * hi,
            if f.assumptions_match {
                "the assumptions match"
            } else {
                f.differences.as_str()
            }
        ))
    }
}

#[test]
fn every_published_figure_is_within_its_bound() {
    let file = file();
    let mut failures = Vec::new();
    println!(
        "{:<52} {:>12} {:>12} {:>8}  match",
        "figure", "published", "bitbudget", "error"
    );
    for f in &file.figures {
        let v = ours(f);
        let err = v / (f.published * unit_bytes(&f.unit)) - 1.0;
        println!(
            "{:<52} {:>8.3} {:<3} {:>8.3} {:<3} {:>+7.1}%  {}",
            f.id,
            f.published,
            f.unit,
            v / unit_bytes(&f.unit),
            f.unit,
            100.0 * err,
            if f.assumptions_match { "yes" } else { "no" }
        );
        if let Err(e) = check(f, v) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The check catches a figure off by more than its bound, both ways, matching or not.
#[test]
fn a_planted_error_is_caught() {
    let file = file();
    let matching = file.figures.iter().find(|f| f.assumptions_match).unwrap();
    let v = ours(matching);
    assert!(check(matching, v).is_ok());
    for factor in [1.06, 0.94] {
        assert!(check(matching, v * factor).is_err(), "{factor}");
    }
    let differing = file.figures.iter().find(|f| !f.assumptions_match).unwrap();
    let [lo, hi] = differing.band.unwrap();
    let published = differing.published * unit_bytes(&differing.unit);
    assert!(check(differing, published * (1.0 + hi + 0.01)).is_err());
    assert!(check(differing, published * (1.0 + lo - 0.01)).is_err());
    // A matching figure given a band, or a differing one without, is refused.
    let mut banded = matching.clone();
    banded.band = Some([-0.5, 0.5]);
    assert!(check(&banded, v).is_err());
    let mut bare = differing.clone();
    bare.band = None;
    assert!(check(&bare, published).is_err());
}

/// Every figure names a known source, quotes it and says where; every band is narrow enough to
/// check something and comes with its reason; every figure left out says why.
#[test]
fn figures_cite_their_sources_and_bands_say_why() {
    let file = file();
    for (id, s) in &file.sources {
        assert!(s.url.starts_with("https://"), "{id}");
        assert!(!s.title.is_empty() && !s.version.is_empty() && !s.units.is_empty());
    }
    let mut ids = std::collections::BTreeSet::new();
    for f in &file.figures {
        assert!(ids.insert(&f.id), "{} twice", f.id);
        assert!(file.sources.contains_key(&f.source), "{}", f.id);
        assert!(!f.quote.is_empty() && !f.location.is_empty(), "{}", f.id);
        assert!(!f.differences.is_empty(), "{}", f.id);
        if let Some([lo, hi]) = f.band {
            assert!(
                lo < hi && hi - lo <= WIDEST_BAND + 1e-12,
                "{}: band {lo}..{hi}",
                f.id
            );
        }
    }
    assert!(!file.not_usable.is_empty());
    for n in &file.not_usable {
        assert!(!n.source.is_empty() && !n.quote.is_empty() && n.why.len() > 40);
    }
}

/// torchtitan measured the same memory (83.9 to 84.5 GiB) for Llama 3.1 8B at 32k tokens per GPU
/// whether the 8 GPUs shard the sequence or the batch (FSDP over dp × cp): bitbudget must too.
#[test]
fn context_parallel_rows_hold_what_torchtitan_measured_alike() {
    let file = file();
    let rows: Vec<f64> = file
        .figures
        .iter()
        .filter(|f| f.id.starts_with("torchtitan-llama3-8b-"))
        .map(ours)
        .collect();
    assert_eq!(rows.len(), 4);
    let (lo, hi) = rows
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    assert!(hi / lo - 1.0 <= 0.01, "{rows:?}");
}

/// The Playbook's charts are its formulas (Korthikanti et al. 2022) on its own block; with that
/// block bitbudget's layers reproduce them to the byte, not merely within 5 %.
#[test]
fn the_playbooks_block_gives_the_playbooks_activations_exactly() {
    let file = file();
    let gpt: Vec<&Figure> = file
        .figures
        .iter()
        .filter(|f| f.id.ends_with("-gpt-block") && !f.id.starts_with("playbook-eager"))
        .collect();
    assert!(gpt.len() >= 6);
    for f in gpt {
        let err = ours(f) / (f.published * unit_bytes(&f.unit)) - 1.0;
        assert!(err.abs() < 1e-9, "{}: {err}", f.id);
    }
}
