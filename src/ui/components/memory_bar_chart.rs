//! The stacked bar of one GPU on a canvas; pointing at a segment selects that part.

use crate::ui::charts::memory_bar::{self, BarInput, Hit};
use crate::ui::charts::style::Scale;
use crate::ui::components::canvas_chart::fit_to_box;
use crate::ui::memory_state::MemoryState;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

/// The bar chart with pointer hit-testing.
#[component]
pub fn MemoryBarChart() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let canvas_ref = NodeRef::<Canvas>::new();
    let hits = StoredValue::new(Vec::<Hit>::new());
    let dpr = StoredValue::new(1.0f64);
    let width = use_context::<ReadSignal<f64>>();
    Effect::new(move |_| {
        if let Some(w) = width {
            w.track();
        }
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let Some(b) = state.shown.get() else { return };
        let setup = state.setup.get();
        let ratio = fit_to_box(&canvas, memory_bar::HEIGHT);
        dpr.set_value(ratio);
        let Some(backend) = CanvasBackend::with_canvas_object(canvas) else {
            return;
        };
        let input = BarInput {
            breakdown: &b,
            capacity: setup.gpu.as_ref().map(|g| (g.capacity_bytes, g.name)),
            units: setup.units,
            theme: crate::ui::palette::current(),
            scale: Scale(ratio),
            highlight: state.hovered.get(),
        };
        match memory_bar::draw(&backend.into_drawing_area(), &input) {
            Ok(h) => hits.set_value(h),
            Err(e) => web_sys::console::warn_1(&format!("memory bar: {e}").into()),
        }
    });
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let y = (ev.offset_y() as f64 * dpr.get_value()).round() as i32;
        let part = hits.with_value(|h| {
            h.iter()
                .find(|hit| (hit.top..=hit.bottom).contains(&y))
                .map(|hit| hit.part)
        });
        if state.hovered.get_untracked() != part {
            state.hovered.set(part);
        }
    };
    let label = move || {
        state.shown.with(|b| match b {
            Some(b) => format!("Stacked bar of one GPU's memory, {} in total; the table beside it lists each part.", bitbudget_math::numbers::format_bytes(b.total, state.query.with(|q| q.units))),
            None => "No valid setup yet".into(),
        })
    };
    view! {
        <canvas node_ref=canvas_ref class="chart" style=format!("height:{}px", memory_bar::HEIGHT) role="img" aria-label=label
            data-testid="memory-bar" on:mousemove=on_move on:mouseleave=move |_| state.hovered.set(None)></canvas>
    }
}
