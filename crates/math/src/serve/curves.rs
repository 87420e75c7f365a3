//! The Serve page's and `serve --svg`'s curves: concurrency against context length (one line per
//! KV type the engine offers) and decode tokens per second against concurrency.

use super::kv::KvDtype;
use super::setup::ServeSetup;
use super::{serve, Engine};

/// One line of a chart: its label and (x, y) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// The legend's text.
    pub label: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// Context lengths from 1,024 tokens doubling up to `max` (and `max` itself).
pub fn context_steps(max: u64) -> Vec<u64> {
    let mut out: Vec<u64> = std::iter::successors(Some(1024u64), |c| c.checked_mul(2))
        .take_while(|&c| c < max)
        .collect();
    out.push(max.max(1));
    out
}

/// Requests held at once against `max_model_len`, one curve per KV type the engine offers.
pub fn concurrency_by_context(setup: &ServeSetup) -> Vec<Curve> {
    let types: &[KvDtype] = if setup.engine == Engine::LlamaCpp {
        &[KvDtype::Bf16, KvDtype::Q80, KvDtype::Q40]
    } else {
        &[KvDtype::Bf16, KvDtype::Fp8]
    };
    let top = setup
        .max_model_len
        .unwrap_or(setup.arch.max_seq)
        .max(setup.prompt_tokens);
    types
        .iter()
        .map(|&dtype| {
            let points = context_steps(top)
                .into_iter()
                .filter(|&len| len >= setup.prompt_tokens)
                .filter_map(|len| {
                    let s = ServeSetup {
                        kv_dtype: dtype,
                        max_model_len: Some(len),
                        ..setup.clone()
                    };
                    serve(&s)
                        .ok()
                        .map(|r| (len as f64, r.effective_concurrency))
                })
                .collect();
            let name = if dtype == KvDtype::Bf16 && setup.engine == Engine::LlamaCpp {
                "f16".to_string()
            } else {
                dtype.to_string()
            };
            Curve {
                label: format!("{name} KV"),
                points,
            }
        })
        .collect()
}

/// Decode tokens per second, aggregate and per sequence, at concurrency 1, 2, 4, … up to what the
/// KV cache holds (at least 1), and the concurrency where decode turns compute-bound if below it.
pub fn speed_by_concurrency(setup: &ServeSetup) -> (Vec<Curve>, Option<u64>) {
    let Ok(base) = serve(setup) else {
        return (Vec::new(), None);
    };
    let top = (base.effective_concurrency.floor() as u64).clamp(1, base.knobs.max_num_seqs.max(1));
    let mut steps: Vec<u64> = std::iter::successors(Some(1u64), |c| c.checked_mul(2))
        .take_while(|&c| c < top)
        .collect();
    steps.push(top);
    let (mut total, mut each) = (Vec::new(), Vec::new());
    for c in steps {
        let s = ServeSetup {
            concurrency: Some(c),
            ..setup.clone()
        };
        if let Ok(r) = serve(&s) {
            total.push((c as f64, r.decode.aggregate_tokens_per_s));
            each.push((c as f64, r.decode.tokens_per_s));
        }
    }
    let knee = base.decode.compute_bound_from.filter(|&k| k <= top);
    (
        vec![
            Curve {
                label: "all sequences".into(),
                points: total,
            },
            Curve {
                label: "per sequence".into(),
                points: each,
            },
        ],
        knee,
    )
}
