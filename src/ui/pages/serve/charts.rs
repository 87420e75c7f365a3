//! The Serve page's charts: one GPU's budget in the engine's terms, requests held at once against
//! context length (one line per KV type), and decode tokens per second against concurrency with
//! the point where decode turns compute-bound; each downloadable as the SVG `serve --svg` writes.

use crate::ui::browser::download_text;
use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::pages::serve::ServeState;
use bitbudget_charts::documents::{self, serve_chart_height, ServeChart, ServeChartData};
use leptos::prelude::*;

fn title(chart: ServeChart) -> &'static str {
    match chart {
        ServeChart::Budget => "One GPU's memory, as the engine accounts for it",
        ServeChart::Concurrency => "Requests at once against max_model_len",
        ServeChart::Speed => "Decode tokens per second against concurrency",
    }
}

/// One chart with its download button (the last good setup's).
#[component]
fn ServeFigure(chart: ServeChart) -> impl IntoView {
    let state = expect_context::<ServeState>();
    let (message, set_message) = signal(None::<String>);
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        if let Some((setup, _)) = state.good.get() {
            let drawn = ServeChartData::new(&setup, chart)
                .and_then(|data| draw_chart(canvas, serve_chart_height(chart), &data));
            warn_on_error(chart.name(), drawn);
        }
    };
    let download = move |_| {
        let Some((setup, _)) = state.good.get_untracked() else {
            return;
        };
        let result = documents::serve(&setup, chart)
            .map_err(|e| e.to_string())
            .and_then(|svg| {
                download_text(
                    &format!("bitbudget-serve-{}.svg", chart.name()),
                    "image/svg+xml",
                    &svg,
                )
            });
        set_message.set(result.err());
    };
    let label = Signal::derive(move || title(chart).to_string());
    let testid: &'static str = match chart {
        ServeChart::Budget => "serve-chart-budget",
        ServeChart::Concurrency => "serve-chart-concurrency",
        ServeChart::Speed => "serve-chart-speed",
    };
    view! {
        <figure>
            <figcaption>{title(chart)}</figcaption>
            <CanvasChart label height=serve_chart_height(chart) testid draw />
            <div class="downloads" role="group" aria-label="Download">
                <button class="chip" data-testid=format!("{testid}-svg") on:click=download>"Download SVG"</button>
                {move || message.get().map(|m| view! { <span class="field-error" role="alert">{m}</span> })}
            </div>
        </figure>
    }
}

/// The three charts (an embed shows the budget alone).
#[component]
pub fn ServeCharts(
    /// Embedded: the budget chart only.
    embed: bool,
) -> impl IntoView {
    let charts: Vec<ServeChart> = if embed {
        vec![ServeChart::Budget]
    } else {
        ServeChart::ALL.to_vec()
    };
    view! {
        <div class="serve-charts">
            {charts.into_iter().map(|chart| view! { <ServeFigure chart /> }).collect_view()}
        </div>
    }
}
