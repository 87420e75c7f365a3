//! Browser tests of the Memory page in headless Chromium: numbers against the CLI's JSON, controls
//! that redraw and update the URL, hover explanations, and bad input.
#![cfg(target_arch = "wasm32")]

mod common;

use bitbudget_app::ui::memory_query::MemoryQuery;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use common::*;
use leptos::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The example URL; tests/fixtures/memory_llama3_8b_zero3.json is the CLI's JSON for the
/// same setup (a CLI test keeps it current).
const EXAMPLE: &str = "?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb";

fn bytes(root: &web_sys::HtmlElement, part: &str) -> u64 {
    by_testid(root, &format!("bytes-{part}"))
        .get_attribute("data-bytes")
        .unwrap()
        .parse()
        .unwrap()
}

fn mount(query: MemoryQuery, sync_url: bool) -> (web_sys::HtmlElement, impl Sized) {
    let root = fresh_root();
    let handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <MemoryPage initial=query sync_url /> },
    );
    (root, handle)
}

#[wasm_bindgen_test]
async fn numbers_match_the_cli_json() {
    let q = parse_query(EXAMPLE);
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let (root, _app) = mount(q.memory, false);
    settle().await;
    let cli: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/memory_llama3_8b_zero3.json")).unwrap();
    for part in [
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "kv_cache",
        "overhead",
        "total",
    ] {
        assert_eq!(
            bytes(&root, part),
            cli["per_gpu"][part].as_u64().unwrap(),
            "{part}"
        );
    }
    assert_eq!(text(&root, "bytes-total"), "42.39 GB");
    assert!(text(&root, "verdict").starts_with("Fits"));
}

#[wasm_bindgen_test]
async fn changing_a_control_redraws_and_updates_the_url() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, true);
    settle().await;
    let (before, colours) = canvas_fingerprint(&root, "memory-bar");
    assert!(colours >= 4, "the bar chart is blank");
    let (strategies_before, _) = canvas_fingerprint(&root, "strategies-chart");
    let weights = bytes(&root, "weights");
    type_into(&root, "input-dp", "16");
    settle().await;
    assert_eq!(
        bytes(&root, "weights"),
        weights.div_ceil(2),
        "ZeRO-3 over twice the GPUs halves the weights"
    );
    assert_ne!(
        canvas_fingerprint(&root, "memory-bar").0,
        before,
        "the bar did not redraw"
    );
    assert_ne!(
        canvas_fingerprint(&root, "strategies-chart").0,
        strategies_before,
        "the strategies chart did not redraw"
    );
    let search = web_sys::window().unwrap().location().search().unwrap();
    assert!(
        search.contains("dp=16") && search.contains("zero=3"),
        "{search}"
    );
}

#[wasm_bindgen_test]
async fn focusing_a_part_explains_its_formula() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, false);
    settle().await;
    by_testid(&root, "part-optimizer").focus().unwrap();
    settle().await;
    let explain = text(&root, "explain");
    assert!(
        explain.contains("4 B FP32 master + 8 B (FP32 m + v) × 8.03B params ÷ dp 8"),
        "{explain}"
    );
    assert!(by_testid(&root, "part-optimizer")
        .class_list()
        .contains("active"));
}

#[wasm_bindgen_test]
async fn invalid_input_keeps_the_last_valid_numbers() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, false);
    settle().await;
    let total = bytes(&root, "total");
    type_into(&root, "input-dp", "eight");
    settle().await;
    assert!(
        text(&root, "input-dp").is_empty(),
        "inputs have no text content"
    );
    assert_eq!(bytes(&root, "total"), total);
    assert!(root
        .query_selector(".field-error")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap()
        .contains("not a number"));
    type_into(&root, "input-tp", "3");
    settle().await;
    assert!(text(&root, "setup-error").contains("does not divide"));
    assert_eq!(
        bytes(&root, "total"),
        total,
        "charts keep the last valid setup"
    );
}

#[wasm_bindgen_test]
async fn the_suggestion_can_be_applied() {
    let (root, _app) = mount(MemoryQuery::default(), false);
    settle().await;
    assert!(
        text(&root, "verdict").starts_with("Does not fit"),
        "Llama 3 8B full training on one H100"
    );
    assert!(text(&root, "suggestion").contains("Smallest setup that fits"));
    by_testid(&root, "apply-suggestion").click();
    settle().await;
    assert!(
        text(&root, "verdict").starts_with("Fits"),
        "{}",
        text(&root, "verdict")
    );
}

#[wasm_bindgen_test]
async fn bad_url_parameters_show_a_note_and_defaults() {
    let window = web_sys::window().unwrap();
    let history = window.history().unwrap();
    history
        .replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some("?tab=memory&dp=zero&gpu=h1000&bogus=1"),
        )
        .unwrap();
    let root = fresh_root();
    let _app = leptos::mount::mount_to(root.clone(), bitbudget_app::App);
    settle().await;
    let notes = text(&root, "url-notes");
    assert!(
        notes.contains("dp") && notes.contains("h1000") && notes.contains("bogus"),
        "{notes}"
    );
    // The URL names memory options, so the rest are the option table's defaults (as on the CLI).
    let defaults = bitbudget_math::memory::estimate(&MemoryQuery::defaults().to_setup()).unwrap();
    assert_eq!(bytes(&root, "total"), defaults.total);
}

#[wasm_bindgen_test]
async fn every_download_is_produced_without_error() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, false);
    settle().await;
    for id in [
        "download-png",
        "download-svg",
        "download-csv",
        "download-json",
    ] {
        by_testid(&root, id).click();
        settle().await;
        let error = root.query_selector(".downloads .field-error").unwrap();
        assert!(
            error.is_none(),
            "{id}: {}",
            error.and_then(|e| e.text_content()).unwrap_or_default()
        );
    }
}
