//! Chapter 15's widget: the FP8 and FP4 recipes' memory side by side (the chapter's scenario),
//! and what each block shape does to a real tensor's error: MiniLM's query weight (the Quantize
//! page's sample, fetched when the chapter opens), with or without an outlier input channel.

use super::chapter_texts::FP8_RECIPES;
use super::delayed_widget::DelayedScaling;
use super::scenario::ScenarioWidget;
use crate::ui::pages::quant::query::{SAMPLE_TENSORS, SAMPLE_URL};
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::learn::block_shapes::{block_shape_errors, with_outlier_channel, ShapeError};
use bitbudget_math::numbers::{grouped, short};
use bitbudget_math::quant::rotation::stochastic_mean;
use bitbudget_math::quant::tensor_io::{read_safetensors, Tensor};
use leptos::prelude::*;

/// The input channel made an outlier, and by how much.
const OUTLIER: (usize, f32) = (5, 100.0);

/// The sample tensor, or why it could not be had.
async fn load_tensor() -> Result<Tensor, String> {
    let bytes = crate::ui::browser::fetch_bytes(SAMPLE_URL)
        .await
        .map_err(|why| format!("the sample tensor could not be loaded ({why})"))?;
    read_safetensors(&bytes, SAMPLE_TENSORS[0]).map_err(|e| e.to_string())
}

/// The errors of every block shape on `t`, with an outlier channel when `outlier`.
pub fn shape_errors(t: &Tensor, outlier: bool) -> Result<Vec<ShapeError>, String> {
    let cols = t.shape.last().copied().unwrap_or(0);
    if outlier {
        let x = with_outlier_channel(&t.values, cols, OUTLIER.0, OUTLIER.1);
        block_shape_errors(&x, cols)
    } else {
        block_shape_errors(&t.values, cols)
    }
}

/// The recipes' scenario, then the block shapes' errors, delayed scaling and stochastic
/// rounding.
#[component]
pub fn Fp8Widget() -> impl IntoView {
    view! {
        <ScenarioWidget scenario=&FP8_RECIPES />
        <BlockShapes />
        <DelayedScaling />
        <StochasticRounding />
    }
}

/// Values offered between E2M1's codes, and the number of seeded draws averaged.
const SR_VALUES: [f64; 3] = [0.2, 0.3, 0.7];
const SR_DRAWS: u32 = 10_000;

/// Round to nearest against the mean of many stochastic roundings, for a value between two
/// FP4 codes.
#[component]
fn StochasticRounding() -> impl IntoView {
    let value = RwSignal::new(SR_VALUES[0]);
    let f = FormatId::F4E2M1;
    let nearest = move || short(f.decode(f.encode(value.get(), Overflow::Saturate)), 4);
    let mean = move || format!("{:.4}", stochastic_mean(f, value.get(), SR_DRAWS, 1));
    view! {
        <div class="learn-widget" data-testid="learn-stochastic">
            <h4>"Stochastic rounding"</h4>
            <label class="learn-knob">"A value between FP4 codes "
                <select data-testid="learn-sr-value" on:change=move |ev| if let Ok(v) = event_target_value(&ev).parse() { value.set(v) }>
                    {SR_VALUES.iter().map(|v| view! { <option value=v.to_string()>{v.to_string()}</option> }).collect_view()}
                </select>
            </label>
            <p>"Round to nearest gives "<strong data-testid="learn-sr-nearest">{nearest}</strong>" every time; the mean of "{grouped(SR_DRAWS as usize)}" seeded stochastic roundings is "<strong data-testid="learn-sr-mean">{mean}</strong>": unbiased, which is why NVFP4 training rounds its gradients this way."</p>
        </div>
    }
}

/// The block shapes' errors on the sample tensor: a line while it loads, a message if it cannot.
#[component]
fn BlockShapes() -> impl IntoView {
    let loaded = RwSignal::new(None::<Result<Tensor, String>>);
    leptos::task::spawn_local(async move {
        let result = load_tensor().await;
        // The chapter may have closed meanwhile.
        let _ = loaded.try_set(Some(result));
    });
    let outlier = RwSignal::new(false);
    let errors = Memo::new(move |_| {
        loaded.with(|t| match t {
            None => None,
            Some(Err(e)) => Some(Err(e.clone())),
            Some(Ok(t)) => Some(shape_errors(t, outlier.get())),
        })
    });
    let about = move || {
        loaded.with(|t| match t {
            Some(Ok(t)) => format!(
                "{} of all-MiniLM-L6-v2, {} values, quantized and decoded in your browser.",
                t.name,
                t.shape
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(" × ")
            ),
            _ => String::new(),
        })
    };
    view! {
        <div class="learn-widget" data-testid="learn-block-shapes">
            <h4>"Block shapes on a real tensor"</h4>
            <label class="learn-knob">
                <input type="checkbox" data-testid="learn-outlier-channel" prop:checked=move || outlier.get()
                    on:change=move |ev| outlier.set(event_target_checked(&ev)) />
                {format!(" input channel {} × {}", OUTLIER.0, OUTLIER.1)}
            </label>
            {move || match errors.get() {
                None => view! { <p class="hint" data-testid="learn-block-shapes-loading">"Loading MiniLM's query weight (480 KB)…"</p> }.into_any(),
                Some(Err(e)) => view! { <p class="setup-error" role="alert" data-testid="learn-block-shapes-error">{format!("{e}. The rest of the chapter works without it.")}</p> }.into_any(),
                Some(Ok(rows)) => view! { <ShapeTable rows /> }.into_any(),
            }}
            <p class="hint">{about}</p>
        </div>
    }
}

/// One row per block shape: bits per value, SQNR, RMSE.
#[component]
fn ShapeTable(
    /// The shapes' errors.
    rows: Vec<ShapeError>,
) -> impl IntoView {
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Block shapes (scrolls sideways on narrow screens)">
            <table class="learn-table" data-testid="learn-block-shapes-table">
                <thead><tr><th scope="col">"format and block"</th><th scope="col">"bits / value"</th><th scope="col">"SQNR"</th><th scope="col">"RMSE"</th></tr></thead>
                <tbody>
                    {rows.into_iter().enumerate().map(|(i, r)| view! {
                        <tr data-testid=format!("learn-shape-{i}")>
                            <th scope="row">{r.label}</th>
                            <td class="num">{format!("{:.3}", r.bits_per_value)}</td>
                            <td class="num" data-testid=format!("learn-shape-{i}-sqnr")>{format!("{:.1} dB", r.sqnr_db)}</td>
                            <td class="num">{format!("{:.2e}", r.rmse)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
