//! One click loads a training setup its authors published (`memory::model::published`): the
//! whole layout, precision and GPU, with the source under it.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::memory::model::published::{find_published, PUBLISHED};
use bitbudget_math::memory::Job;
use leptos::prelude::*;

/// A menu of published setups; choosing one applies its options and names its source.
#[component]
pub fn PublishedSelect() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let chosen = RwSignal::new(None::<&'static str>);
    let pick = move |ev: leptos::ev::Event| {
        let Some(p) = find_published(&event_target_value(&ev)) else {
            chosen.set(None);
            return;
        };
        // The pairs are the option table's own keys and values (a test keeps them valid); every
        // other option goes back to its default, so that the page shows the publication.
        if let Ok(job) = Job::from_pairs(p.pairs.iter().copied()) {
            state.set(|q| q.job = job);
        }
        chosen.set(Some(p.id));
    };
    let source = move || {
        chosen.get().and_then(find_published).map(|p| {
            let note = if p.note.is_empty() {
                String::new()
            } else {
                format!(" Here: {}.", p.note)
            };
            view! { <p class="field-note" data-testid="published-source">{format!("{}.{note}", p.source)}</p> }
        })
    };
    view! {
        <div class="field-box">
            <label for="field-published">"Published setup"</label>
            <select id="field-published" data-testid="input-published" on:change=pick>
                <option value="">"— choose to load it —"</option>
                {PUBLISHED.iter().map(|p| view! { <option value=p.id>{p.name}</option> }).collect_view()}
            </select>
            {source}
        </div>
    }
}
