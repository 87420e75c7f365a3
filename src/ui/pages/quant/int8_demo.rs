//! LLM.int8() on a sample product: a synthetic activation with outlier feature channels times a
//! slice of the current weights, with and without the mixed-precision decomposition.

use crate::ui::pages::quant::state::QuantState;
use bitbudget_math::numbers::short;
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::llm_int8::{int8_matmul, OUTLIER_THRESHOLD};
use bitbudget_math::quant::metrics::error_metrics;
use leptos::prelude::*;

const M: usize = 16;
const K: usize = 256;
const N: usize = 64;

/// The LLM.int8() comparison.
#[component]
pub fn Int8Demo() -> impl IntoView {
    let state = expect_context::<QuantState>();
    // Only the outlier settings: other controls neither change nor recompute the demo.
    let settings = Memo::new(move |_| state.query.with(|q| (q.seed, q.outliers, q.magnitude)));
    let result = Memo::new(move |_| {
        let (seed, count, magnitude) = settings.get();
        let x = generate(
            Distribution::OutlierChannels { count, magnitude },
            M,
            K,
            1.0,
            seed,
        );
        let w: Vec<f32> = state
            .results
            .with(|r| {
                r.as_ref()
                    .filter(|r| r.tensor.values.len() >= K * N)
                    .map(|r| r.tensor.values[..K * N].to_vec())
            })
            .unwrap_or_else(|| generate(Distribution::Normal, K, N, 0.02, seed + 1));
        let r = int8_matmul(&x, &w, M, K, N, OUTLIER_THRESHOLD);
        (
            r.outlier_columns.len(),
            error_metrics(&r.reference, &r.int8),
            error_metrics(&r.reference, &r.decomposed),
        )
    });
    view! {
        <h3>"LLM.int8(): keep the outlier features in 16 bits"</h3>
        <p class="lede">"A 16 × 256 activation whose outlier channels are many times larger than the rest (set their count and size with the outlier-channel tensor) times the first 256 × 64 weights. Vector-wise INT8 gives every row one scale, so one huge feature crushes the others to a few levels; LLM.int8() multiplies the columns with any |x| ≥ 6 in FP16 and the rest in INT8."</p>
        <div class="table-scroll int8-demo">
        <table class="facts" data-testid="int8-demo">
            <thead><tr><th scope="col">"method"</th><th scope="col">"outlier columns"</th><th scope="col">"output RMSE"</th><th scope="col">"SQNR dB"</th></tr></thead>
            <tbody>
                {move || {
                    let (outliers, plain, mixed) = result.get();
                    view! {
                        <tr><th scope="row">"vector-wise INT8"</th><td>"—"</td><td data-testid="int8-rmse">{short(plain.rmse, 3)}</td><td>{format!("{:.1}", plain.sqnr_db)}</td></tr>
                        <tr><th scope="row">"LLM.int8() decomposition"</th><td>{outliers}</td><td data-testid="int8-mixed-rmse">{short(mixed.rmse, 3)}</td><td>{format!("{:.1}", mixed.sqnr_db)}</td></tr>
                    }
                }}
            </tbody>
        </table>
        </div>
    }
}
