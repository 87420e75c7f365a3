//! Chapter 15's delayed-scaling widget: one FP8 tensor over eight training steps whose spread
//! drifts, quantized with Transformer Engine's delayed scale (from the amax history of the steps
//! before) and with current scaling (from the tensor itself), step by step: the scale each used,
//! the values saturated to ±max or flushed to zero, and the SQNR.

use bitbudget_math::numbers::short;
use bitbudget_math::quant::delayed::{drifting_sequence, simulate, AmaxAlgo, DelayedRecipe, Step};
use leptos::prelude::*;

/// Steps, and values per tensor.
const STEPS: usize = 8;
const VALUES: usize = 4096;

/// The drifts offered: the spread's factor per step, and its label.
const GROWTHS: [(f32, &str); 5] = [
    (4.0, "grows 4× a step"),
    (2.0, "doubles each step"),
    (1.0, "stays put"),
    (0.25, "shrinks 4× a step"),
    (1.0 / 16.0, "shrinks 16× a step"),
];

/// The sequence's steps under `growth`, `history` and `algo` (E4M3, margin 0).
pub fn delayed_steps(growth: f32, history: usize, algo: AmaxAlgo) -> Vec<Step> {
    let recipe = DelayedRecipe {
        history,
        algo,
        ..DelayedRecipe::default()
    };
    // The recipe and sequence are the widget's own, always valid.
    simulate(&drifting_sequence(STEPS, VALUES, growth, 7), recipe).unwrap_or_default()
}

fn share(n: usize) -> String {
    if n == 0 {
        "0".into()
    } else {
        format!("{}%", short(100.0 * n as f64 / VALUES as f64, 3))
    }
}

fn db(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1} dB")
    } else {
        "exact".into()
    }
}

/// The knobs and the step-by-step table.
#[component]
pub fn DelayedScaling() -> impl IntoView {
    let growth = RwSignal::new(GROWTHS[0].0);
    let history = RwSignal::new(1024usize);
    let algo = RwSignal::new(AmaxAlgo::Max);
    let steps = Memo::new(move |_| delayed_steps(growth.get(), history.get(), algo.get()));
    view! {
        <div class="learn-widget" data-testid="learn-delayed">
            <h4>"Delayed scaling: the scale from the steps before"</h4>
            <div class="learn-knobs">
                <label class="learn-knob">"The tensor "
                    <select data-testid="learn-delayed-growth" on:change=move |ev| if let Ok(v) = event_target_value(&ev).parse() { growth.set(v) }>
                        {GROWTHS.iter().map(|(g, label)| view! { <option value=g.to_string()>{*label}</option> }).collect_view()}
                    </select>
                </label>
                <label class="learn-knob">"amax history "
                    <select data-testid="learn-delayed-history" on:change=move |ev| if let Ok(v) = event_target_value(&ev).parse() { history.set(v) }>
                        <option value="1024">"1024 steps (TE's default)"</option>
                        <option value="1">"1 step"</option>
                    </select>
                </label>
                <label class="learn-knob">"from the history, take "
                    <select data-testid="learn-delayed-algo" on:change=move |ev| if let Ok(v) = event_target_value(&ev).parse() { algo.set(v) }>
                        <option value="max">"its largest (max)"</option>
                        <option value="most-recent">"the last (most_recent)"</option>
                    </select>
                </label>
            </div>
            <div class="table-scroll">
                <table class="breakdown">
                    <thead>
                        <tr><th scope="col">"Step"</th><th scope="col" class="num">"amax"</th><th scope="col" class="num">"Delayed: saturated"</th><th scope="col" class="num">"flushed to 0"</th><th scope="col" class="num">"SQNR"</th><th scope="col" class="num">"Current: SQNR"</th></tr>
                    </thead>
                    <tbody>
                        {move || steps.get().into_iter().enumerate().map(|(i, s)| view! {
                            <tr data-testid=format!("learn-delayed-row-{i}")>
                                <th scope="row">{i + 1}</th>
                                <td class="num">{short(s.amax.into(), 4)}</td>
                                <td class="num">{share(s.delayed.saturated)}</td>
                                <td class="num">{share(s.delayed.flushed)}</td>
                                <td class="num">{db(s.delayed.sqnr_db)}</td>
                                <td class="num">{db(s.current.sqnr_db)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <p class="hint">{format!("{VALUES} normal values per step in FP8 E4M3, the same tensor scaled by the drift. Step 1 has no history, so its scale is Transformer Engine's initial 1. Current scaling reads each tensor's amax first, one more pass over it: nothing saturates, and only values more than E4M3's range below the largest flush to zero.")}</p>
        </div>
    }
}
