//! How close the estimate has been to PyTorch: the committed measurements
//! (`validation/results.json`, through `memory::report::validation`, the numbers the comparison test
//! checks), the nearest measured setup's error, and every setup in a details table.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::report::validation::{
    check_nearest, committed, signed_percent, Row, PARTS, TOTAL_BOUND,
};
use leptos::prelude::*;

fn percent(e: f64) -> String {
    signed_percent(e)
}

/// The one-line summary and the table.
#[component]
pub fn ValidationPanel() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let Ok(v) = committed() else {
        return view! { <p class="field-note" data-testid="validation-summary">"No PyTorch measurements are available."</p> }.into_any();
    };
    let (within, most) = v.totals_within(TOTAL_BOUND);
    let torch = v.torch.split('+').next().unwrap_or(&v.torch).to_string();
    let nearest = move || {
        state.setup.with(|s| {
            check_nearest(s).map(|c| {
                format!(
                    "; nearest measured setup ({}), part by part: {}",
                    c.setup,
                    c.summary()
                )
            })
        })
    };
    view! {
        <details class="validation" data-testid="validation">
            <summary data-testid="validation-summary">
                {format!("Checked against PyTorch {torch}: total within {:.1}% on {within} of {} setups", most * 100.0, v.rows.len())}
                {nearest}
            </summary>
            <p class="field-note">"Live tensor bytes of real Transformers models under PyTorch's fake tensors (validation/ in the repository). A real GPU adds the CUDA context, the caching allocator's reserve and fragmentation: bitbudget's overhead part, left out of this comparison."</p>
            <div class="table-scroll">
                <table class="facts">
                    <thead><tr><th scope="col">"Setup"</th><th scope="col">"Peak phase"</th><th scope="col">"PyTorch"</th><th scope="col">"bitbudget"</th><th scope="col">"Error"</th><th scope="col">"Error by part"</th></tr></thead>
                    <tbody>{v.rows.iter().map(row).collect_view()}</tbody>
                </table>
            </div>
        </details>
    }
    .into_any()
}

/// One measured setup.
fn row(r: &Row) -> impl IntoView {
    let total = r.parts.iter().find(|(p, _, _)| *p == "total");
    let gb = |b: f64| format!("{:.2} GB", b / 1e9);
    let (est, got) = total.map_or((0.0, 0.0), |(_, e, g)| (*e, *g));
    view! {
        <tr data-testid="validation-row">
            <th scope="row">{r.name.clone()}</th>
            <td>{r.measured_peak_phase.clone()}</td>
            <td>{gb(got)}</td>
            <td>{gb(est)}</td>
            <td>{r.error("total").map_or_else(|| "–".into(), percent)}</td>
            <td>{parts_text(r)}</td>
        </tr>
    }
}

/// Each part's error but the total's, in the parts' order: "weights +0.0%, activations −4.6%".
fn parts_text(r: &Row) -> String {
    PARTS
        .iter()
        .filter(|p| **p != "total")
        .filter_map(|p| {
            r.error(p)
                .map(|e| format!("{} {}", p.replace('_', " "), percent(e)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}
