//! The Quantize page's binary: install the panic hook and mount the app showing the lab. Its
//! JavaScript exports (the in-browser benchmark and the workers' switch) exist in this binary
//! only: an export is a root that every binary linking it would have to keep.

mod bench;

use wasm_bindgen::prelude::*;

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(
        bitbudget_app::app::<bitbudget_app::ui::pages::quant::query::QuantQuery>,
    );
}

/// Turns the lab's workers on or off for this page (the release build's benchmark compares both
/// paths in one run), as `window.wasmBindings.set_lab_workers(false)`.
#[wasm_bindgen]
pub fn set_lab_workers(on: bool) {
    bitbudget_app::ui::pages::quant::lab_workers::set_lab_workers(on);
}
