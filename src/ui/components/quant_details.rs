//! The selected scheme in detail: its metrics, charts and a grid of actual values.

use crate::ui::charts::quant;
use crate::ui::charts::style::Scale;
use crate::ui::components::canvas_chart::{fit_to_box, CanvasChart};
use crate::ui::quant_state::{LabResults, QuantState};
use bitbudget_math::numbers::short;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;

/// The selected scheme's index in the results.
fn selected(state: &QuantState, r: &LabResults) -> Option<usize> {
    let s = state.query.with(|q| q.scheme);
    r.rows.iter().position(|row| row.scheme == s)
}

fn chart<F>(state: QuantState, f: F) -> impl Fn(&web_sys::HtmlCanvasElement) + 'static
where
    F: Fn(
            &plotters::drawing::DrawingArea<CanvasBackend, plotters::coord::Shift>,
            &LabResults,
            usize,
            Scale,
        ) -> Result<(), String>
        + 'static,
{
    move |canvas| {
        let dpr = fit_to_box(canvas, quant::HEIGHT);
        let Some(r) = state.results.get() else { return };
        let Some(i) = selected(&state, &r) else {
            return;
        };
        if let Some(backend) = CanvasBackend::with_canvas_object(canvas.clone()) {
            if let Err(e) = f(&backend.into_drawing_area(), &r, i, Scale(dpr)) {
                web_sys::console::warn_1(&format!("quantize chart: {e}").into());
            }
        }
    }
}

/// Histograms, heat map, trade-off and the values grid.
#[component]
pub fn QuantDetails() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let theme = crate::ui::palette::current();
    let histogram = chart(state, move |root, r, i, s| {
        quant::draw_histogram(root, &r.overview, &r.details[i], &theme, s)
    });
    let errors = chart(state, move |root, r, i, s| {
        quant::draw_error_histogram(root, &r.details[i].errors, &theme, s)
    });
    let heat = chart(state, move |root, r, i, s| {
        quant::draw_heatmap(root, &r.details[i], &theme, s)
    });
    let tradeoff = chart(state, move |root, r, _, s| {
        quant::draw_tradeoff(root, &r.rows, state.query.with(|q| q.scheme), &theme, s)
    });
    let label = |what: &'static str| Signal::derive(move || what.to_string());
    view! {
        <div class="quant-charts">
            <CanvasChart label=label("Histogram of original and dequantized values") height=quant::HEIGHT testid="quant-histogram" draw=histogram />
            <CanvasChart label=label("Histogram of the quantization error") height=quant::HEIGHT testid="quant-errors" draw=errors />
            <CanvasChart label=label("Heat map of the error of each block") height=quant::HEIGHT testid="quant-heatmap" draw=heat />
            <CanvasChart label=label("SQNR against bits per weight for every scheme") height=quant::HEIGHT testid="quant-tradeoff" draw=tradeoff />
        </div>
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
