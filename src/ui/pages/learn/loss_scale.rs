//! Chapter 4's widget: the gradients of the spiral classifier (`bitbudget_math::learn`, trained
//! here) against FP16 under a loss scale, and dynamic loss scaling one step at a time.

use super::text::bits_link;
use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use bitbudget_charts::gradients;
use bitbudget_math::format::{FormatFacts, FormatId};
use bitbudget_math::learn::loss_scale::{
    dynamic_scaling, fp16_fate, log2_histogram, training_gradients, ScalerStep,
};
use bitbudget_math::learn::qat::EPOCHS;
use bitbudget_math::numbers::{grouped, short};
use leptos::leptos_dom::helpers::{set_interval_with_handle, IntervalHandle};
use leptos::prelude::*;

/// Training steps that dynamic loss scaling walks through (the first ones, where gradients are
/// largest); the histogram shows the last training step ([`EPOCHS`]), where they are smallest.
pub const STEPS: usize = 40;

/// Seed of the classifier (the same as chapter 13's).
const SEED: u64 = 1;

/// Loss scales offered, as powers of two.
const EXPONENTS: [i32; 6] = [0, 8, 12, 16, 20, 24];

/// The histogram's range of log₂|g|.
const LOG2_RANGE: (i32, i32) = (-44, 4);

/// Where dynamic scaling starts (2^24, so that the first steps overflow) and its growth interval
/// (PyTorch's `GradScaler` waits 2000 clean steps; 5 keeps the animation short).
const DYNAMIC_START: f64 = 16_777_216.0;
const GROWTH_INTERVAL: u32 = 5;

/// Time between steps when playing.
const PLAY_STEP: std::time::Duration = std::time::Duration::from_millis(400);

/// The smallest and largest gradient magnitude that FP16 keeps when the loss is multiplied by
/// 2^`exponent`: FP16's smallest subnormal and largest finite value, divided by the scale.
pub fn fp16_window(exponent: i32) -> (f64, f64) {
    let f = FormatFacts::of(FormatId::F16);
    let scale = 2f64.powi(exponent);
    (f.min_subnormal.unwrap_or(0.0) / scale, f.max / scale)
}

thread_local! {
    /// The training behind the widget runs once per page load (it takes a moment in a debug
    /// build), however often the chapter is opened.
    static GRADIENTS: std::cell::OnceCell<(Vec<Vec<f32>>, Vec<f32>)> = const { std::cell::OnceCell::new() };
}

/// The gradients of the classifier's first [`STEPS`] steps, then those of its last step.
fn gradient_steps() -> (Vec<Vec<f32>>, Vec<f32>) {
    GRADIENTS.with(|cell| {
        cell.get_or_init(|| {
            let steps: Vec<usize> = (1..=STEPS).chain([EPOCHS]).collect();
            let mut g = training_gradients(&steps, SEED);
            let last = g.pop().unwrap_or_default();
            (g, last)
        })
        .clone()
    })
}

/// The log of dynamic loss scaling over the classifier's first [`STEPS`] steps.
pub fn dynamic_log() -> Vec<ScalerStep> {
    dynamic_scaling(&gradient_steps().0, DYNAMIC_START, GROWTH_INTERVAL)
}

/// The gradients of the classifier's last training step.
pub fn last_gradients() -> Vec<f32> {
    gradient_steps().1
}

