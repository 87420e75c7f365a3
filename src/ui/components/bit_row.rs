//! A format's bits as clickable cells, grouped by field (sign, exponent, mantissa) with a text label
//! under each group, so the layout reads without colour too. Arrow keys move between bits.

use bitbudget_math::format::{bit_roles, BitRole, FormatId, Spec};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// One group of consecutive bits with the same role.
struct Field {
    class: &'static str,
    name: &'static str,
    /// Bit positions counted from the most significant (0) bit.
    positions: std::ops::Range<u32>,
}

fn fields(id: FormatId) -> Vec<Field> {
    match id.spec() {
        Spec::Float(f) => vec![
            Field {
                class: "sign",
                name: "sign",
                positions: 0..1,
            },
            Field {
                class: "exponent",
                name: "exponent",
                positions: 1..1 + f.exp_bits,
            },
            Field {
                class: "mantissa",
                name: "mantissa",
                positions: 1 + f.exp_bits..f.total_bits(),
            },
        ],
        Spec::Int(_) => vec![Field {
            class: "integer",
            name: "two's complement",
            positions: 0..id.bits(),
        }],
    }
}

fn field_value(bits: u32, width: u32, positions: &std::ops::Range<u32>) -> u32 {
    positions
        .clone()
        .fold(0, |acc, p| (acc << 1) | ((bits >> (width - 1 - p)) & 1))
}

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
            let aria = move || format!("{} bit {} of {}, {}: {}", id.label(), p + 1, width, field.name, if on() { 1 } else { 0 });
            view! {
                <button class="bit" class:on=on aria-pressed=move || on().to_string() aria-label=aria
                    data-testid=format!("bit-{id}-{p}") on:click=move |_| on_toggle.run(p) on:keydown=move_focus>
                    <span class="digit">{move || if on() { "1" } else { "0" }}</span>
                    {weight.map(|w| view! { <span class="weight">{w}</span> })}
                </button>
            }
        }).collect_view();
        let positions = field.positions.clone();
        let label = move || match id.spec() {
            Spec::Float(_) if field.class != "sign" => format!("{} = {}", field.name, field_value(bits.get(), width, &positions)),
            _ => field.name.to_string(),
        };
        view! {
            <div class=format!("field field-{}", field.class) style=format!("--n:{}", field.positions.len())>
                <div class="cells">{cells}</div>
                <span class="field-label">{label}</span>
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
