//! A canvas that redraws itself whenever the signals its `draw` function reads change or its box
//! is resized, and waits while it is out of view. The drawing itself lives in the
//! `bitbudget_charts` crate.

use crate::ui::observers::{watch_in_view, watch_size};
use bitbudget_charts::{Chart, ChartError, Scale};
use leptos::html::Canvas;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use web_sys::HtmlCanvasElement;

/// How far outside the viewport (CSS px) a chart still counts as in view, so that it is drawn
/// before it scrolls in.
const VIEW_MARGIN_PX: u32 = 400;

/// Where a chart's canvas sits: its CSS width and whether it is near the viewport, both kept up to
/// date by browser observers, so that drawing never forces a layout and charts out of view wait.
#[derive(Clone, Copy)]
pub struct Placement {
    /// Content-box width in CSS px; 0 until measured.
    width: RwSignal<f64>,
    /// Within [`VIEW_MARGIN_PX`] of the viewport (true until the browser says otherwise).
    in_view: RwSignal<bool>,
}

impl Placement {
    /// Watches the canvas behind `canvas_ref` once it is mounted; stops when the component unmounts.
    pub fn watch(canvas_ref: NodeRef<Canvas>) -> Self {
        let placement = Self {
            width: RwSignal::new(0.0),
            in_view: RwSignal::new(true),
        };
        Effect::new(move |_| {
            let Some(canvas) = canvas_ref.get() else {
                return;
            };
            let width = watch_size(&canvas, move |entry| {
                let w = entry.content_rect().width();
                // A hidden canvas measures 0: keep drawing at the last real width.
                if w > 0.0 && (w - placement.width.get_untracked()).abs() >= 0.5 {
                    placement.width.set(w);
                }
            });
            let view = watch_in_view(&canvas, VIEW_MARGIN_PX, move |v| {
                if v != placement.in_view.get_untracked() {
                    placement.in_view.set(v);
                }
            });
            let observers = SendWrapper::new((width, view));
            on_cleanup(move || drop(observers));
        });
        // A printout shows every chart, so every chart must be current.
        let printing = window_event_listener(leptos::ev::beforeprint, move |_| {
            placement.in_view.set(true);
        });
        on_cleanup(move || printing.remove());
        placement
    }

    /// The CSS width to draw `canvas` at, or `None` while it is out of view. Tracked: an effect
    /// that asks runs again when the canvas is resized or comes into view. Before the first
    /// measurement it reads the canvas's layout once (640 px when it is not laid out).
    pub fn drawable_width(&self, canvas: &HtmlCanvasElement) -> Option<f64> {
        if !self.in_view.get() {
            return None;
        }
        let measured = self.width.get();
        if measured > 0.0 {
            return Some(measured);
        }
        let w = match canvas.client_width() {
            w if w > 0 => w as f64,
            _ => 640.0,
        };
        self.width.update_untracked(|v| *v = w);
        Some(w)
    }
}

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
    /// Draws onto the canvas (sized already); reads any signals it depends on.
    draw: F,
) -> impl IntoView
where
    F: Fn(&HtmlCanvasElement) + 'static,
{
    let canvas_ref = NodeRef::<Canvas>::new();
    let placement = Placement::watch(canvas_ref);
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        if let Some(width) = placement.drawable_width(&canvas) {
            fit_to_box(&canvas, width, height);
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

/// Sizes `canvas`'s bitmap to `css_width` × `height_css` CSS px times the device pixel ratio and
/// returns that ratio, so drawing code can scale fonts and strokes.
pub fn fit_to_box(canvas: &HtmlCanvasElement, css_width: f64, height_css: u32) -> f64 {
    let dpr = crate::ui::browser::device_pixel_ratio();
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

/// Draws `chart` on `canvas` in the system's theme, scaled by the device pixel ratio, at
/// `height_css` CSS px and the width [`CanvasChart`] sized it to (see [`fit_to_box`]; the width
/// is never read from the layout here, which would force one).
pub fn draw_chart<C: Chart>(
    canvas: &HtmlCanvasElement,
    height_css: u32,
    chart: &C,
) -> Result<C::Output, ChartError> {
    let css_width = canvas.width() as f64 / crate::ui::browser::device_pixel_ratio();
    let dpr = fit_to_box(canvas, css_width, height_css);
    let backend = plotters_canvas::CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or_else(|| ChartError::Backend("the canvas has no 2D context".into()))?;
    let area = plotters::prelude::IntoDrawingArea::into_drawing_area(backend);
    chart.draw(&area, &crate::ui::shell::palette::current(), Scale(dpr))
}

/// Logs a chart's drawing error to the console (a chart that cannot be drawn stays blank).
pub fn warn_on_error<T>(what: &str, result: Result<T, ChartError>) {
    if let Err(e) = result {
        web_sys::console::warn_1(&format!("{what}: {e}").into());
    }
}
