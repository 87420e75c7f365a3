//! A format's bits as clickable cells, grouped by field (sign, exponent, mantissa) with a text label
//! under each group, so the layout reads without colour too. Arrow keys move between bits.

use crate::ui::components::term::Term;
use bitbudget_charts::bit_layout::fields;
use bitbudget_math::format::{bit_roles, BitRole, FormatId};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Clickable bit cells of `id` showing `bits`; clicking bit `p` (0 = most significant) calls
/// `on_toggle(p)`.
#[component]
pub fn BitRow(
    /// The format.
    id: FormatId,
    /// The pattern shown.
    #[prop(into)]
    bits: Signal<u32>,
    /// Called with the position (0 = most significant) of a clicked bit.
    on_toggle: Callback<u32>,
) -> impl IntoView {
    let width = id.bits();
    let roles = bit_roles(id);
    let groups = fields(id).into_iter().map(|field| {
        let cells = field.positions.clone().map(|p| {
            let on = move || (bits.get() >> (width - 1 - p)) & 1 == 1;
            let weight = match roles[p as usize] {
                BitRole::Integer { weight } => Some(weight.to_string()),
                _ => None,
            };
            // An integer bit also shows its place value: its name starts with what it shows (WCAG 2.5.3).
            let shown = weight.clone().map(|w| format!(" {w}")).unwrap_or_default();
            let aria = move || match (if on() { 1 } else { 0 }, shown.is_empty()) {
                (d, true) => format!("{} bit {} of {}, {}: {d}", id.label(), p + 1, width, field.kind.name()),
                (d, false) => format!("{d}{shown}: {} bit {} of {}, {}", id.label(), p + 1, width, field.kind.name()),
            };
            view! {
                <button class="bit" class:on=on aria-pressed=move || on().to_string() aria-label=aria
                    data-testid=format!("bit-{id}-{p}") on:click=move |_| on_toggle.run(p) on:keydown=move_focus>
                    <span class="digit">{move || if on() { "1" } else { "0" }}</span>
                    {weight.map(|w| view! { " "<span class="weight">{w}</span> })}
                </button>
            }
        }).collect_view();
        let (class, n) = (field.kind.class(), field.positions.len());
        let name = field.kind.name();
        let value = field.kind.shows_value().then(|| {
            let field = field.clone();
            move || format!(" = {}", field.value(bits.get(), width))
        });
        view! {
            <div class=format!("field field-{class}") style=format!("--n:{n}")>
                <div class="cells">{cells}</div>
                <span class="field-label"><Term word=name />{value}</span>
            </div>
        }
    }).collect_view();
    view! { <div class="bit-row" role="group" aria-label=format!("{} bits", id.label())>{groups}</div> }
}

/// ArrowLeft/ArrowRight move focus to the neighbouring bit of the same row.
fn move_focus(ev: leptos::ev::KeyboardEvent) {
    let step: i32 = match ev.key().as_str() {
        "ArrowLeft" => -1,
        "ArrowRight" => 1,
        _ => return,
    };
    ev.prevent_default();
    let Some(cell) = ev
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Some(row) = cell.closest(".bit-row").ok().flatten() else {
        return;
    };
    let Ok(all) = row.query_selector_all(".bit") else {
        return;
    };
    let index = (0..all.length())
        .find(|i| {
            all.item(*i)
                .is_some_and(|n| &n == cell.as_ref() as &web_sys::Node)
        })
        .unwrap_or(0) as i32;
    let next = (index + step).clamp(0, all.length() as i32 - 1) as u32;
    if let Some(el) = all
        .item(next)
        .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}
