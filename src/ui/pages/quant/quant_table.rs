//! Every scheme's metrics on the current tensor; clicking a row shows that scheme in detail.

use crate::ui::components::term::Term;
use crate::ui::pages::quant::state::QuantState;
use bitbudget_math::numbers::{format_bytes, Units};
use bitbudget_math::numbers::{human_bytes, short};
use leptos::prelude::*;

/// An error metric with 3 significant digits; an infinite error as ∞.
fn metric(v: f64) -> String {
    if v == f64::INFINITY {
        "∞".into()
    } else {
        short(v, 3)
    }
}

/// SQNR in dB with one decimal; ±∞ as symbols.
pub fn sqnr_text(db: f64) -> String {
    match db {
        f64::INFINITY => "∞".to_string(),
        f64::NEG_INFINITY => "−∞".to_string(),
        v => format!("{v:.1}"),
    }
}

/// The bytes of a whole model of `params` parameters stored at `bits_per_weight`, to the byte.
pub fn model_bytes(bits_per_weight: f64, params: f64) -> u64 {
    (bits_per_weight / 8.0 * params).round() as u64
}

/// The metrics table. On a phone the key columns (scheme, bits, whole model, SQNR; RMSE from
/// 481 px) fit without a sideways swipe; "All columns" brings back the others, which then scroll
/// sideways with the scheme held in place (`assets/style.css`).
#[component]
pub fn QuantTable() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let rows = move || {
        let selected = state.shown.get();
        let params = state.model_params.get();
        state.results.get().map(|r| {
            r.rows
                .into_iter()
                .map(|row| {
                    let s = row.scheme;
                    let m = row.metrics;
                    let model_bytes = model_bytes(row.bits_per_weight, params);
                    let sqnr = sqnr_text(m.sqnr_db);
                    let lost = m.lost > 0;
                    let cosine = if m.cosine.is_nan() { "—".to_string() } else { format!("{:.5}", m.cosine) };
                    view! {
                        <tr class:selected=s == selected class:lost=lost data-testid=format!("row-{s}")>
                            <th scope="row"><button class="link" on:click=move |_| state.query.update(|q| q.scheme = s)>{s.name()}</button></th>
                            <td data-testid=format!("bits-{s}")>{format!("{:.3}", row.bits_per_weight)}</td>
                            <td class="more">{human_bytes(row.bytes as u64)}</td>
                            <td data-testid=format!("model-bytes-{s}")>{format_bytes(model_bytes, Units::Gb)}</td>
                            <td class="more">{metric(m.mse)}</td>
                            <td class="wide">{metric(m.rmse)}</td>
                            <td class="more">{metric(m.max_abs_error)}</td>
                            <td data-testid=format!("sqnr-{s}")>{sqnr}</td>
                            <td class="more">{cosine}</td>
                            <td class="more" data-testid=format!("bias-{s}")>{short(m.mean_error, 3)}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let all_columns = RwSignal::new(false);
    view! {
        <Show when=move || state.results.with(Option::is_none) && state.progress.get() < 1.0>
            <p class="help" data-testid="quant-computing">{move || {
                let n = state.query.with(|q| q.compared().len());
                format!("Quantizing the tensor with {n} scheme{}…", if n == 1 { "" } else { "s" })
            }}</p>
        </Show>
        <div class="table-scroll" class:all-columns=all_columns>
            <table class="facts quant-table" data-testid="quant-table">
                <thead><tr>
                    <th scope="col">"scheme"</th><th scope="col">"bits / weight"</th><th scope="col" class="more">"this tensor"</th><th scope="col">"whole model"</th>
                    <th scope="col" class="more">"MSE"</th><th scope="col" class="wide">"RMSE"</th><th scope="col" class="more">"max |error|"</th><th scope="col"><Term word="SQNR" />" dB"</th><th scope="col" class="more">"cosine"</th><th scope="col" class="more">"mean error (bias)"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <button type="button" class="link column-toggle" aria-pressed=move || all_columns.get().to_string() data-testid="quant-all-columns" on:click=move |_| all_columns.update(|a| *a = !*a)>
            {move || if all_columns.get() { "Key columns only" } else { "All columns (this tensor's bytes, MSE, max |error|, cosine, bias…)" }}
        </button>
        <p class="help" data-testid="ran-on" data-kind=move || state.results.with(|r| r.as_ref().map(|r| r.ran_on.kind()))>{move || state.results.with(|r| r.as_ref().map(|r| r.ran_on.to_string()))}</p>
    }
}
