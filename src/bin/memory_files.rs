//! The Memory page's on-demand module (`pages::memory::files`): its downloads and its config
//! reader, which the page's own binary calls through the boot script (`ui::shell::on_demand`)
//! the first time a reader wants them. The exports' names are `files::DOWNLOAD` and
//! `files::READ_CONFIG`.

use bitbudget_app::ui::pages::memory::files;
use wasm_bindgen::prelude::wasm_bindgen;

fn main() {
    console_error_panic_hook::set_once();
}

/// Makes and offers the download `kind` (`png`, `svg`, `csv`, `json`) of the page whose URL query
/// is `query`; rejects with why there is none.
#[wasm_bindgen]
pub async fn download(kind: String, query: String) -> Result<(), String> {
    files::download(&kind, &query).await
}

/// Reads a `config.json` into the page whose URL query is `query`: `[new query, sentence]`;
/// throws why it cannot be read.
#[wasm_bindgen]
pub fn read_config(query: String, text: String) -> Result<Vec<String>, String> {
    files::read_config(&query, &text).map(|(q, said)| vec![q, said])
}
