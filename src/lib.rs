//! bitbudget-app: the Leptos (client-side rendered) explainer. The numbers come from
//! `bitbudget-math`; this crate only presents them. Each page is a binary of its own
//! (`src/bin/`), so a page or widget loads only its own code; `index.html`'s boot script picks
//! the binary for the URL (Memory's and Serve's widgets start with a lighter one: `ui::shell::light`).

#[cfg(not(target_arch = "wasm32"))]
compile_error!(
    "bitbudget-app is the browser app: build it for wasm32-unknown-unknown (`trunk build`, \
     `scripts/browser_tests.sh`); natively, `cargo test --workspace --exclude bitbudget-app` tests the other crates"
);

// Its unit tests run in headless Chromium, with the browser tests (scripts/browser_tests.sh).
#[cfg(test)]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

pub mod ui;

pub use ui::app::app;
