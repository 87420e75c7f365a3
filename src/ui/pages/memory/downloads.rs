//! The download buttons: the chart (a 2x PNG and an SVG, both with a title and the setup in a
//! caption line) and the breakdown (CSV, JSON, the same JSON as the CLI's). The files are made by
//! the on-demand module of `pages::memory::files`, which starts loading when a pointer or the
//! focus reaches the buttons.

use crate::ui::pages::memory::files::{FileKind, DOWNLOAD, MODULE};
use crate::ui::pages::memory::state::MemoryState;
use crate::ui::shell::on_demand;
use leptos::prelude::*;

/// The download buttons; a failure is shown next to them.
#[component]
pub fn Downloads() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let (message, set_message) = signal(None::<String>);
    let offer = move |kind: FileKind| {
        set_message.set(None);
        let query = state.query.with_untracked(|q| q.to_query_string(false));
        leptos::task::spawn_local(async move {
            let args = [kind.extension().into(), query.into()];
            if let Err(e) = on_demand::call(MODULE, DOWNLOAD, &args).await {
                set_message.set(Some(format!(
                    "No {} file: {e}.",
                    kind.extension().to_uppercase()
                )));
            }
        });
    };
    let buttons = FileKind::ALL.map(|kind| {
        let ext = kind.extension();
        view! {
            <button class="chip" data-testid=format!("download-{ext}") on:click=move |_| offer(kind)>{ext.to_uppercase()}</button>
        }
    });
    view! {
        <div class="downloads" role="group" aria-label="Download"
            on:pointerenter=|_| on_demand::warm(MODULE) on:focusin=|_| on_demand::warm(MODULE)>
            <span>"Download"</span>
            {buttons}
            {move || message.get().map(|m| view! { <span class="field-error" role="alert">{m}</span> })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use crate::ui::pages::memory::query::MemoryQuery;
    use crate::ui::shell::query::parse_page_query;
    use bitbudget_charts::documents::{self, MemoryChart};
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The example setup, as in tests/browser/memory_page.rs.
    const EXAMPLE: &str = "?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb";

    /// The browser test `svg_downloads::memory_download_is_the_fixture` compares the page's SVG
    /// download with this fixture, which the CLI's tests keep equal to `memory ... --svg - --chart
    /// bar`; this holds the page's setup, read from its URL, to the same document.
    #[wasm_bindgen_test]
    fn memory_bar_fixture_is_the_document_for_the_example_setup() {
        let (shell, memory) = parse_page_query::<MemoryQuery>(EXAMPLE);
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        let svg = documents::memory(&memory.to_setup(), MemoryChart::Bar).unwrap();
        // The page's bar-only path draws the same document.
        assert_eq!(
            documents::memory_bar_document(&memory.to_setup()).unwrap(),
            svg
        );
        assert_eq!(
            svg,
            include_str!("../../../../tests/fixtures/memory_llama3_8b_zero3_bar.svg"),
            "the page's setup for {EXAMPLE} draws another bar than the CLI's for the same setup"
        );
    }
}
