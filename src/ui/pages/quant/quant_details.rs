//! The selected scheme in detail: its metrics, charts and a grid of actual values.

use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::pages::quant::kquant_block::KQuantBlock;
use crate::ui::pages::quant::pacing::yield_now;
use crate::ui::pages::quant::state::{LabResults, QuantState};
use bitbudget_charts::quant::{self, errors, heatmap, tradeoff, values};
use bitbudget_charts::{Chart, ChartError};
use bitbudget_math::numbers::short;
use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

/// The selected scheme's index in the results.
fn selected(state: &QuantState, r: &LabResults) -> Option<usize> {
    let s = state.shown.get();
    r.rows.iter().position(|row| row.scheme == s)
}

/// A canvas draw function: once `results` has results, `draw` gets them, the selected scheme's
/// index and the canvas.
fn chart<F>(
    state: QuantState,
    results: Signal<Option<LabResults>>,
    draw: F,
) -> impl Fn(&HtmlCanvasElement) + 'static
where
    F: Fn(&LabResults, usize, &HtmlCanvasElement) -> Result<(), ChartError> + 'static,
{
    move |canvas| {
        let Some(r) = results.get() else { return };
        let Some(i) = selected(&state, &r) else {
            return;
        };
        warn_on_error("quantize chart", draw(&r, i, canvas));
    }
}

/// Draws `input` on `canvas` at the Quantize charts' height.
fn on<C: Chart<Output = ()>>(canvas: &HtmlCanvasElement, input: C) -> Result<(), ChartError> {
    draw_chart(canvas, quant::HEIGHT, &input)
}

/// The lab's results a drawn frame after they change: the error map (up to 16,384 cells, the
/// costliest chart to draw) follows the table and the other charts in the next frame, so that new
/// results never hold up one frame with all of them at once.
fn one_frame_later(state: QuantState) -> Signal<Option<LabResults>> {
    let later = RwSignal::new(None);
    Effect::new(move |_| {
        state.results.track();
        leptos::task::spawn_local(async move {
            yield_now().await;
            // The page may have gone in the meantime (an unmounted widget): then nothing to set.
            if let Some(results) = state.results.try_get_untracked() {
                let _ = later.try_set(results);
            }
        });
    });
    later.into()
}

/// Histograms, heat map, trade-off and the values grid.
#[component]
pub fn QuantDetails() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let now: Signal<Option<LabResults>> = state.results.into();
    let histogram = chart(state, now, |r, i, canvas| {
        let (overview, detail) = (&r.overview, &r.details[i]);
        on(canvas, values::Input { overview, detail })
    });
    let errors = chart(state, now, |r, i, canvas| {
        let errors = &r.details[i].errors;
        on(canvas, errors::Input { errors })
    });
    let heat = chart(state, one_frame_later(state), |r, i, canvas| {
        let detail = &r.details[i];
        on(canvas, heatmap::Input { detail })
    });
    let tradeoff = chart(state, now, |r, i, canvas| {
        let (rows, selected) = (&r.rows, r.rows[i].scheme);
        on(canvas, tradeoff::Input { rows, selected })
    });
    let label = |what: &'static str| Signal::derive(move || what.to_string());
    view! {
        <div class="quant-charts">
            <CanvasChart label=label("Histogram of original and dequantized values") height=quant::HEIGHT testid="quant-histogram" draw=histogram />
            <CanvasChart label=label("Histogram of the quantization error") height=quant::HEIGHT testid="quant-errors" draw=errors />
            <CanvasChart label=label("Heat map of the error of each block") height=quant::HEIGHT testid="quant-heatmap" draw=heat />
            <CanvasChart label=label("SQNR against bits per weight for every scheme") height=quant::HEIGHT testid="quant-tradeoff" draw=tradeoff />
        </div>
        <KQuantBlock />
        <ValueGrid />
    }
}

/// The first values: original, stored code, dequantized, error.
#[component]
fn ValueGrid() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let rows = move || {
        let r = state.results.get()?;
        let i = selected(&state, &r)?;
        Some(
            r.details[i]
                .first
                .iter()
                .enumerate()
                .map(|(j, v)| {
                    view! {
                        <tr>
                            <td>{j}</td>
                            <td>{short(v.original as f64, 6)}</td>
                            <td data-testid=format!("code-{j}")>{v.code}</td>
                            <td data-testid=format!("dequant-{j}")>{short(v.dequantized as f64, 6)}</td>
                            <td>{short((v.dequantized - v.original) as f64, 3)}</td>
                        </tr>
                    }
                })
                .collect_view(),
        )
    };
    view! {
        <h3>"The first values"</h3>
        <div class="table-scroll">
            <table class="facts values-grid" data-testid="values-grid">
                <thead><tr><th scope="col">"#"</th><th scope="col">"original"</th><th scope="col">"code"</th><th scope="col">"dequantized"</th><th scope="col">"error"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