/// The gradients FP16 loses or keeps at a chosen loss scale, with their histogram.
#[component]
pub fn LossScaleWidget() -> impl IntoView {
    let (first, last) = gradient_steps();
    let last = StoredValue::new(last);
    let log = dynamic_scaling(&first, DYNAMIC_START, GROWTH_INTERVAL);
    let exponent = RwSignal::new(0);
    let fate = move || last.with_value(|g| fp16_fate(g, 2f64.powi(exponent.get())));
    let window = move || fp16_window(exponent.get());
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        let (lo, hi) = window();
        last.with_value(|g| {
            let counts = log2_histogram(g, LOG2_RANGE.0, LOG2_RANGE.1);
            let input = gradients::Input {
                counts: &counts,
                lo: LOG2_RANGE.0,
                keep_from: lo.log2(),
                keep_to: hi.log2(),
            };
            warn_on_error(
                "gradient histogram",
                draw_chart(canvas, gradients::HEIGHT, &input),
            );
        })
    };
    view! {
        <div class="learn-widget" data-testid="learn-widget">
            <label class="learn-knob">"Loss scale "
                <select data-testid="learn-loss-scale" on:change=move |ev| {
                    if let Ok(e) = event_target_value(&ev).parse() { exponent.set(e) }
                }>
                    {EXPONENTS.iter().map(|e| view! { <option value=e.to_string()>{format!("2^{e} = {}", short(2f64.powi(*e), 8))}</option> }).collect_view()}
                </select>
            </label>
            <CanvasChart label=Signal::derive(|| "Histogram of the gradients' magnitudes on a log scale, with FP16's range under the loss scale".to_string()) height=gradients::HEIGHT testid="learn-gradients" draw />
            <p>{format!("The gradients of the last of {EPOCHS} training steps of chapter 13's spiral classifier, computed here. FP16 keeps gradients from ")}
                <strong class="num" data-testid="learn-window-low">{move || short(window().0, 3)}</strong>" to "
                <strong class="num" data-testid="learn-window-high">{move || short(window().1, 5)}</strong>": "
                <strong class="num" data-testid="learn-underflow">{move || grouped(fate().underflow)}</strong>" underflow to 0, "
                <strong class="num" data-testid="learn-overflow">{move || grouped(fate().overflow)}</strong>" overflow, "
                <strong class="num" data-testid="learn-kept">{move || grouped(fate().kept)}</strong>" kept."</p>
            <DynamicScaling log />
            <p><a href=move || bits_link(short(window().0, 6), FormatId::F16) data-testid="learn-open-bits">"Open the smallest one kept in the Bits page"</a></p>
        </div>
    }
}

/// Dynamic loss scaling, one step per click: the scale used, what overflowed, and the decision.
#[component]
fn DynamicScaling(
    /// Every step of dynamic loss scaling.
    log: Vec<ScalerStep>,
) -> impl IntoView {
    let log = StoredValue::new(log);
    let shown = RwSignal::new(0usize);
    let rows = move || {
        log.with_value(|log| {
            log.iter()
                .take(shown.get())
                .enumerate()
                .map(|(i, s)| {
                    let decision = if s.skipped {
                        "overflow: skip the step, halve the scale".to_string()
                    } else if s.clean_run == 0 {
                        format!("{GROWTH_INTERVAL} clean steps: double the scale")
                    } else {
                        format!("clean ({} in a row)", s.clean_run)
                    };
                    view! {
                        <tr>
                            <td class="num">{i + 1}</td>
                            <td class="num" data-testid=format!("learn-scale-{i}")>{format!("2^{}", s.scale.log2())}</td>
                            <td class="num">{grouped(s.fate.overflow)}</td>
                            <td class="num">{grouped(s.fate.underflow)}</td>
                            <td data-testid=format!("learn-decision-{i}")>{decision}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let total = log.with_value(Vec::len);
    let at_end = move || shown.get() >= total;
    let timer = StoredValue::new(None::<IntervalHandle>);
    let playing = RwSignal::new(false);
    let stop = move || {
        if let Some(h) = timer.get_value() {
            h.clear();
        }
        timer.set_value(None);
        playing.set(false);
    };
    let advance = move || {
        shown.update(|n| *n = (*n + 1).min(total));
        if shown.get_untracked() >= total {
            stop();
        }
    };
    let play = move |_| {
        if playing.get_untracked() {
            return stop();
        }
        if shown.get_untracked() >= total {
            shown.set(0);
        }
        timer.set_value(set_interval_with_handle(advance, PLAY_STEP).ok());
        playing.set(timer.with_value(Option::is_some));
    };
    on_cleanup(stop);
    view! {
        <h4>"Dynamic loss scaling"</h4>
        <p>{format!("Over the first {STEPS} training steps, where the gradients are largest: start at 2^24, halve on overflow (and skip the step), double after {GROWTH_INTERVAL} clean steps in a row.")}</p>
        <div class="learn-prev-next">
            <button type="button" class="chip" data-testid="learn-scaler-play" on:click=play>{move || if playing.get() { "Pause" } else { "Play" }}</button>
            <button type="button" class="chip" data-testid="learn-scaler-step" disabled=at_end on:click=move |_| { stop(); advance() }>"Next step"</button>
            <button type="button" class="chip" data-testid="learn-scaler-reset" on:click=move |_| { stop(); shown.set(0) }>"Start again"</button>
        </div>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on narrow screens)">
            <table class="learn-table">
                <thead><tr><th scope="col">"step"</th><th scope="col">"scale"</th><th scope="col">"overflowed"</th><th scope="col">"underflowed"</th><th scope="col">"decision"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
