//! Which phase of the step sets the peak (forward, backward or optimizer step), with the parts
//! alive at each phase's peak: the sentence the CLI prints, and a table of the phases.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::activation::phases::PhaseParts;
use bitbudget_math::numbers::{format_bytes, Units};
use leptos::prelude::*;

/// The peak sentence and the per-phase table (shown when there is more than one phase).
#[component]
pub fn PeakPhase() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let units = move || state.query.with(|q| q.job.units);
    let sentence = move || {
        state.shown.with(|b| {
            b.as_ref()
                .and_then(|b| b.peak_parts())
                .map(|p| p.sentence(units()))
        })
    };
    let rows = move || {
        state.shown.with(|b| {
            b.as_ref().map_or_else(Vec::new, |b| {
                b.phases
                    .iter()
                    .map(|p| (p.clone(), p.phase == b.peak_phase))
                    .collect()
            })
        })
    };
    let training = move || rows().len() > 1;
    view! {
        <p class="peak-phase" data-testid="peak-phase">{sentence}</p>
        <Show when=training>
            <details class="phases" data-testid="phases">
                <summary>"What is alive in each phase"</summary>
                <div class="table-scroll">
                    <table class="facts">
                        <thead><tr>
                            <th scope="col">"Phase"</th><th scope="col">"Weights"</th><th scope="col">"Gradients"</th>
                            <th scope="col">"Optimizer"</th><th scope="col">"Activations"</th><th scope="col">"Step temporaries"</th><th scope="col">"Total"</th>
                        </tr></thead>
                        <tbody>
                            {move || rows().into_iter().map(|(p, top)| phase_row(p, top, units())).collect_view()}
                        </tbody>
                    </table>
                </div>
            </details>
        </Show>
    }
}

/// One phase's row; the peak's is marked.
fn phase_row(p: PhaseParts, top: bool, u: Units) -> impl IntoView {
    let b = move |bytes: u64| format_bytes(bytes, u);
    let name = if top {
        format!("{} (peak)", p.phase.label())
    } else {
        p.phase.label().to_string()
    };
    view! {
        <tr class:peak=top data-testid="phase-row">
            <th scope="row">{name}</th><td>{b(p.weights)}</td><td>{b(p.gradients)}</td><td>{b(p.optimizer)}</td>
            <td>{b(p.activations)}</td><td>{b(p.step_temporaries)}</td><td>{b(p.total)}</td>
        </tr>
    }
}
