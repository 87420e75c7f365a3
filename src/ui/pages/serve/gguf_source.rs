//! A GGUF file served on the Serve page: its header read into an architecture and its tensors
//! (llama.cpp places the file's real tensor sizes), the engine switched to llama.cpp. The file
//! stays in the page, not in the link; choosing a preset or pasting a config puts it away.

use crate::ui::pages::serve::gguf_file::{GgufPicker, LoadedGguf};
use crate::ui::pages::serve::ServeState;
use bitbudget_math::memory::model::arch::ModelArch;
use bitbudget_math::numbers::{format_bytes, human_bytes, Units};
use bitbudget_math::serve::kv::KvDtype;
use bitbudget_math::serve::tensor_placement::ModelFile;
use bitbudget_math::serve::{Checkpoint, Engine, ServeSetup};
use leptos::prelude::*;

/// A GGUF file read for serving.
#[derive(Clone, Debug, PartialEq)]
pub struct ServedFile {
    /// The model's name (`general.name`, else the file's).
    pub name: String,
    /// Its architecture as llama.cpp reads the header.
    pub arch: ModelArch,
    /// Its tensors.
    pub model: ModelFile,
    /// What was approximated in reading it.
    pub notes: Vec<String>,
    /// "read the first 4.2 MB of 18.6 GB (3 reads)": what reading the header took.
    pub read: String,
}

impl ServedFile {
    /// Reads a loaded header; errors say why the file cannot be served.
    pub fn read(l: &LoadedGguf) -> Result<ServedFile, String> {
        let (model, arch, notes) = ModelFile::from_gguf(&l.name, &l.header)?;
        let name = l
            .header
            .get("general.name")
            .and_then(|v| v.as_str())
            .unwrap_or(&l.name)
            .to_string();
        Ok(ServedFile {
            name,
            arch,
            model,
            notes,
            read: format!(
                "read the first {} of {} ({} read{}), the header and tensor index only",
                human_bytes(l.read),
                human_bytes(l.size),
                l.reads,
                if l.reads == 1 { "" } else { "s" }
            ),
        })
    }

    /// Puts the file in place of the setup's model.
    pub fn apply(&self, setup: &mut ServeSetup) {
        setup.arch = self.arch.clone();
        setup.model_id = self.name.clone();
        setup.model_file = Some(self.model.clone());
    }
}

/// The picker, and while a file is served, what it is and a way back to the preset.
#[component]
pub fn GgufSource() -> impl IntoView {
    let state = expect_context::<ServeState>();
    let on_load = Callback::new(move |l: LoadedGguf| {
        let served = ServedFile::read(&l)?;
        // The file is the model, on llama.cpp: what only other engines take goes back to its
        // default, so that no hidden knob can refuse the file.
        state.set(|q| {
            q.engine = Engine::LlamaCpp;
            q.arch = None;
            (q.tp, q.pp, q.dp, q.ep) = (1, 1, 1, false);
            q.dtype = Checkpoint::Bf16;
            if !q.kv.llama_cpp_only() {
                q.kv = KvDtype::Bf16;
            }
        });
        state.file.set(Some(served));
        Ok(())
    });
    let in_use = move || {
        state.file.with(|f| {
            f.as_ref().map(|f| {
                let size = format_bytes(f.model.bytes(), Units::Gib);
                let notes = f.notes.join("; ");
                view! {
                    <p class="field-note" data-testid="serve-gguf-in-use">
                        {format!("Serving {} from {} on llama.cpp: {size} ({}); {}. ", f.name, f.model.name, f.model.mix, f.read)}
                        {(!notes.is_empty()).then(|| format!("{notes}. "))}
                        "The link keeps the knobs, not the file. "
                        <button type="button" class="link-button" data-testid="serve-gguf-clear"
                            on:click=move |_| state.file.set(None)>"Serve the preset instead"</button>
                    </p>
                }
            })
        })
    };
    view! {
        <details class="config-drop" data-testid="serve-gguf">
            <summary>"Or a GGUF file, as llama.cpp loads it"</summary>
            <GgufPicker on_load hint="Only the header and tensor index are read, never the weights: nothing leaves your browser. llama.cpp places the file's own tensors, layer by layer, with the knobs below." />
        </details>
        {in_use}
    }
}
