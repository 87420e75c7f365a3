//! "Drop a .gguf file": reads only the header and tensor index of a llama.cpp model file through
//! `File.slice` reads that grow as the parser asks (a 40 GB file costs a few megabytes), and
//! shows what it needs on the page's GPU with the page's context. A file that is not GGUF, is
//! truncated or corrupt gets a message; what was shown before stays.

use crate::ui::pages::memory::loaded_gguf::LoadedGguf;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::gguf::{next_read_len, parse, FIRST_READ};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Reads `file`'s header: the first megabyte, then as much more as the parser asks.
async fn read_header(file: web_sys::File) -> Result<LoadedGguf, String> {
    let name = file.name();
    let size = file.size() as u64;
    let unreadable = || format!("{name}: the browser could not read the file");
    let (mut want, mut reads) = (FIRST_READ.min(size), 0);
    loop {
        let blob = file
            .slice_with_f64_and_f64(0.0, want as f64)
            .map_err(|_| unreadable())?;
        let buffer = JsFuture::from(blob.array_buffer())
            .await
            .map_err(|_| unreadable())?;
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        reads += 1;
        match parse(&bytes, Some(size)) {
            Ok(header) => {
                return Ok(LoadedGguf {
                    read: bytes.len() as u64,
                    name,
                    size,
                    reads,
                    header,
                })
            }
            Err(e) => match next_read_len(&e, size) {
                Some(n) => want = n,
                None => return Err(format!("{name}: {e}")),
            },
        }
    }
}

/// Reads `file` and shows it, or says why it cannot (keeping what was shown).
fn load(
    file: web_sys::File,
    loaded: RwSignal<Option<LoadedGguf>>,
    error: RwSignal<Option<String>>,
) {
    leptos::task::spawn_local(async move {
        match read_header(file).await {
            Ok(l) => {
                error.set(None);
                loaded.set(Some(l));
            }
            Err(e) => error.set(Some(e)),
        }
    });
}

/// The drop zone, the file picker and the error; the file read becomes the page's model
/// ([`MemoryState::gguf`]), summarised where the results are.
#[component]
pub fn GgufDrop() -> impl IntoView {
    let loaded = expect_context::<MemoryState>().gguf;
    let error = RwSignal::new(None::<String>);
    let over = RwSignal::new(false);
    let on_pick = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(file) = input.and_then(|i| i.files()).and_then(|f| f.get(0)) {
            load(file, loaded, error);
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        over.set(false);
        let files = ev.data_transfer().and_then(|d| d.files());
        if let Some(file) = files.and_then(|f| f.get(0)) {
            load(file, loaded, error);
        }
    };
    view! {
        <h3>"Will this GGUF fit?"</h3>
        <div class="gguf-drop" class:over=over data-testid="gguf-drop"
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); over.set(true); }
            on:dragleave=move |_| over.set(false)
            on:drop=on_drop>
            <p>"Drop a llama.cpp "<code>".gguf"</code>" file here, or "
                <label>"pick one: "<input type="file" accept=".gguf" data-testid="gguf-input" on:change=on_pick /></label>
            </p>
            <p class="hint">"Only the header and tensor index are read, never the weights: a 40 GB file costs a few megabytes and nothing leaves your browser. The context, KV-cache dtype, GPU and overhead come from the controls."</p>
        </div>
        {move || error.get().map(|e| view! { <p class="setup-error" role="alert" data-testid="gguf-error">{e}</p> })}
    }
}
