//! The numbers behind the Memory page's strategy and scaling charts, as tables in a disclosure
//! under each chart: the same memos the charts draw, reachable by keyboard and screen reader.

use crate::ui::pages::memory::state::{MemoryDetails, MemoryState};
use bitbudget_math::numbers::format_bytes;
use leptos::prelude::*;

/// Per-GPU memory of every strategy, and whether it fits the chosen GPU.
#[component]
pub fn StrategyNumbers() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let details = expect_context::<MemoryDetails>();
    let rows = move || {
        let setup = state.setup.get();
        let capacity = setup.gpu.as_ref().map(|g| g.capacity_bytes);
        details
            .strategies
            .get()
            .into_iter()
            .map(|(strategy, result)| {
                let (total, fits) = match &result {
                    Ok(b) => (
                        format_bytes(b.total, setup.units),
                        match capacity {
                            Some(c) if b.total <= c => "fits",
                            Some(_) => "does not fit",
                            None => "",
                        },
                    ),
                    Err(e) => (e.to_string(), ""),
                };
                view! { <tr><th scope="row">{strategy.label()}</th><td class="num">{total}</td><td>{fits}</td></tr> }
            })
            .collect_view()
    };
    view! {
        <details class="chart-numbers" data-testid="strategies-numbers">
            <summary>"The numbers behind this chart"</summary>
            <table>
                <thead><tr><th scope="col">"strategy"</th><th scope="col">"per GPU"</th><th scope="col">"on the GPU chosen"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}

/// For each strategy: the fewest GPUs that fit (the ring on the chart) and the per-GPU memory at
/// the fewest and the most GPUs drawn.
#[component]
pub fn ScalingNumbers() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let details = expect_context::<MemoryDetails>();
    let rows = move || {
        let setup = state.setup.get();
        let capacity = setup.gpu.as_ref().map(|g| g.capacity_bytes);
        let bytes = move |b: u64| format_bytes(b, setup.units);
        details
            .sweep
            .get()
            .into_iter()
            .map(|(strategy, points)| {
                let first = points.first().map(|p| format!("{}: {}", p.0, bytes(p.1)));
                let last = points.last().map(|p| format!("{}: {}", p.0, bytes(p.1)));
                let fits_from = match capacity {
                    None => String::new(),
                    Some(c) => points
                        .iter()
                        .find(|p| p.1 <= c)
                        .map_or("none drawn".into(), |p| format!("{} GPUs", p.0)),
                };
                view! {
                    <tr>
                        <th scope="row">{strategy.label()}</th>
                        <td class="num">{fits_from}</td>
                        <td class="num">{first}</td>
                        <td class="num">{last}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <details class="chart-numbers" data-testid="scaling-numbers">
            <summary>"The numbers behind this chart"</summary>
            <table>
                <thead><tr><th scope="col">"strategy"</th><th scope="col">"fits from"</th><th scope="col">"fewest GPUs: per GPU"</th><th scope="col">"most GPUs: per GPU"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </details>
    }
}
