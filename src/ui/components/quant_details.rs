//! The selected scheme in detail: its metrics, charts and a grid of actual values.

use crate::ui::charts::quant;
use crate::ui::charts::style::Scale;
use crate::ui::components::canvas_chart::{fit_to_box, CanvasChart};
use crate::ui::numbers::short;
use crate::ui::quant_state::{LabResults, QuantState};
use bitbudget_math::quant::analysis::{block_rmse, codes};
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use std::sync::Arc;

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
    let levels = |r: &LabResults, i: usize| -> Vec<f32> {
        let block = r.rows[i].block.max(1);
        let x = &r.original;
        let peak = (0..x.len())
            .max_by(|a, b| x[*a].abs().total_cmp(&x[*b].abs()))
            .unwrap_or(0)
            / block
            * block;
        let mut v: Vec<f32> = r.reconstructions[i][peak..(peak + block).min(x.len())].to_vec();
        v.sort_by(f32::total_cmp);
        v.dedup();
        v
    };
    let histogram = chart(state, move |root, r, i, s| {
        quant::draw_histogram(
            root,
            &r.original,
            &r.reconstructions[i][..r.original.len()],
            &levels(r, i),
            &theme,
            s,
        )
    });
    let errors = chart(state, move |root, r, i, s| {
        let e: Vec<f32> = r
            .original
            .iter()
            .zip(r.reconstructions[i].iter())
            .map(|(a, b)| b - a)
            .collect();
        quant::draw_error_histogram(root, &e, &theme, s)
    });
    let heat = chart(state, move |root, r, i, s| {
        let rmse = block_rmse(
            &r.original,
            &r.reconstructions[i][..r.original.len()],
            r.rows[i].block.max(32),
        );
        let per_row = (rmse.len() as f64).sqrt().ceil() as usize * 2;
        quant::draw_heatmap(root, &rmse, per_row, &theme, s)
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
        let n = r.original.len().min(12);
        let c = codes(r.rows[i].scheme, &r.bytes[i], r.rows[i].block, n);
        let y: Arc<Vec<f32>> = r.reconstructions[i].clone();
        Some(
            (0..n)
                .map(|j| {
                    view! {
                        <tr>
                            <td>{j}</td>
                            <td>{short(r.original[j] as f64, 6)}</td>
                            <td data-testid=format!("code-{j}")>{c[j]}</td>
                            <td data-testid=format!("dequant-{j}")>{short(y[j] as f64, 6)}</td>
                            <td>{short((y[j] - r.original[j]) as f64, 3)}</td>
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
