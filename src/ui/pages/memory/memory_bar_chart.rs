//! The stacked bar of one GPU on a canvas; pointing at a segment selects that part.

use crate::ui::components::canvas_chart::{draw_chart, fit_to_box, Placement};
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_charts::memory_bar::{self, Hit};
use leptos::html::Canvas;
use leptos::prelude::*;

/// The bar chart with pointer hit-testing.
#[component]
pub fn MemoryBarChart() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let canvas_ref = NodeRef::<Canvas>::new();
    let hits = StoredValue::new(Vec::<Hit>::new());
    let dpr = StoredValue::new(1.0f64);
    let placement = Placement::watch(canvas_ref);
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let Some(css_width) = placement.drawable_width(&canvas) else {
            return;
        };
        let Some(b) = state.shown.get() else { return };
        let setup = state.setup.get();
        // The parts alive at the peak, so that the bar adds up to the total.
        let b = b.at_peak(setup.units);
        dpr.set_value(fit_to_box(&canvas, css_width, memory_bar::HEIGHT));
        let input = memory_bar::Input {
            breakdown: &b,
            capacity: setup.gpu.as_ref().map(|g| (g.capacity_bytes, g.name)),
            units: setup.units,
            highlight: state.hovered.get(),
        };
        match draw_chart(&canvas, memory_bar::HEIGHT, &input) {
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
            Some(b) => format!("Stacked bar of one GPU's memory, {} in total; the table beside it lists each part.", bitbudget_math::numbers::format_bytes(b.total, state.query.with(|q| q.job.units))),
            None => "No valid setup yet".into(),
        })
    };
    view! {
        <canvas node_ref=canvas_ref class="chart" style=format!("height:{}px", memory_bar::HEIGHT) role="img" aria-label=label
            data-testid="memory-bar" on:mousemove=on_move on:mouseleave=move |_| state.hovered.set(None)></canvas>
    }
}
