//! Chapter 13's second half: the spiral classifier trained twice in the browser, and its
//! accuracy after post-training quantization against quantization-aware training.

use bitbudget_math::learn::qat::{compare, Comparison, EPOCHS};
use leptos::prelude::*;

/// Seed of the data and the initial weights (the same as chapter 4's).
const SEED: u64 = 1;

fn percent(a: f32) -> String {
    format!("{:.1}%", a * 100.0)
}

/// A button that trains the classifier twice (FP32, then QAT at 4 bits) and the three
/// accuracies.
#[component]
pub fn QatWidget() -> impl IntoView {
    let result = RwSignal::new(None::<Comparison>);
    let run = move |_| result.set(Some(compare(4, SEED)));
    view! {
        <h4>"PTQ against QAT, trained here"</h4>
        <p>{format!("A 2 → 16 → 16 → 1 network learns to tell two spirals apart ({EPOCHS} steps of Adam). Trained in FP32 and rounded to 4 bits afterwards (PTQ), or trained with 4-bit fake quantization and a straight-through estimator (QAT):")}</p>
        <button type="button" class="chip" data-testid="learn-train" on:click=run>"Train both"</button>
        {move || result.get().map(|c| view! {
            <table class="learn-table">
                <thead><tr><th scope="col">"model"</th><th scope="col">"test accuracy"</th></tr></thead>
                <tbody>
                    <tr><th scope="row">"FP32"</th><td class="num" data-testid="learn-acc-float">{percent(c.float)}</td></tr>
                    <tr><th scope="row">"PTQ, 4-bit weights"</th><td class="num" data-testid="learn-acc-ptq">{percent(c.ptq)}</td></tr>
                    <tr><th scope="row">"QAT, 4-bit weights"</th><td class="num" data-testid="learn-acc-qat">{percent(c.qat)}</td></tr>
                </tbody>
            </table>
        })}
    }
}
