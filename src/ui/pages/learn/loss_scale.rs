//! Chapter 4's widget: which gradient magnitudes survive in FP16 under a loss scale.

use crate::ui::url_state::{bits_query_string, BitsQuery};
use bitbudget_math::format::{FormatFacts, FormatId};
use bitbudget_math::numbers::short;
use leptos::prelude::*;

/// Loss scales offered, as powers of two.
const EXPONENTS: [i32; 5] = [0, 8, 12, 16, 24];

/// The smallest and largest gradient magnitude that FP16 keeps when the loss is multiplied by
/// 2^`exponent`: FP16's smallest subnormal and largest finite value, divided by the scale.
pub fn fp16_window(exponent: i32) -> (f64, f64) {
    let f = FormatFacts::of(FormatId::F16);
    let scale = 2f64.powi(exponent);
    (f.min_subnormal.unwrap_or(0.0) / scale, f.max / scale)
}

/// A loss-scale select and the window of gradients FP16 keeps.
#[component]
pub fn LossScaleWidget() -> impl IntoView {
    let exponent = RwSignal::new(0);
    let window = move || fp16_window(exponent.get());
    let link = move || {
        let (low, _) = window();
        bits_query_string(
            &BitsQuery {
                x: short(low, 6),
                fmt: FormatId::F16,
                saturate: false,
            },
            false,
        )
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
            <p>"FP16 keeps gradients from "
                <strong class="num" data-testid="learn-window-low">{move || short(window().0, 3)}</strong>
                " to "
                <strong class="num" data-testid="learn-window-high">{move || short(window().1, 5)}</strong>
                "; smaller ones become 0, larger ones overflow to infinity."</p>
            <p><a href=link data-testid="learn-open-bits">"Open the smallest one kept in the Bits page"</a></p>
        </div>
    }
}
