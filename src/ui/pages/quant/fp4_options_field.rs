//! The FP4 options of the Quantize lab, shown while NVFP4 or MXFP4 is compared: the random
//! Hadamard transform and stochastic rounding, each a toggle with its seed (URL keys `rht` and
//! `sr`; `bitbudget_math::quant::fp4_options`).

use crate::ui::pages::quant::state::QuantState;
use bitbudget_math::quant::fp4_options::Fp4Options;
use leptos::prelude::*;

/// Where one option's seed lives in [`Fp4Options`].
type Field = fn(&mut Fp4Options) -> &mut Option<u64>;

/// The two options: URL key, label, and the field of the query's [`Fp4Options`] it sets.
const OPTIONS: [(&str, &str, Field); 2] = [
    ("rht", " Hadamard (RHT), seed", |o| &mut o.rht),
    ("sr", " Stochastic rounding, seed", |o| &mut o.sr),
];

/// The toggles and seed boxes of NVFP4's and MXFP4's options, side by side, and one line on what
/// each does. A toggle turns its option on with the seed in its box (1 until one is typed); a
/// seed typed that is not a whole number of 0..=2^64−1 stays in the box with the reason, and the
/// lab keeps the last good one.
#[component]
pub fn Fp4OptionsField() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let option = move |(key, label, field): (&'static str, &'static str, Field)| {
        let seed = move || state.query.with(|q| *field(&mut { q.fp4 }));
        let last = RwSignal::new(
            state
                .query
                .with_untracked(|q| *field(&mut { q.fp4 }))
                .unwrap_or(1),
        );
        let error = RwSignal::new(None::<String>);
        let on_toggle = move |ev| {
            let on = event_target_checked(&ev);
            state
                .query
                .update(|q| *field(&mut q.fp4) = on.then(|| last.get_untracked()));
        };
        let on_input = move |ev| {
            let v = event_target_value(&ev);
            let mut q = state.query.get_untracked();
            match q.assign(key, &v) {
                Some(Ok(())) => {
                    error.set(None);
                    last.set(field(&mut q.fp4).unwrap_or(1));
                    state.query.set(q);
                }
                Some(Err(e)) => error.set(Some(format!("{e}; the lab keeps the last good seed"))),
                None => {}
            }
        };
        view! {
            <div class="field-box" class:invalid=move || error.get().is_some()>
                <label class="check-box">
                    <input type="checkbox" data-testid=format!("quant-{key}") prop:checked=move || seed().is_some() on:change=on_toggle />
                    {label}
                </label>
                <input type="text" inputmode="numeric" aria-label=format!("{key} seed") data-testid=format!("quant-{key}-seed")
                    prop:value=move || seed().unwrap_or_else(|| last.get()).to_string() on:input=on_input />
                {move || error.get().map(|e| view! { <span class="field-error" role="alert" data-testid=format!("quant-{key}-error")>{e}</span> })}
            </div>
        }
    };
    view! {
        <div class="row2">{OPTIONS.into_iter().map(option).collect_view()}</div>
        <p class="help">"NVFP4, MXFP4: RHT spreads an outlier channel over 16 values before the scale is picked (see SQNR); SR rounds up or down at random, so its mean error (bias) nears 0."</p>
    }
}
