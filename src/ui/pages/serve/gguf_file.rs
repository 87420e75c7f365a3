//! A llama.cpp `.gguf` file dropped or picked on the Serve page: only its header and tensor
//! index are read, through `File.slice` reads that grow as the parser asks (a 40 GB file costs a
//! few megabytes, and nothing leaves the browser). A file that is not GGUF, is truncated or
//! corrupt gets a message; what the page showed before stays.

use bitbudget_math::gguf::{next_read_len, parse, Gguf, FIRST_READ};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A GGUF header read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedGguf {
    /// The file's name.
    pub name: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Bytes read from its start.
    pub read: u64,
    /// `File.slice` reads it took.
    pub reads: u32,
    /// The header and tensor index.
    pub header: Gguf,
}

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
    on_load: Callback<LoadedGguf, Result<(), String>>,
    error: RwSignal<Option<String>>,
) {
    leptos::task::spawn_local(async move {
        match read_header(file).await {
            Ok(l) => {
                error.set(on_load.run(l).err());
            }
            Err(e) => error.set(Some(e)),
        }
    });
}

/// The drop zone with its file picker and the error: `on_load` gets each header read and may
/// refuse it with a message (shown, the page unchanged); `hint` says what the page does with it.
#[component]
pub fn GgufPicker(
    /// Takes a header read from a file, or says why it cannot.
    on_load: Callback<LoadedGguf, Result<(), String>>,
    /// What the page does with the file, under the picker.
    hint: &'static str,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let over = RwSignal::new(false);
    let on_pick = move |ev: leptos::ev::Event| {
        let input = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(input) = input {
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                load(file, on_load, error);
            }
            // Picking the same file again (after putting it away) fires `change` once more.
            input.set_value("");
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        over.set(false);
        let files = ev.data_transfer().and_then(|d| d.files());
        if let Some(file) = files.and_then(|f| f.get(0)) {
            load(file, on_load, error);
        }
    };
    view! {
        <div class="gguf-drop" class:over=over data-testid="gguf-drop"
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); over.set(true); }
            on:dragleave=move |_| over.set(false)
            on:drop=on_drop>
            <p>"Drop a llama.cpp "<code>".gguf"</code>" file here, or "
                <label>"pick one: "<input type="file" accept=".gguf" data-testid="gguf-input" on:change=on_pick /></label>
            </p>
            <p class="hint">{hint}</p>
        </div>
        {move || error.get().map(|e| view! { <p class="setup-error" role="alert" data-testid="gguf-error">{e}</p> })}
    }
}
