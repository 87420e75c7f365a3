//! Chapter 4's widget: real gradients of all-MiniLM-L6-v2 (extracted under PyTorch by
//! `scripts/extract_sample_gradient.py` into `assets/gradients/`, fetched when the chapter opens)
//! against FP16 under a loss scale, and dynamic loss scaling over its fine-tuning steps, one step
//! at a time.

use super::text::bits_link;
use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use bitbudget_charts::gradients;
use bitbudget_math::format::{FormatFacts, FormatId};
use bitbudget_math::learn::gradient_sample::GradientSample;
use bitbudget_math::learn::loss_scale::{dynamic_scaling, fp16_fate, log2_histogram, ScalerStep};
use bitbudget_math::numbers::{grouped, short};
use leptos::leptos_dom::helpers::{set_interval_with_handle, IntervalHandle};
use leptos::prelude::*;

/// Where Trunk puts the gradient file (F32 samples and their provenance, 136 KB; see
/// `assets/README.md` and index.html's copy-file link). Fetched by the chapter that shows it, so
/// that the app itself stays 124 KB (gzip) smaller for everyone else.
pub const GRADIENT_URL: &str = "minilm-l6-gradients.safetensors";

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

/// The gradients and their provenance, fetched from [`GRADIENT_URL`], or why they could not be
/// had (the browser's cache keeps the file between visits).
pub async fn load_gradients() -> Result<GradientSample, String> {
    let bytes = crate::ui::browser::fetch_bytes(GRADIENT_URL)
        .await
        .map_err(|why| format!("the gradient file could not be loaded ({why})"))?;
    GradientSample::read(&bytes).map_err(|e| format!("the gradient file could not be read: {e}"))
}

/// The log of dynamic loss scaling over the fine-tuning steps of `g`.
pub fn dynamic_log(g: &GradientSample) -> Vec<ScalerStep> {
    dynamic_scaling(&g.steps, DYNAMIC_START, GROWTH_INTERVAL)
}

/// Where the histogram's gradients come from, in a sentence built from the file's metadata.
pub fn provenance(g: &GradientSample) -> String {
    let count = |key: &str| {
        g.meta_numbers(key)
            .first()
            .map_or("?".into(), |n| grouped(*n as usize))
    };
    format!(
        "{} gradients drawn at random from the {} non-zero ones (of {} parameters) after the first backward pass of {} ({}) under {} on sentence pairs, computed in FP32 with PyTorch {} by {}.",
        grouped(g.histogram.len()),
        count("nonzero_gradients"),
        count("parameters"),
        g.meta("model").unwrap_or("?"),
        g.meta("architecture").unwrap_or("?"),
        g.meta("loss").unwrap_or("?"),
        g.meta("torch").unwrap_or("?"),
        g.meta("script").unwrap_or("?"),
    )
}

/// The gradients FP16 loses or keeps at a chosen loss scale, with their histogram: a line while
/// the gradient file loads, a message if it cannot be had.
#[component]
pub fn LossScaleWidget() -> impl IntoView {
    let loaded = RwSignal::new(None::<Result<GradientSample, String>>);
    leptos::task::spawn_local(async move {
        let result = load_gradients().await;
        // The chapter may have closed meanwhile.
        let _ = loaded.try_set(Some(result));
    });
    move || {
        match loaded.get() {
        None => view! { <p class="hint" data-testid="learn-gradients-loading">"Loading MiniLM's gradients (136 KB)…"</p> }.into_any(),
        Some(Ok(g)) => view! { <LossScaleChart sample=g /> }.into_any(),
        Some(Err(e)) => view! {
            <p class="setup-error" role="alert" data-testid="learn-gradients-error">{format!("{e}. The rest of the chapter works without it.")}</p>
        }
        .into_any(),
    }
    }
}

