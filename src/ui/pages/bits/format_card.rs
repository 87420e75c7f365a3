//! One format's card: its bits, the stored value exactly, the rounding error and the decoding.

use crate::ui::components::bit_row::BitRow;
use crate::ui::components::term::with_terms;
use crate::ui::pages::bits::state::BitsState;
use bitbudget_math::format::{describe, FormatFacts, FormatId};
use bitbudget_math::numbers::short;
use leptos::prelude::*;

fn error_text(abs: f64, rel: Option<f64>) -> (String, String) {
    let abs_text = if abs == 0.0 {
        "0 (exact)".to_string()
    } else {
        format!("{}{}", if abs > 0.0 { "+" } else { "" }, short(abs, 4))
    };
    let rel_text = match rel {
        Some(0.0) => "0".to_string(),
        Some(r) => format!("{} ({}%)", short(r, 3), short(r * 100.0, 3)),
        None => "n/a".to_string(),
    };
    (abs_text, rel_text)
}

/// The card of format `id` for the current value.
#[component]
pub fn FormatCard(
    /// The format shown.
    id: FormatId,
) -> impl IntoView {
    let state = expect_context::<BitsState>();
    let described = Memo::new(move |_| describe(id, state.value.get(), state.overflow()));
    let bits = Signal::derive(move || described.get().bits);
    let on_toggle = Callback::new(move |p: u32| {
        state.set_pattern(id, bits.get_untracked() ^ (1 << (id.bits() - 1 - p)))
    });
    let selected = move || state.fmt.get() == id;
    let facts = FormatFacts::of(id);
    let errors = move || described.with(|d| error_text(d.abs_error, d.rel_error));
    view! {
        <article class="format-card" class:selected=selected data-testid=format!("card-{id}")>
            <header>
                <h3>{id.label()}</h3>
                <span class="meta">{format!("{} bits · ", facts.bits)}{with_terms(&facts.fields.replace('+', "\u{202f}+\u{202f}"))}</span>
                <button class="select" aria-pressed=move || selected().to_string()
                    data-testid=format!("select-{id}") on:click=move |_| state.select(id)>
                    {move || if selected() { "on the number line" } else { "show on number line" }}
                </button>
            </header>
            <BitRow id bits on_toggle />
            <dl class="readout">
                <dt>"stored"</dt>
                <dd class="mono exact" data-testid=format!("stored-{id}")>{move || described.get().stored_exact}</dd>
                <dt>"bits"</dt>
                <dd class="mono" data-testid=format!("hex-{id}")>{move || crate::ui::pages::bits::state::pattern_text(id, bits.get())}</dd>
                <dt>"error"</dt>
                <dd class="mono" data-testid=format!("abs-error-{id}")>{move || errors().0}</dd>
                <dt>"relative"</dt>
                <dd class="mono" data-testid=format!("rel-error-{id}")>{move || errors().1}</dd>
                <dt>"decoding"</dt>
                <dd class="mono" data-testid=format!("formula-{id}")>{move || described.get().formula}</dd>
            </dl>
            {move || described.with(|d| d.note.clone().map(|n| {
                // An integer format that rounded a fraction: quantization is the way to store it.
                let rounded = !d.overflowed && d.rel_error.is_some();
                let scale_link = (!id.is_float() && rounded).then(|| view! {
                    " "<a href="?tab=quant">"See it on the Quantize page"</a>"."
                });
                view! { <p class="card-note" data-testid=format!("note-{id}")>{with_terms(&n)}{scale_link}</p> }
            }))}
        </article>
    }
}
