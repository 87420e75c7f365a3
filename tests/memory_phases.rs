//! Browser tests of the Memory page's framework-faithful options and the phase that sets the peak
//! (issue #13): the precision recipe, the optimizer implementation and the per-phase table.
#![cfg(target_arch = "wasm32")]

mod common;

use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use common::*;
use leptos::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Llama 3 8B trained on one GPU in pure BF16 with SDPA at 4096 tokens, as a link would open it.
const PURE_BF16: &str =
    "?tab=memory&model=llama-3-8b&precision=pure&flash-attention=1&seq=4096&gpu=h100-80gb";

fn mount(url: &str) -> (web_sys::HtmlElement, impl Sized) {
    let q = parse_query(url);
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let root = fresh_root();
    let memory = q.memory;
    let handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <MemoryPage initial=memory sync_url=false /> },
    );
    (root, handle)
}

fn bytes(root: &web_sys::HtmlElement, part: &str) -> u64 {
    by_testid(root, &format!("bytes-{part}"))
        .get_attribute("data-bytes")
        .unwrap()
        .parse()
        .unwrap()
}

#[wasm_bindgen_test]
async fn the_peak_phase_is_named_and_foreach_moves_it_to_the_optimizer_step() {
    let (root, _app) = mount(PURE_BF16);
    settle().await;
    // Pure BF16: 2 B weights, 2 B gradients, 4 B of BF16 moments; no master copy.
    assert_eq!(bytes(&root, "optimizer"), 2 * bytes(&root, "weights"));
    let peak = text(&root, "peak-phase");
    assert!(
        peak.starts_with("The peak is in the backward pass"),
        "{peak}"
    );
    assert_eq!(
        root.query_selector_all("[data-testid=phase-row]")
            .unwrap()
            .length(),
        3
    );
    choose(&root, "input-optimizer-step", "foreach");
    settle().await;
    let peak = text(&root, "peak-phase");
    assert!(
        peak.starts_with("The peak is in the optimizer step") && peak.contains("step temporaries"),
        "{peak}"
    );
}

#[wasm_bindgen_test]
async fn the_precision_recipe_moves_bytes_between_the_parts() {
    let (root, _app) = mount(PURE_BF16);
    settle().await;
    let pure_weights = bytes(&root, "weights");
    choose(&root, "input-precision", "autocast");
    settle().await;
    assert_eq!(bytes(&root, "weights"), 2 * pure_weights, "FP32 parameters");
    assert_eq!(
        bytes(&root, "gradients"),
        2 * pure_weights,
        "FP32 gradients"
    );
    choose(&root, "input-precision", "mixed");
    settle().await;
    assert_eq!(bytes(&root, "weights"), pure_weights);
    assert_eq!(
        bytes(&root, "optimizer"),
        6 * pure_weights,
        "FP32 master + m + v"
    );
}

#[wasm_bindgen_test]
async fn serving_shows_one_phase_and_no_phase_table() {
    let (root, _app) = mount("?tab=memory&model=llama-3-8b&mode=inference");
    settle().await;
    assert!(text(&root, "peak-phase").starts_with("The peak is in the forward pass"));
    assert!(!present(&root, "phases"));
}

#[wasm_bindgen_test]
async fn the_page_says_how_close_it_has_been_to_pytorch_for_the_nearest_setup() {
    use bitbudget_math::memory::validation::committed;
    let (root, _app) = mount(PURE_BF16);
    settle().await;
    let v = committed().as_ref().unwrap();
    let summary = text(&root, "validation-summary");
    assert!(
        summary.starts_with("Checked against PyTorch 2.")
            && summary.contains(&format!("of {} setups", v.rows.len())),
        "{summary}"
    );
    let nearest = v
        .rows
        .iter()
        .find(|r| r.name == "llama-3-8b-bf16-fused-sdpa")
        .unwrap();
    let expected = format!("{:+.1}%", nearest.error("total").unwrap() * 100.0);
    assert!(
        summary.contains(&format!(
            "nearest measured setup (llama-3-8b-bf16-fused-sdpa): {expected}"
        )),
        "{summary}"
    );
    assert_eq!(
        root.query_selector_all("[data-testid=validation-row]")
            .unwrap()
            .length() as usize,
        v.rows.len()
    );
    // Serving moves the nearest setup to a measured inference run.
    choose(&root, "input-mode", "inference");
    settle().await;
    assert!(
        text(&root, "validation-summary").contains("-infer-"),
        "{}",
        text(&root, "validation-summary")
    );
}