/// The histogram, the loss-scale control and dynamic scaling, over a readable gradient file.
#[component]
fn LossScaleChart(
    /// The gradients and their provenance.
    sample: GradientSample,
) -> impl IntoView {
    let log = dynamic_log(&sample);
    let losses = sample.meta_numbers("losses");
    let top_k = sample
        .meta_numbers("top_k")
        .first()
        .map_or(0, |k| *k as usize);
    let about = provenance(&sample);
    let histogram = StoredValue::new(sample.histogram);
    let exponent = RwSignal::new(0);
    let fate = move || histogram.with_value(|g| fp16_fate(g, 2f64.powi(exponent.get())));
    let window = move || fp16_window(exponent.get());
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        let (lo, hi) = window();
        histogram.with_value(|g| {
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
            <p data-testid="learn-gradients-source">{about}</p>
            <p>"FP16 keeps gradients from "
                <strong class="num" data-testid="learn-window-low">{move || short(window().0, 3)}</strong>" to "
                <strong class="num" data-testid="learn-window-high">{move || short(window().1, 5)}</strong>": "
                <strong class="num" data-testid="learn-underflow">{move || grouped(fate().underflow)}</strong>" underflow to 0, "
                <strong class="num" data-testid="learn-overflow">{move || grouped(fate().overflow)}</strong>" overflow, "
                <strong class="num" data-testid="learn-kept">{move || grouped(fate().kept)}</strong>" kept."</p>
            <DynamicScaling log losses top_k />
            <p><a href=move || bits_link(short(window().0, 6), FormatId::F16) data-testid="learn-open-bits">"Open the smallest one kept in the Bits page"</a></p>
        </div>
    }
}

/// Dynamic loss scaling, one step per click: the scale used, what overflowed, and the decision.
#[component]
fn DynamicScaling(
    /// Every step of dynamic loss scaling.
    log: Vec<ScalerStep>,
    /// Each step's training loss (from the gradient file; may be shorter than `log`).
    losses: Vec<f64>,
    /// How many of each step's sampled gradients are its largest ones.
    top_k: usize,
) -> impl IntoView {
    let steps = log.len();
    let per_step = log.first().map_or(0, |s| {
        s.fate.underflow + s.fate.overflow + s.fate.kept + s.fate.zero
    });
    let log = StoredValue::new(log);
    let losses = StoredValue::new(losses);
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
                            <td class="num">{losses.with_value(|l| l.get(i).map_or("—".into(), |l| short(*l, 3)))}</td>
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
        <p>{format!("Over the model's first {steps} fine-tuning steps: start at 2^24, halve on overflow (and skip the step), double after {GROWTH_INTERVAL} clean steps in a row. Each row counts {} gradients of its step: the {top_k} largest of the whole model (so every overflow shows) and {} drawn at random.", grouped(per_step), grouped(per_step.saturating_sub(top_k)))}</p>
        <div class="learn-prev-next">
            <button type="button" class="chip" data-testid="learn-scaler-play" on:click=play>{move || if playing.get() { "Pause" } else { "Play" }}</button>
            <button type="button" class="chip" data-testid="learn-scaler-step" disabled=at_end on:click=move |_| { stop(); advance() }>"Next step"</button>
            <button type="button" class="chip" data-testid="learn-scaler-reset" on:click=move |_| { stop(); shown.set(0) }>"Start again"</button>
        </div>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on narrow screens)">
            <table class="learn-table">
                <thead><tr><th scope="col">"step"</th><th scope="col">"loss"</th><th scope="col">"scale"</th><th scope="col">"overflowed"</th><th scope="col">"underflowed"</th><th scope="col">"decision"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::format::Overflow;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn gradient_sample() -> Result<GradientSample, String> {
        let file = include_bytes!("../../../../assets/gradients/minilm-l6-gradients.safetensors");
        GradientSample::read(file).map_err(|e| e.to_string())
    }

    fn histogram_gradients() -> Vec<f32> {
        gradient_sample().unwrap().histogram
    }

    #[wasm_bindgen_test]
    fn the_embedded_file_holds_minilm_gradients_with_their_provenance() {
        let g = gradient_sample().unwrap();
        assert!(g.meta("model").unwrap().contains("all-MiniLM-L6-v2"));
        assert_eq!(g.steps.len(), g.meta_numbers("losses").len());
        assert_eq!(g.steps.len(), g.meta_numbers("max_abs_gradient").len());
        assert!(g.histogram.iter().all(|v| *v != 0.0 && v.is_finite()));
        let about = provenance(&g);
        assert!(!about.contains('?'), "{about}");
        assert!(about.starts_with(&grouped(g.histogram.len())), "{about}");
    }

    /// Each step's sample starts with the model's largest gradients: its largest value is the
    /// step's largest |g| the script measured over all parameters.
    #[wasm_bindgen_test]
    fn every_step_sample_holds_its_steps_largest_gradient() {
        let g = gradient_sample().unwrap();
        let top_k = g.meta_numbers("top_k")[0] as usize;
        for (i, (step, max)) in g
            .steps
            .iter()
            .zip(g.meta_numbers("max_abs_gradient"))
            .enumerate()
        {
            let largest = step.iter().fold(0f32, |m, v| m.max(v.abs())) as f64;
            assert!(
                (largest - max).abs() <= max * 1e-5,
                "step {i}: {largest} against {max}"
            );
            let smallest_top = step[..top_k].iter().fold(f32::MAX, |m, v| m.min(v.abs()));
            assert!(
                step[top_k..].iter().all(|v| v.abs() <= smallest_top),
                "step {i}"
            );
        }
    }

    /// Chapter 4's text says most of these gradients are below FP16's smallest normal number.
    #[wasm_bindgen_test]
    fn most_gradients_are_below_fp16s_smallest_normal_number() {
        let g = histogram_gradients();
        let min_normal = FormatFacts::of(FormatId::F16).min_normal.unwrap();
        let below = g.iter().filter(|v| (v.abs() as f64) < min_normal).count();
        assert!(2 * below > g.len(), "{below} of {}", g.len());
    }

    #[wasm_bindgen_test]
    fn a_loss_scale_rescues_gradients_that_unscaled_fp16_flushes_to_zero() {
        let g = histogram_gradients();
        let unscaled = fp16_fate(&g, 1.0);
        assert!(unscaled.underflow > 0, "{unscaled:?}");
        let scaled = fp16_fate(&g, 65536.0);
        assert!(scaled.underflow < unscaled.underflow, "{scaled:?}");
        assert_eq!(scaled.overflow, 0);
    }

    /// The first step overflows at 2^24 exactly when the whole model's largest gradient does.
    #[wasm_bindgen_test]
    fn dynamic_scaling_skips_the_steps_whose_largest_gradient_overflows() {
        let g = gradient_sample().unwrap();
        let maxima = g.meta_numbers("max_abs_gradient");
        let log = dynamic_log(&g);
        for (step, max) in log.iter().zip(maxima) {
            let stored =
                FormatId::F16.decode(FormatId::F16.encode(max * step.scale, Overflow::Native));
            assert_eq!(
                step.skipped,
                stored.is_infinite(),
                "{step:?}, max |g| {max}"
            );
        }
        assert!(log[0].skipped);
    }
}
