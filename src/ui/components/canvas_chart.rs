//! A canvas that redraws itself whenever the signals its `draw` function reads change, or the
//! window is resized. The drawing itself lives in the `bitbudget_charts` crate.

use bitbudget_charts::{Chart, ChartError, Scale};
use leptos::html::Canvas;
use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

/// A responsive hi-DPI canvas driven by a plain draw function.
#[component]
pub fn CanvasChart<F>(
    /// Accessible description of what the chart shows.
    #[prop(into)]
    label: Signal<String>,
    /// Height in CSS pixels; the width follows the container.
    height: u32,
    /// `data-testid` of the canvas.
    testid: &'static str,
    /// Draws onto the canvas; reads any signals it depends on.
    draw: F,
) -> impl IntoView
where
    F: Fn(&HtmlCanvasElement) + 'static,
{
    let canvas_ref = NodeRef::<Canvas>::new();
    let width = use_context::<ReadSignal<f64>>();
    Effect::new(move |_| {
        if let Some(w) = width {
            w.track();
        }
        if let Some(canvas) = canvas_ref.get() {
            draw(&canvas);
        }
    });
    view! {
        <canvas
            node_ref=canvas_ref
            class="chart"
            style=format!("height:{height}px")
            role="img"
            aria-label=move || label.get()
            data-testid=testid
        ></canvas>
    }
}

/// Sizes `canvas` to its CSS box times the device pixel ratio and returns that ratio, so drawing
/// code can scale fonts and strokes. Falls back to 640 CSS px when the canvas is not laid out.
pub fn fit_to_box(canvas: &HtmlCanvasElement, height_css: u32) -> f64 {
    let dpr = crate::ui::browser::device_pixel_ratio();
    let css_width = match canvas.client_width() {
        w if w > 0 => w as f64,
        _ => 640.0,
    };
    let (w, h) = (
        (css_width * dpr).round() as u32,
        (height_css as f64 * dpr).round() as u32,
    );
    // Assigning a canvas's size reallocates its bitmap even when unchanged: only do it on resize.
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    dpr
}

/// Sizes `canvas` to its box (see [`fit_to_box`]) and draws `chart` on it in the system's theme,
/// scaled by the device pixel ratio.
pub fn draw_chart<C: Chart>(
    canvas: &HtmlCanvasElement,
    height_css: u32,
    chart: &C,
) -> Result<C::Output, ChartError> {
    let dpr = fit_to_box(canvas, height_css);
    let backend = plotters_canvas::CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| ChartError::Backend("the canvas has no 2D context".into()))?;
    let area = plotters::prelude::IntoDrawingArea::into_drawing_area(backend);
    chart.draw(&area, &crate::ui::palette::current(), Scale(dpr))
}

/// Logs a chart's drawing error to the console (a chart that cannot be drawn stays blank).
pub fn warn_on_error<T>(what: &str, result: Result<T, ChartError>) {
    if let Err(e) = result {
        web_sys::console::warn_1(&format!("{what}: {e}").into());
    }
}
