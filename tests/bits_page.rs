//! Browser tests of the Bits page in headless Chromium: type a value, click a bit, change the
//! format, and check what is displayed.
#![cfg(target_arch = "wasm32")]

mod common;

use bitbudget_app::ui::pages::bits::BitsPage;
use bitbudget_app::ui::url_state::BitsQuery;
use bitbudget_math::format::FormatId;
use common::*;
use leptos::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn query(x: &str, fmt: FormatId) -> BitsQuery {
    BitsQuery {
        x: x.into(),
        fmt,
        saturate: false,
    }
}

#[wasm_bindgen_test]
async fn typing_a_value_updates_every_format() {
    let root = fresh_root();
    let _app = leptos::mount::mount_to(
        root.clone(),
        || view! { <BitsPage initial=query("0.1", FormatId::Bf16) /> },
    );
    settle().await;
    assert_eq!(text(&root, "stored-bf16"), "0.10009765625");
    assert_eq!(
        text(&root, "formula-bf16"),
        "(-1)^0 × 2^(123-127) × 1.6015625"
    );
    type_into(&root, "value-input", "-2.5");
    settle().await;
    assert_eq!(text(&root, "stored-f16"), "-2.5");
    assert_eq!(text(&root, "abs-error-f16"), "0 (exact)");
    assert_eq!(text(&root, "stored-int8"), "-2", "INT8 rounds ties to even");
    assert_eq!(text(&root, "stored-f4e2m1"), "-2");
    type_into(&root, "value-input", "1000");
    settle().await;
    assert_eq!(text(&root, "stored-f8e4m3"), "NaN");
    assert_eq!(text(&root, "stored-f8e5m2"), "1024");
}

#[wasm_bindgen_test]
async fn clicking_a_bit_flips_it_and_rewrites_the_value() {
    let root = fresh_root();
    let _app = leptos::mount::mount_to(
        root.clone(),
        || view! { <BitsPage initial=query("0.1", FormatId::Bf16) /> },
    );
    settle().await;
    by_testid(&root, "bit-bf16-0").click();
    settle().await;
    assert_eq!(text(&root, "stored-bf16"), "-0.10009765625");
    assert_eq!(text(&root, "hex-bf16"), "0xbdcd");
    let input: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&root, "value-input"));
    assert_eq!(input.value(), "0xbdcd");
    // The last mantissa bit of 0x3dcd is 1: clearing it gives 0x3dcc in every other format too.
    by_testid(&root, "bit-bf16-0").click();
    by_testid(&root, "bit-bf16-15").click();
    settle().await;
    assert_eq!(text(&root, "stored-f32"), "0.099609375");
}

#[wasm_bindgen_test]
async fn arrow_keys_move_between_bits() {
    let root = fresh_root();
    let _app = leptos::mount::mount_to(
        root.clone(),
        || view! { <BitsPage initial=query("1", FormatId::F16) /> },
    );
    settle().await;
    let first = by_testid(&root, "bit-f16-0");
    first.focus().unwrap();
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("ArrowRight");
    init.set_bubbles(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    first.dispatch_event(&ev).unwrap();
    let active = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .unwrap();
    assert_eq!(
        active.get_attribute("data-testid").as_deref(),
        Some("bit-f16-1")
    );
    assert_eq!(
        active.get_attribute("aria-pressed").as_deref(),
        Some("false"),
        "1.0 in FP16 is 0 01111 0000000000: the top exponent bit is clear"
    );
}

#[wasm_bindgen_test]
async fn changing_the_format_redraws_the_number_line() {
    let root = fresh_root();
    let _app = leptos::mount::mount_to(
        root.clone(),
        || view! { <BitsPage initial=query("0.1", FormatId::Bf16) /> },
    );
    settle().await;
    let (before, colours) = canvas_fingerprint(&root, "number-line");
    assert!(colours >= 4, "the number line is blank ({colours} colours)");
    by_testid(&root, "select-f8e4m3").click();
    settle().await;
    let (after, _) = canvas_fingerprint(&root, "number-line");
    assert_ne!(before, after, "the canvas did not change");
    assert!(by_testid(&root, "card-f8e4m3")
        .class_list()
        .contains("selected"));
    type_into(&root, "value-input", "0x7e");
    settle().await;
    assert_eq!(
        text(&root, "stored-f16"),
        "448",
        "0x7e is read as an E4M3 pattern"
    );
}

#[wasm_bindgen_test]
async fn invalid_text_shows_why_and_keeps_the_last_value() {
    let root = fresh_root();
    let _app = leptos::mount::mount_to(
        root.clone(),
        || view! { <BitsPage initial=query("0.1", FormatId::Bf16) /> },
    );
    settle().await;
    type_into(&root, "value-input", "banana");
    settle().await;
    assert!(text(&root, "value-error").contains("not a number"));
    assert_eq!(text(&root, "stored-bf16"), "0.10009765625");
    type_into(&root, "value-input", "1e400");
    settle().await;
    assert_eq!(text(&root, "stored-f32"), "+inf");
}
