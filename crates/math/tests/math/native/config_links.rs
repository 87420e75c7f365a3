//! A model read from a `config.json` survives a link: every config in the project's set, loaded,
//! written as the page's URL pairs and read back, gives the same setup and the same report.

use bitbudget_math::memory::{estimate, Job};
use std::path::Path;

fn configs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["tests/fixtures/hf_configs", "../../validation/configs"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "json") {
                out.push((
                    path.display().to_string(),
                    std::fs::read_to_string(&path).unwrap(),
                ));
            }
        }
    }
    assert!(out.len() >= 9, "{} configs", out.len());
    out
}

#[test]
fn every_config_round_trips_through_the_url_to_the_same_report() {
    let mut tried = 0;
    for (name, text) in configs() {
        let mut job = Job::default();
        if job.load_config(&text).is_err() {
            continue; // configs kept to test refusals
        }
        job.apply("mode", "train").unwrap().unwrap();
        job.apply("dp", "8").unwrap().unwrap();
        job.apply("gpu", "h100-80gb").unwrap().unwrap();
        let pairs = job.to_pairs(true);
        assert!(pairs.iter().any(|(k, _)| *k == "arch"), "{name}: {pairs:?}");
        let back = Job::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.to_setup(), job.to_setup(), "{name}");
        assert_eq!(
            estimate(&back.to_setup()).ok(),
            estimate(&job.to_setup()).ok(),
            "{name}"
        );
        tried += 1;
    }
    assert!(tried >= 9, "{tried} configs round-tripped");
}

#[test]
fn a_bad_arch_in_a_link_is_refused_by_name() {
    let err = Job::from_pairs([("arch", "llama.L2")])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("architecture") && err.contains("lacks one of the sizes"),
        "{err}"
    );
}
