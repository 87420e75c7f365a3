//! How close the estimate has been to PyTorch: the committed measurements
//! (`validation/results.json`, through `memory::report::validation`, the numbers the comparison test
//! checks), the nearest measured setup's error, and every setup in a details table. The
//! measurements and their configs' architectures (`validation/config_archs.json`) are fetched
//! (index.html copies them next to the page), not compiled into the page's code.

use crate::ui::browser::fetch_bytes;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::report::validation::{
    archs_from_json, signed_percent, validation_of, Row, Validation, PARTS, TOTAL_BOUND,
};
use leptos::prelude::*;
use std::sync::Arc;

/// Where the release build serves `validation/results.json` (relative to the page).
pub const RESULTS_URL: &str = "results.json";
/// Where it serves `validation/config_archs.json` (relative to the page).
pub const ARCHS_URL: &str = "config_archs.json";

async fn fetch_text(url: &str) -> Result<String, String> {
    let bytes = fetch_bytes(url).await.map_err(|e| format!("{url}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("{url} is not UTF-8 text"))
}

/// Fetches the measurements and their configs' architectures, and estimates every setup; an error
/// says which file could not be read or which setup could not be estimated.
pub async fn load_measurements() -> Result<Validation, String> {
    let (results, archs) =
        futures_util::future::join(fetch_text(RESULTS_URL), fetch_text(ARCHS_URL)).await;
    let arch_of = archs_from_json(&archs?).map_err(|e| format!("{ARCHS_URL}: {e}"))?;
    validation_of(&results?, &arch_of)
}

/// Starts fetching the measurements into `state.pytorch` (once per page).
pub fn fetch_measurements(state: MemoryState) {
    leptos::task::spawn_local(async move {
        let loaded = load_measurements().await.map(Arc::new);
        state.pytorch.set(Some(loaded));
    });
}

fn percent(e: f64) -> String {
    signed_percent(e)
}

/// The one-line summary and the table.
#[component]
pub fn ValidationPanel() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    move || {
        match state.pytorch.get() {
        None => view! { <p class="field-note" data-testid="validation-summary">"Checking against PyTorch: loading the measurements…"</p> }.into_any(),
        Some(Err(why)) => view! { <p class="field-note" data-testid="validation-summary">{format!("The PyTorch measurements could not be loaded ({why}).")}</p> }.into_any(),
        Some(Ok(v)) => view! { <Measured v /> }.into_any(),
    }
    }
}

/// The summary and the table once the measurements are there.
#[component]
fn Measured(v: Arc<Validation>) -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let (within, most) = v.totals_within(TOTAL_BOUND);
    let torch = v.torch.split('+').next().unwrap_or(&v.torch).to_string();
    let nearest = {
        let v = v.clone();
        move || {
            state.setup.with(|s| {
                v.check_nearest(s).map(|c| {
                    format!(
                        "; nearest measured setup ({}), part by part: {}",
                        c.setup,
                        c.summary()
                    )
                })
            })
        }
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
