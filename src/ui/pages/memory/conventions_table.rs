//! The same setup's model states as the ZeRO paper, Megatron/Hugging Face and DeepSpeed count them.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::report::conventions::compare_conventions;
use bitbudget_math::numbers::format_bytes;
use leptos::prelude::*;

/// Conventions table.
#[component]
pub fn ConventionsTable() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let rows = Memo::new(move |_| state.setup.with(compare_conventions));
    let units = move || state.query.with(|q| q.job.units);
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Model states by convention">
            <table class="conventions stack-last" data-testid="conventions">
                <thead><tr><th scope="col">"convention"</th><th scope="col">"model states / GPU"</th><th scope="col">"CPU"</th><th scope="col">"why it differs"</th></tr></thead>
                <tbody>
                    {move || rows.get().into_iter().map(|r| {
                        // A number never wraps; a reason why the convention does not apply does.
                        let (states, class) = match &r.model_states {
                            Ok(b) => (format_bytes(*b, units()), "num"),
                            Err(e) => (format!("n/a: {e}"), "unavailable"),
                        };
                        view! {
                            <tr data-testid=format!("convention-{}", r.convention)>
                                <th scope="row">{r.convention.name()}</th>
                                <td class=class>{states}</td>
                                <td class="num">{if r.cpu > 0 { format_bytes(r.cpu, units()) } else { "—".into() }}</td>
                                <td class="why">{r.explanation}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
