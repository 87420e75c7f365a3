//! Any model from its Hugging Face `config.json` (Memory and Serve): paste it into the text area
//! or drop the file on it; the page reads it through its `load` callback (offline, by the math
//! crate's `hf_config`). A config that cannot be read names the missing or bad field, and the
//! model in use stays.

use leptos::prelude::*;
use std::future::Future;
use std::pin::Pin;

/// A page's reading of a config's text: what it sized (`Ok`) or why it could not (`Err`), once
/// known (the Memory page reads configs in an on-demand module, which may still be loading).
pub type ConfigRead = Pin<Box<dyn Future<Output = Result<String, String>>>>;

/// The paste / drop area, its "Use this config" button and the outcome: `load` gets the text and
/// answers what it sized (`Ok`, shown as a status) or why it could not (`Err`, shown as an alert,
/// with "The model in use stays.").
#[component]
pub fn ConfigPaste(
    /// Reads a config's text into the page's state.
    load: Callback<String, ConfigRead>,
    /// Called when a pointer or the focus reaches the area (the page may start loading its
    /// reader).
    #[prop(optional)]
    warm: Option<Callback<()>>,
) -> impl IntoView {
    let (text, set_text) = signal(String::new());
    let (outcome, set_outcome) = signal(None::<Result<String, String>>);
    let use_text = move |t: String| {
        let reading = load.run(t);
        leptos::task::spawn_local(async move {
            let read = reading.await;
            set_outcome.set(Some(
                read.map_err(|e| format!("{e}. The model in use stays.")),
            ));
        });
    };
    let warm = move || {
        if let Some(w) = warm {
            w.run(());
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
                        use_text(t);
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
        <details class="config-drop" data-testid="config-drop" on:pointerenter=move |_| warm() on:focusin=move |_| warm()>
            <summary>"Any model: paste or drop its config.json"</summary>
            <textarea rows="5" spellcheck="false" aria-label="Hugging Face config.json" data-testid="config-text"
                placeholder="Paste a Hugging Face config.json here, or drop the file"
                prop:value=move || text.get()
                on:input=move |ev| set_text.set(event_target_value(&ev))
                on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default()
                on:drop=on_drop></textarea>
            <button type="button" class="chip" data-testid="config-load" on:click=move |_| use_text(text.get_untracked())>"Use this config"</button>
            {message}
        </details>
    }
}
