//! "Will this GGUF fit?" on the Memory page: the file read becomes the page's model
//! ([`MemoryState::gguf`]), summarised where the results are.

use crate::ui::components::gguf_file::GgufPicker;
use crate::ui::pages::memory::state::MemoryState;
use leptos::prelude::*;

/// The heading and the picker.
#[component]
pub fn GgufDrop() -> impl IntoView {
    let loaded = expect_context::<MemoryState>().gguf;
    view! {
        <h3>"Will this GGUF fit?"</h3>
        <GgufPicker on_load=Callback::new(move |l| {
            loaded.set(Some(l));
            Ok(())
        })
            hint="Only the header and tensor index are read, never the weights: a 40 GB file costs a few megabytes and nothing leaves your browser. The context, KV-cache dtype, GPU and overhead come from the controls." />
    }
}
