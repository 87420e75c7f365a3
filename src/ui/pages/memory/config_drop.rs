//! Any model from its Hugging Face `config.json`: paste it into the text area or drop the file on
//! it, and the Memory page sizes that architecture (read offline by the math crate's
//! `hf_config`). A config that cannot be read names the missing or bad field, and the model in
//! use stays.

use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::numbers::format_count;
use leptos::prelude::*;

/// The paste / drop area, its "Use this config" button and the outcome.
#[component]
pub fn ConfigDrop() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let (text, set_text) = signal(String::new());
    let (outcome, set_outcome) = signal(None::<Result<String, String>>);
    let load = move |t: String| {
        let mut q = state.query.get_untracked();
        match q.job.load_config(&t) {
            Ok(()) => {
                let params = q.to_setup().arch().map_or(0, |a| a.params());
                let name = q
                    .job
                    .config
                    .as_ref()
                    .map_or_else(String::new, |c| c.name.clone());
                state.set(|now| *now = q);
                set_outcome.set(Some(Ok(format!(
                    "Sizing {name}: {} parameters.",
                    format_count(params)
                ))));
            }
            Err(e) => set_outcome.set(Some(Err(format!("{e}. The model in use stays.")))),
        }
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        let file = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            leptos::task::spawn_local(async move {
                let read = wasm_bindgen_futures::JsFuture::from(file.text()).await;
                match read.ok().and_then(|v| v.as_string()) {
                    Some(t) => {
                        set_text.set(t.clone());
                        load(t);
                    }
                    None => set_outcome.set(Some(Err(
                        "The dropped file could not be read as text.".into(),
                    ))),
                }
            });
        }
    };
    let message = move || {
        outcome.get().map(|r| match r {
            Ok(m) => {
                view! { <p class="field-note" role="status" data-testid="config-message">{m}</p> }
                    .into_any()
            }
            Err(e) => {
                view! { <p class="setup-error" role="alert" data-testid="config-message">{e}</p> }
                    .into_any()
            }
        })
    };
    view! {
        <details class="config-drop" data-testid="config-drop">
            <summary>"Any model: paste or drop its config.json"</summary>
            <textarea rows="5" spellcheck="false" aria-label="Hugging Face config.json" data-testid="config-text"
                placeholder="Paste a Hugging Face config.json here, or drop the file"
                prop:value=move || text.get()
                on:input=move |ev| set_text.set(event_target_value(&ev))
                on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default()
                on:drop=on_drop></textarea>
            <button type="button" class="chip" data-testid="config-load" on:click=move |_| load(text.get_untracked())>"Use this config"</button>
            {message}
        </details>
    }
}
