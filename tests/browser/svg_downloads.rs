//! The app's SVG downloads are the same documents as the CLI's `--svg` output: each download is
//! compared byte for byte with a fixture that a unit test keeps equal to the CLI's (Bits) or the
//! shared document code's (Memory) output for the same state.

use super::common::*;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::format::FormatId;
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
async fn bits_download_is_the_cli_svg() {
    capture_downloads();
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    let (name, svg, _) = download_by(&root, "bits-download-svg").await;
    assert_eq!(name, "bitbudget-bf16-bits.svg");
    assert!(
        svg == include_str!("../fixtures/bits_bf16_0.1.svg"),
        "the download differs from `bitbudget bits --format bf16 0.1 --svg -`:\n{svg}"
    );
}

/// Mounts the Memory page in the state behind `fixtures/memory_llama3_8b_zero3_bar.svg` (the
/// CLI's `LLAMA3_8B_ZERO3` command line) into a fresh element and lets it render; the handle keeps
/// the page mounted.
async fn mount_fixture_memory_page() -> (web_sys::HtmlElement, impl Sized) {
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb");
    let memory = q.memory;
    let (root, app) = mount_fresh(move || view! { <MemoryPage initial=memory /> });
    settle().await;
    (root, app)
}

#[wasm_bindgen_test]
async fn memory_download_is_the_fixture() {
    capture_downloads();
    let (root, _app) = mount_fixture_memory_page().await;
    let (name, svg, _) = download_by(&root, "download-svg").await;
    assert!(name.ends_with(".svg"), "{name}");
    assert!(
        svg == include_str!("../fixtures/memory_llama3_8b_zero3_bar.svg"),
        "the download differs from the memory bar document:\n{svg}"
    );
}

/// Width and height of the PNG behind a `data:` URL.
fn png_size(url: &str) -> (u32, u32) {
    let f = js_sys::Function::new_with_args(
        "url",
        "const bytes = atob(url.split(',')[1]);
         const u32 = (i) => ((bytes.charCodeAt(i) << 24) | (bytes.charCodeAt(i + 1) << 16)
             | (bytes.charCodeAt(i + 2) << 8) | bytes.charCodeAt(i + 3)) >>> 0;
         return [u32(16), u32(20)];",
    );
    let size: js_sys::Array = f
        .call1(&JsValue::NULL, &url.into())
        .unwrap()
        .unchecked_into();
    (
        size.get(0).as_f64().unwrap() as u32,
        size.get(1).as_f64().unwrap() as u32,
    )
}

#[wasm_bindgen_test]
async fn memory_png_download_is_the_titled_document_at_twice_the_size() {
    capture_downloads();
    let (root, _app) = mount_fixture_memory_page().await;
    let (name, _, url) = download_by(&root, "download-png").await;
    assert!(name.ends_with(".png"), "{name}");
    let svg = include_str!("../fixtures/memory_llama3_8b_zero3_bar.svg");
    let attr = |name: &str| -> u32 {
        let key = format!("{name}=\"");
        let start = svg.find(&key).unwrap() + key.len();
        svg[start..start + svg[start..].find('"').unwrap()]
            .parse()
            .unwrap()
    };
    assert!(
        svg.contains("Memory per GPU: Llama 3 8B"),
        "the SVG has its title"
    );
    assert_eq!(
        png_size(&url),
        (2 * attr("width"), 2 * attr("height")),
        "the PNG is the SVG document (title, chart, caption) at 2x"
    );
}
