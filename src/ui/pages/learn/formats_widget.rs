//! Chapter 3's widget: one value in FP32, FP16 and BF16, bit by bit, with each format's range and
//! precision.

use super::text::bits_link;
use crate::ui::components::bit_row::BitRow;
use bitbudget_math::format::{describe, FormatFacts, FormatId, Overflow};
use bitbudget_math::numbers::short;
use leptos::prelude::*;

/// Values offered: ordinary, one FP16 cannot reach, one FP16 flushes to zero, one near FP32's
/// limit.
const VALUES: [&str; 4] = ["0.1", "70000", "1e-8", "3e38"];

const FORMATS: [FormatId; 3] = [FormatId::F32, FormatId::F16, FormatId::Bf16];

/// One format's row: bits (clicking a bit flips it and shows the value it makes), stored value,
/// range and precision.
#[component]
fn FormatLine(
    /// The format.
    id: FormatId,
    /// The value typed or chosen.
    x: RwSignal<String>,
) -> impl IntoView {
    let value = move || x.with(|t| t.parse::<f64>().unwrap_or(0.0));
    let described = Memo::new(move |_| describe(id, value(), Overflow::Native));
    let bits = Signal::derive(move || described.get().bits);
    let on_toggle = Callback::new(move |p: u32| {
        let flipped = bits.get_untracked() ^ (1 << (id.bits() - 1 - p));
        x.set(short(id.decode(flipped), 9));
    });
    let facts = FormatFacts::of(id);
    view! {
        <div class="learn-format" data-testid=format!("learn-format-{}", id.name())>
            <h4>{id.label()}</h4>
            <BitRow id bits on_toggle />
            <p class="num">"stored: "<strong data-testid=format!("learn-stored-{}", id.name())>{move || described.with(|d| d.stored_exact.clone())}</strong></p>
            <p class="num">{format!("largest {} · smallest subnormal {} · step after 1: {}", short(facts.max, 5), facts.min_subnormal.map_or("—".into(), |v| short(v, 3)), short(facts.epsilon, 3))}</p>
        </div>
    }
}

/// The value chooser and the three formats.
#[component]
pub fn FormatsWidget() -> impl IntoView {
    let x = RwSignal::new(VALUES[0].to_string());
    let link = move || bits_link(x.get(), FormatId::F16);
    view! {
        <div class="learn-widget" data-testid="learn-widget">
            <label class="learn-knob">"Value "
                <select data-testid="learn-value" on:change=move |ev| x.set(event_target_value(&ev))>
                    {VALUES.iter().map(|v| view! { <option value=*v>{*v}</option> }).collect_view()}
                </select>
            </label>
            {FORMATS.iter().map(|&id| view! { <FormatLine id x /> }).collect_view()}
            <p><a href=link data-testid="learn-open-bits">"Open this value in the Bits page"</a></p>
        </div>
    }
}
