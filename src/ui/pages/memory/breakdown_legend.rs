//! The breakdown as a legend table: each part's size at the peak moment (as the bar draws it, so
//! the rows add up to the total; a part that is smaller then, or gone, says its largest size in
//! its formula); hovering or focusing a row (or its bar segment) shows its formula with the
//! numbers filled in and why the memory is needed.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::Part;
use bitbudget_math::numbers::format_bytes;
use leptos::prelude::*;

/// Legend rows and the explanation panel.
#[component]
pub fn BreakdownLegend() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let units = move || state.query.with(|q| q.job.units);
    let at_peak = Memo::new(move |_| state.shown.with(|b| b.as_ref().map(|b| b.at_peak(units()))));
    let rows = Part::ALL
        .into_iter()
        .map(|part| {
            let bytes = move || at_peak.with(|b| b.as_ref().map(|b| part.line(b).bytes).unwrap_or(0));
            view! {
                <tr tabindex="0" data-testid=format!("part-{}", part.key()) class:active=move || state.hovered.get() == Some(part)
                    on:mouseenter=move |_| state.hovered.set(Some(part)) on:focus=move |_| state.hovered.set(Some(part))
                    on:mouseleave=move |_| state.hovered.set(None) on:blur=move |_| state.hovered.set(None)>
                    <th scope="row"><span class="swatch" style=format!("background:var(--{})", part.key().replace('_', "-"))></span>{part.label()}</th>
                    <td class="num" data-testid=format!("bytes-{}", part.key()) data-bytes=move || bytes().to_string()>{move || format_bytes(bytes(), units())}</td>
                </tr>
            }
        })
        .collect_view();
    let total = move || at_peak.with(|b| b.as_ref().map(|b| b.total).unwrap_or(0));
    let focus = move || {
        at_peak.with(|b| {
            let b = b.as_ref()?;
            let part = state.hovered.get().unwrap_or_else(|| {
                *Part::ALL
                    .iter()
                    .max_by_key(|p| p.line(b).bytes)
                    .unwrap_or(&Part::Weights)
            });
            let line = part.line(b);
            Some((part.label(), line.formula.clone(), line.why.clone()))
        })
    };
    view! {
        <table class="breakdown" data-testid="breakdown">
            <caption class="sr-only">"Memory per GPU by part"</caption>
            <tbody>{rows}</tbody>
            <tfoot>
                <tr><th scope="row">"total per GPU"</th>
                    <td class="num" data-testid="bytes-total" data-bytes=move || total().to_string()>{move || format_bytes(total(), units())}</td></tr>
            </tfoot>
        </table>
        <div class="explain" aria-live="polite" data-testid="explain">
            {move || focus().map(|(label, formula, why)| view! {
                <p><strong>{label}</strong>": "<span class="mono">{formula}</span></p>
                <p>{why}</p>
            })}
        </div>
    }
}
