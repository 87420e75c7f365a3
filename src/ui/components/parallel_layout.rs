//! The cluster's GPUs by parallel group (`bitbudget_charts::parallel_layout`), shown when the job
//! has more than one GPU: pointing at (or tapping, or typing the number of) a GPU colours its
//! groups and lists what it holds. The Memory page and the Learn page's parallelism chapter
//! show it.

use crate::ui::components::canvas_chart::{draw_chart, fit_to_box, Placement};
use bitbudget_charts::parallel_layout::{self, CellHit};
use bitbudget_math::memory::layout::{holds, place};
use bitbudget_math::memory::Setup;
use leptos::html::Canvas;
use leptos::prelude::*;

/// The grid, a GPU number field and what the chosen GPU holds.
#[component]
pub fn ParallelLayout(
    /// The job whose GPUs are drawn (a valid setup).
    #[prop(into)]
    setup: Signal<Setup>,
) -> impl IntoView {
    let gpus = Memo::new(move |_| setup.with(|s| s.gpus()));
    let chosen = RwSignal::new(0u64);
    let selected = move || chosen.get().min(gpus.get().saturating_sub(1));
    let canvas_ref = NodeRef::<Canvas>::new();
    let hits = StoredValue::new(Vec::<CellHit>::new());
    let dpr = StoredValue::new(1.0f64);
    let placement = Placement::watch(canvas_ref);
    let height = Memo::new(move |_| setup.with(parallel_layout::height_css));
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let Some(css_width) = placement.drawable_width(&canvas) else {
            return;
        };
        let rank = selected();
        setup.with(|setup| {
            dpr.set_value(fit_to_box(&canvas, css_width, height.get()));
            let input = parallel_layout::Input {
                setup,
                selected: Some(rank),
            };
            match draw_chart(&canvas, height.get(), &input) {
                Ok(h) => hits.set_value(h),
                Err(e) => web_sys::console::warn_1(&format!("parallel layout: {e}").into()),
            }
        });
    });
    let pick = move |ev: leptos::ev::MouseEvent| {
        let d = dpr.get_value();
        let (x, y) = (
            (ev.offset_x() as f64 * d).round() as i32,
            (ev.offset_y() as f64 * d).round() as i32,
        );
        let rank = hits.with_value(|h| {
            h.iter()
                .find(|c| (c.rect.0..=c.rect.2).contains(&x) && (c.rect.1..=c.rect.3).contains(&y))
                .map(|c| c.rank)
        });
        if let Some(rank) = rank.filter(|r| *r != chosen.get_untracked()) {
            chosen.set(rank);
        }
    };
    let lines = move || {
        let rank = selected();
        setup.with(|s| {
            holds(s, &place(s, rank))
                .into_iter()
                .map(|l| view! { <li>{l}</li> })
                .collect_view()
        })
    };
    let label = move || {
        setup.with(|s| {
            format!(
                "Grid of the job's {} GPUs by node, one panel per parallel group ({}); the list under it says what the chosen GPU holds.",
                s.gpus(),
                s.layout_text()
            )
        })
    };
    view! {
        <Show when=move || { gpus.get() > 1 }>
            <div class="parallel-layout" data-testid="parallel-layout">
                <h3>"Where each GPU sits"</h3>
                <label class="inline-field">"GPU "
                    <input type="number" min="1" max=move || gpus.get().to_string() data-testid="layout-gpu"
                        prop:value=move || (selected() + 1).to_string()
                        on:input=move |ev| {
                            if let Ok(n) = event_target_value(&ev).trim().parse::<u64>() {
                                if (1..=gpus.get_untracked()).contains(&n) {
                                    chosen.set(n - 1);
                                }
                            }
                        } />
                    {move || format!(" of {}", gpus.get())}
                </label>
                <canvas node_ref=canvas_ref class="chart" style=move || format!("height:{}px", height.get()) role="img" aria-label=label
                    data-testid="layout-chart" on:mousemove=pick on:click=pick></canvas>
                <ul class="layout-holds" data-testid="layout-holds">{lines}</ul>
            </div>
        </Show>
    }
}
