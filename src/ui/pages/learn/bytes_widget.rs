//! Chapter 1's widget: a parameter count stored in each number format.

use crate::ui::components::serve_link::serve_query;
use bitbudget_math::format::{FormatFacts, FormatId};
use bitbudget_math::memory::{find_model, Job, Mode};
use bitbudget_math::numbers::{format_bytes, format_count, Units};
use bitbudget_math::serve::from_memory::{nearest_preset, serving_job};
use leptos::prelude::*;

/// Parameter counts offered.
const COUNTS: [u64; 4] = [
    1_000_000_000,
    8_000_000_000,
    70_000_000_000,
    405_000_000_000,
];

/// The formats compared, widest first.
const FORMATS: [FormatId; 6] = [
    FormatId::F32,
    FormatId::F16,
    FormatId::Bf16,
    FormatId::F8E4M3,
    FormatId::Int8,
    FormatId::F4E2M1,
];

/// Bytes of `params` parameters in `id`: params × bits ÷ 8, rounded down to whole bytes.
pub fn weight_bytes(params: u64, id: FormatId) -> u64 {
    (params as u128 * FormatFacts::of(id).bits as u128 / 8) as u64
}

/// The Serve page serving the preset nearest `params` parameters, and that preset's name.
fn serve_link(params: u64) -> (String, &'static str) {
    let mut job = Job {
        params: Some(params),
        ..Job::default()
    };
    job.mode = Mode::Inference;
    let name = find_model(nearest_preset(params)).map_or("", |m| m.name);
    (serve_query(&serving_job(&job)), name)
}

/// A select of parameter counts and each format's bytes for it.
#[component]
pub fn BytesWidget() -> impl IntoView {
    let params = RwSignal::new(COUNTS[0]);
    let link = Memo::new(move |_| serve_link(params.get()));
    let rows = move || {
        let n = params.get();
        FORMATS
            .iter()
            .map(|&id| {
                let facts = FormatFacts::of(id);
                view! {
                    <tr>
                        <th scope="row">{id.label()}</th>
                        <td class="num">{format!("{} bits = {} B", facts.bits, facts.bytes_per_param)}</td>
                        <td class="num" data-testid=format!("learn-bytes-{}", id.name())>{format_bytes(weight_bytes(n, id), Units::Gb)}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <div class="learn-widget" data-testid="learn-widget">
            <label class="learn-knob">"Parameters "
                <select data-testid="learn-params" on:change=move |ev| {
                    if let Ok(n) = event_target_value(&ev).parse() { params.set(n) }
                }>
                    {COUNTS.iter().map(|n| view! { <option value=n.to_string()>{format_count(*n)}</option> }).collect_view()}
                </select>
            </label>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on narrow screens)">
                <table class="learn-table">
                    <thead><tr><th scope="col">"format"</th><th scope="col">"per parameter"</th><th scope="col">"weights"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p><a href=move || link.get().0 data-testid="learn-open-serve">"Serve "{move || link.get().1}", the nearest model, on the Serve page"</a></p>
        </div>
    }
}
