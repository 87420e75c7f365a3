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

/// Replaces link clicks (how the app starts a download) with reading the linked file while it
/// still exists, so a test can see what would have been saved: `(file name, text)`.
fn capture_downloads() {
    js_sys::Function::new_no_args(
        "window.__downloads = [];
         HTMLAnchorElement.prototype.click = function () {
           const xhr = new XMLHttpRequest();
           xhr.open('GET', this.href, false);
           xhr.send();
           window.__downloads.push([this.download, xhr.responseText]);
         };",
    )
    .call0(&JsValue::NULL)
    .unwrap();
}

/// The last captured download as (file name, text).
fn last_download() -> (String, String) {
    let all: js_sys::Array =
        js_sys::Reflect::get(&web_sys::window().unwrap(), &"__downloads".into())
            .unwrap()
            .unchecked_into();
    let last: js_sys::Array = all.at(-1).unchecked_into();
    (
        last.get(0).as_string().unwrap(),
        last.get(1).as_string().unwrap(),
    )
}

#[wasm_bindgen_test]
async fn bits_download_is_the_cli_svg() {
    capture_downloads();
    let (root, _app) = mount_bits("0.1", FormatId::Bf16);
    settle().await;
    by_testid(&root, "bits-download-svg").click();
    settle().await;
    let (name, svg) = last_download();
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
    by_testid(&root, "download-svg").click();
    settle().await;
    let (name, svg) = last_download();
    assert!(name.ends_with(".svg"), "{name}");
    assert!(
        svg == include_str!("../fixtures/memory_llama3_8b_zero3_bar.svg"),
        "the download differs from the memory bar document:\n{svg}"
    );
}

/// Width and height of the PNG behind the last captured `data:` link.
fn last_png_size() -> (u32, u32) {
    let f = js_sys::Function::new_no_args(
        "const all = window.__downloads; const url = all[all.length - 1][2];
         const bytes = atob(url.split(',')[1]);
         const u32 = (i) => ((bytes.charCodeAt(i) << 24) | (bytes.charCodeAt(i + 1) << 16)
             | (bytes.charCodeAt(i + 2) << 8) | bytes.charCodeAt(i + 3)) >>> 0;
         return [u32(16), u32(20)];",
    );
    let size: js_sys::Array = f.call0(&JsValue::NULL).unwrap().unchecked_into();
    (
        size.get(0).as_f64().unwrap() as u32,
        size.get(1).as_f64().unwrap() as u32,
    )
}

#[wasm_bindgen_test]
async fn memory_png_download_is_the_titled_document_at_twice_the_size() {
    js_sys::Function::new_no_args(
        "window.__downloads = [];
         HTMLAnchorElement.prototype.click = function () {
           window.__downloads.push([this.download, '', this.href]);
         };",
    )
    .call0(&JsValue::NULL)
    .unwrap();
    let (root, _app) = mount_fixture_memory_page().await;
    by_testid(&root, "download-png").click();
    settle().await;
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
        last_png_size(),
        (2 * attr("width"), 2 * attr("height")),
        "the PNG is the SVG document (title, chart, caption) at 2x"
    );
}
