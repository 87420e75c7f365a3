//! The serving model against what vLLM, SGLang, TensorRT-LLM and llama.cpp printed
//! (`validation/serve/engine_logs.json`): KV memory, tokens, blocks and concurrency within 5%,
//! decode tokens per second within 25%, and every case the table lists as outside its bound is
//! outside it (so the list of exceptions stays true).

use bitbudget_math::serve::logged::comparisons;

#[test]
fn every_logged_case_is_within_its_bound_or_listed_with_its_reason() {
    let all = comparisons().expect("every case names known presets and knobs");
    assert!(all.len() >= 12, "{} comparisons", all.len());
    let mut report = String::new();
    let mut wrong = Vec::new();
    for c in &all {
        let within = c.error.abs() <= c.bound;
        report.push_str(&format!(
            "{:4} {:20} logged {:>12.2} estimate {:>12.2} error {:+6.1}% (bound {:.0}%){}\n",
            c.id,
            c.quantity,
            c.logged,
            c.estimate,
            100.0 * c.error,
            100.0 * c.bound,
            if c.outside.is_some() {
                " listed outside"
            } else {
                ""
            }
        ));
        match &c.outside {
            None if !within => wrong.push(format!("{} {}: outside its bound", c.id, c.quantity)),
            Some(reason) if within => wrong.push(format!(
                "{} {}: listed outside ({reason}) but within its bound: drop it from 'outside'",
                c.id, c.quantity
            )),
            _ => {}
        }
    }
    println!("{report}");
    assert!(wrong.is_empty(), "{}\n\n{report}", wrong.join("\n"));
}

#[test]
fn every_engine_is_checked() {
    let all = comparisons().unwrap();
    for engine in ["vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"] {
        assert!(all.iter().any(|c| c.case.starts_with(engine)), "{engine}");
    }
}

/// The page's "checked against" line: a model with no logged case gets the nearest case within
/// its bound and is told it is another model's; a model with its own case gets that one, outside
/// its bound or not.
#[test]
fn the_nearest_case_is_the_models_own_or_one_within_its_bound() {
    use bitbudget_math::memory::{find_gpu, find_model};
    use bitbudget_math::serve::logged::nearest;
    use bitbudget_math::serve::{Engine, ServeSetup};
    let serve_of = |model: &str| {
        ServeSetup::new(
            Engine::Vllm,
            model,
            find_model(model).unwrap().arch,
            find_gpu("h100-80gb").unwrap(),
        )
    };
    let (other, same) = nearest(&serve_of("qwen3-30b-a3b")).unwrap();
    assert!(!same && other.outside.is_none(), "{other:?}");
    let (own, same) = nearest(&serve_of("qwen3-235b-a22b")).unwrap();
    assert!(same && own.id == "V3", "{own:?}");
}
