//! Download the chart (a 2x PNG and an SVG, both with a title and the setup in a caption line) and
//! the breakdown (CSV, JSON, the same JSON as the CLI's).

use crate::ui::browser::{download_text, download_url};
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_charts::documents::{self, MemoryChart};
use bitbudget_charts::{Scale, LIGHT};
use bitbudget_math::memory::report::export::{report_checked, Report};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

fn file_stem(state: &MemoryState) -> String {
    state.query.with_untracked(|q| {
        format!(
            "bitbudget-{}-{}-zero{}-dp{}",
            q.job.model.as_deref().unwrap_or("custom"),
            q.job.mode,
            q.job.zero,
            q.job.dp
        )
    })
}

/// The bar chart as the CLI's `memory ... --svg FILE --chart bar` writes it (fixed size, light
/// theme, titled, the setup in a caption line), so the download and the CLI give the same
/// document for the same setup.
/// The report of the page's setup and step knobs (what the CSV and JSON downloads hold).
/// The PyTorch check is there once the page has fetched the measurements.
fn current_report(state: &MemoryState) -> Result<Report, String> {
    let setup = state.setup.get_untracked();
    let checked = state.pytorch.with_untracked(|p| {
        p.as_ref()
            .and_then(|v| v.as_ref().ok())
            .and_then(|v| v.check_nearest(&setup))
    });
    report_checked(
        &setup,
        &state.query.with_untracked(|q| q.job.step_params()),
        checked,
    )
    .map_err(|e| e.to_string())
}

fn bar_svg(state: &MemoryState) -> Result<String, String> {
    documents::memory_bar_document(&state.setup.get_untracked()).map_err(|e| e.to_string())
}

/// The bar chart as a PNG for a slide: the same title, chart and setup caption as [`bar_svg`],
/// drawn at twice the size (2x) on a canvas that is never shown, as a `data:` URL.
fn bar_png(state: &MemoryState) -> Result<String, String> {
    let setup = state.setup.get_untracked();
    let scale = Scale(2.0);
    let (w, h) = documents::memory_size(&setup, MemoryChart::Bar, scale);
    let canvas: web_sys::HtmlCanvasElement = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .ok_or("the browser could not make a canvas")?
        .unchecked_into();
    canvas.set_width(w);
    canvas.set_height(h);
    let backend = plotters_canvas::CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("the canvas has no 2D context")?;
    let area = plotters::prelude::IntoDrawingArea::into_drawing_area(backend);
    documents::draw_memory_bar(&area, &setup, &LIGHT, scale).map_err(|e| e.to_string())?;
    canvas
        .to_data_url()
        .map_err(|_| "the browser refused to export the canvas".to_string())
}

/// The download buttons; a failure is shown next to them.
#[component]
pub fn Downloads() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let (message, set_message) = signal(None::<String>);
    let run = move |f: Box<dyn Fn() -> Result<(), String>>| set_message.set(f().err());
    let png = move |_| {
        run(Box::new(move || {
            download_url(&format!("{}.png", file_stem(&state)), &bar_png(&state)?)
        }))
    };
    let svg = move |_| {
        run(Box::new(move || {
            download_text(
                &format!("{}.svg", file_stem(&state)),
                "image/svg+xml",
                &bar_svg(&state)?,
            )
        }))
    };
    let csv = move |_| {
        run(Box::new(move || {
            let r = current_report(&state)?;
            download_text(
                &format!("{}.csv", file_stem(&state)),
                "text/csv",
                &r.to_csv(),
            )
        }))
    };
    let json = move |_| {
        run(Box::new(move || {
            let r = current_report(&state)?;
            let text = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
            download_text(
                &format!("{}.json", file_stem(&state)),
                "application/json",
                &text,
            )
        }))
    };
    view! {
        <div class="downloads" role="group" aria-label="Download">
            <span>"Download"</span>
            <button class="chip" data-testid="download-png" on:click=png>"PNG"</button>
            <button class="chip" data-testid="download-svg" on:click=svg>"SVG"</button>
            <button class="chip" data-testid="download-csv" on:click=csv>"CSV"</button>
            <button class="chip" data-testid="download-json" on:click=json>"JSON"</button>
            {move || message.get().map(|m| view! { <span class="field-error" role="alert">{m}</span> })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use crate::ui::pages::memory::query::MemoryQuery;
    use crate::ui::shell::query::parse_page_query;
    use bitbudget_charts::documents::{self, MemoryChart};
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The example setup, as in tests/browser/memory_page.rs.
    const EXAMPLE: &str = "?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb";

    /// The browser test `svg_downloads::memory_download_is_the_fixture` compares the page's SVG
    /// download with this fixture, which the CLI's tests keep equal to `memory ... --svg - --chart
    /// bar`; this holds the page's setup, read from its URL, to the same document.
    #[wasm_bindgen_test]
    fn memory_bar_fixture_is_the_document_for_the_example_setup() {
        let (shell, memory) = parse_page_query::<MemoryQuery>(EXAMPLE);
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        let svg = documents::memory(&memory.to_setup(), MemoryChart::Bar).unwrap();
        // The page's bar-only path draws the same document.
        assert_eq!(
            documents::memory_bar_document(&memory.to_setup()).unwrap(),
            svg
        );
        assert_eq!(
            svg,
            include_str!("../../../../tests/fixtures/memory_llama3_8b_zero3_bar.svg"),
            "the page's setup for {EXAMPLE} draws another bar than the CLI's for the same setup"
        );
    }
}
