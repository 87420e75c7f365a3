//! Browser tests of sizing any model from its Hugging Face config.json on the Memory page
//! (issue #13): pasted or dropped, a config becomes the model; a bad one names the missing field
//! and the model in use stays.
#![cfg(target_arch = "wasm32")]

mod common;

use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use common::*;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Llama 3.2 1B's published config.json: 1,235,814,400 parameters.
const LLAMA_1B: &str = include_str!("../validation/configs/llama-3.2-1b.json");

fn mount() -> (web_sys::HtmlElement, impl Sized) {
    let memory = parse_query("?tab=memory&model=gpt2").memory;
    let root = fresh_root();
    let handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <MemoryPage initial=memory sync_url=false /> },
    );
    (root, handle)
}

fn weights(root: &web_sys::HtmlElement) -> u64 {
    by_testid(root, "bytes-weights")
        .get_attribute("data-bytes")
        .unwrap()
        .parse()
        .unwrap()
}

fn paste(root: &web_sys::HtmlElement, text: &str) {
    let area: web_sys::HtmlTextAreaElement = by_testid(root, "config-text").unchecked_into();
    area.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    area.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    by_testid(root, "config-load").click();
}

#[wasm_bindgen_test]
async fn a_pasted_config_becomes_the_model_and_a_bad_one_names_the_missing_field() {
    let (root, _app) = mount();
    settle().await;
    let gpt2 = weights(&root);
    paste(&root, r#"{"model_type": "llama", "hidden_size": 2048}"#);
    settle().await;
    let message = text(&root, "config-message");
    assert!(
        message.contains("missing the field \"num_hidden_layers\""),
        "{message}"
    );
    assert_eq!(weights(&root), gpt2, "the previous model stays");
    paste(&root, LLAMA_1B);
    settle().await;
    // Mixed-precision BF16 weights: 2 B × 1,235,814,400.
    assert_eq!(weights(&root), 2 * 1_235_814_400);
    assert!(text(&root, "config-message").contains("1.24B parameters"));
}

#[wasm_bindgen_test]
async fn a_dropped_config_file_is_read_and_sized() {
    let (root, _app) = mount();
    settle().await;
    let area = by_testid(&root, "config-text");
    let drop = js_sys::Function::new_with_args(
        "el, text",
        "const dt = new DataTransfer(); dt.items.add(new File([text], 'config.json', {type: 'application/json'})); el.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));",
    );
    drop.call2(
        &wasm_bindgen::JsValue::NULL,
        &area,
        &wasm_bindgen::JsValue::from_str(LLAMA_1B),
    )
    .unwrap();
    for _ in 0..20 {
        settle().await;
        if weights(&root) == 2 * 1_235_814_400 {
            break;
        }
    }
    assert_eq!(weights(&root), 2 * 1_235_814_400);
}
