//! Inside one K-quant super-block: when the lab shows a K-quant, the diagram of one super-block
//! (the one holding the tensor's largest |x| unless another is picked) and how one of its weights
//! is rebuilt from the nested scales, also as text.

use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::pages::quant::state::QuantState;
use bitbudget_charts::kquant_block::{self, rebuild_lines, Input};
use bitbudget_math::numbers::short;
use bitbudget_math::quant::kquants::{KType, Rebuild, QK_K};
use bitbudget_math::quant::scheme::Scheme;
use leptos::prelude::*;

/// The super-block shown: its kind, index, the weight rebuilt and its bytes.
type Shown = (KType, usize, usize, Vec<u8>);

/// Reads a whole number in `0..end` typed into a box, or says why not.
fn pick(text: &str, what: &str, end: usize) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|v| *v < end)
        .ok_or_else(|| {
            format!(
                "'{text}' is not a {what} between 0 and {}",
                end.saturating_sub(1)
            )
        })
}

/// The super-block diagram, its two pickers and its explanation (only for a K-quant).
#[component]
pub fn KQuantBlock() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let (block, weight, error) = (
        RwSignal::new(None),
        RwSignal::new(None),
        RwSignal::new(None),
    );
    let shown = Memo::new(move |_| -> Option<Shown> {
        let Scheme::KQuant(kind) = state.shown.get() else {
            return None;
        };
        let r = state.results.get()?;
        let b = block.get().unwrap_or(r.overview.peak / QK_K);
        let w = weight.get().unwrap_or(r.overview.peak % QK_K);
        Some((kind, b, w, kind.super_block(&r.tensor.values, b)?))
    });
    let blocks = move || {
        state.results.with(|r| {
            r.as_ref()
                .map_or(0, |r| r.tensor.values.len().div_ceil(QK_K))
        })
    };
    let set = move |target: RwSignal<Option<usize>>,
                    what: &'static str,
                    end: usize,
                    text: String| match pick(&text, what, end) {
        Ok(v) => {
            error.set(None);
            target.set(Some(v))
        }
        Err(e) => error.set(Some(e)),
    };
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        if let Some((kind, index, weight, bytes)) = shown.get() {
            let input = Input {
                kind,
                index,
                bytes: &bytes,
                weight,
            };
            warn_on_error(
                "super-block diagram",
                draw_chart(canvas, kquant_block::HEIGHT, &input),
            );
        }
    };
    let rebuilt = move || {
        shown
            .get()
            .and_then(|(kind, _, w, bytes)| Some((kind, kind.rebuild(&bytes, w)?)))
    };
    let lines = move || {
        rebuilt().map(|(kind, r)| {
            rebuild_lines(kind, &r)
                .into_iter()
                .enumerate()
                .map(|(k, l)| view! { <li data-testid=format!("kq-line-{k}")>{l}</li> })
                .collect_view()
        })
    };
    let number =
        move |f: fn(&Rebuild) -> String| move || rebuilt().map(|(_, r)| f(&r)).unwrap_or_default();
    view! {
        <Show when=move || shown.with(|s| s.is_some())>
            <section class="kquant-block" data-testid="kquant-block">
                <h3>"Inside one super-block"</h3>
                <p class="help">"A K-quant scales twice: each sub-block's small integer scale (and min) is multiplied by the super-block's FP16 scale d (and dmin). Pick a super-block and a weight to see it rebuilt, bit by bit."</p>
                <div class="row2">
                    <div class="field-box"><label for="kq-block">"Super-block"</label>
                        <input id="kq-block" type="text" inputmode="numeric" data-testid="kq-block" prop:value=move || shown.with(|s| s.as_ref().map(|s| s.1.to_string()))
                            on:input=move |ev| set(block, "super-block", blocks(), event_target_value(&ev)) /></div>
                    <div class="field-box"><label for="kq-weight">"Weight in it (0–255)"</label>
                        <input id="kq-weight" type="text" inputmode="numeric" data-testid="kq-weight" prop:value=move || shown.with(|s| s.as_ref().map(|s| s.2.to_string()))
                            on:input=move |ev| set(weight, "weight", QK_K, event_target_value(&ev)) /></div>
                </div>
                {move || error.get().map(|e| view! { <p class="field-error" role="alert" data-testid="kq-error">{e}</p> })}
                <CanvasChart label=Signal::derive(|| "One K-quant super-block: its scales, codes and one weight rebuilt".to_string()) height=kquant_block::HEIGHT testid="kquant-diagram" draw=draw />
                <p class="kq-numbers">"q = "<span data-testid="kq-q">{number(|r| r.q.to_string())}</span>" · sc = "<span data-testid="kq-sc">{number(|r| r.sc.to_string())}</span>" · value = "<span data-testid="kq-value">{number(|r| short(r.value as f64, 6))}</span></p>
                <ol class="kq-lines" data-testid="kq-lines">{lines}</ol>
            </section>
        </Show>
    }
}
