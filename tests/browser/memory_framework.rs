//! Browser tests of the Memory page's framework-faithful options
//! (precision recipe, optimizer implementation), the phase that sets the peak with the per-phase
//! table, the "checked against PyTorch" panel, and any model from a pasted or dropped
//! config.json (a bad one names the missing field and the model in use stays).

use super::common::*;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use leptos::prelude::*;
use wasm_bindgen_test::*;

/// Llama 3 8B trained on one GPU in pure BF16 with SDPA at 4096 tokens, as a link would open it.
const PURE_BF16: &str =
    "?tab=memory&model=llama-3-8b&precision=pure&flash-attention=1&seq=4096&gpu=h100-80gb";

fn mount(url: &str) -> (web_sys::HtmlElement, impl Sized) {
    let q = parse_query(url);
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let memory = q.memory;
    mount_fresh(move || view! { <MemoryPage initial=memory sync_url=false /> })
}

fn bytes(root: &web_sys::HtmlElement, part: &str) -> u64 {
    part_bytes(root, part)
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
    // foreach's step temporaries (one more copy of the gradients) outgrow the backward pass's
    // activations once those are smaller: at 2048 tokens.
    type_into(&root, "input-seq", "2048");
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
    // The legend shows the parts at the peak (the backward pass, while gradients are still being
    // made), as the bar does: its rows add up to the total; every FP32 gradient is alive at the
    // optimizer step, the phase table's last row.
    let parts: u64 = bitbudget_math::memory::Part::ALL
        .iter()
        .map(|p| bytes(&root, p.key()))
        .sum();
    assert_eq!(parts, bytes(&root, "total"), "the legend adds up");
    assert!(bytes(&root, "gradients") < 2 * pure_weights);
    let rows = root.query_selector_all("[data-testid=phase-row]").unwrap();
    let step = rows
        .item(rows.length() - 1)
        .unwrap()
        .text_content()
        .unwrap();
    let fp32_gradients =
        bitbudget_math::numbers::format_bytes(2 * pure_weights, bitbudget_math::numbers::Units::Gb);
    assert!(
        step.starts_with("optimizer step") && step.contains(&fp32_gradients),
        "FP32 gradients ({fp32_gradients}) at the optimizer step: {step}"
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
async fn the_page_says_how_close_it_has_been_to_pytorch_for_the_nearest_setup() {
    use bitbudget_math::memory::report::validation::{
        committed, config_archs_json, signed_percent, RESULTS_JSON,
    };
    // The release build serves these next to the page (index.html copies them).
    serve_file("results.json", Some(RESULTS_JSON.as_bytes()));
    serve_file(
        "config_archs.json",
        Some(config_archs_json().unwrap().as_bytes()),
    );
    let (root, _app) = mount(PURE_BF16);
    for _ in 0..100 {
        if text(&root, "validation-summary").starts_with("Checked") {
            break;
        }
        settle().await;
    }
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
    // Part by part, as the CLI prints them: the activations' error as well as the total's.
    let pct = |part| signed_percent(nearest.error(part).unwrap());
    assert!(
        summary.contains(&format!(
            "nearest measured setup (llama-3-8b-bf16-fused-sdpa), part by part: weights {}",
            pct("weights")
        )) && summary.contains(&format!("activations {}", pct("activations")))
            && summary.ends_with(&format!("total {}", pct("total"))),
        "{summary}"
    );
    assert_eq!(
        root.query_selector_all("[data-testid=validation-row]")
            .unwrap()
            .length() as usize,
        v.rows.len()
    );
}

/// Llama 3.2 1B's published config.json: 1,235,814,400 parameters.
const LLAMA_1B: &str = include_str!("../../validation/configs/llama-3.2-1b.json");

fn weights(root: &web_sys::HtmlElement) -> u64 {
    part_bytes(root, "weights")
}

#[wasm_bindgen_test]
async fn a_pasted_config_becomes_the_model_and_a_bad_one_names_the_missing_field() {
    let (root, _app) = mount("?tab=memory&model=gpt2");
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

/// A control changed while the config reader still loads is kept: the config is read again into
/// the setup as it is then.
#[wasm_bindgen_test]
async fn a_change_made_while_the_config_reader_loads_is_kept() {
    let (root, _app) = mount("?tab=memory&model=gpt2&dp=2");
    settle().await;
    js_sys::eval(
        "const real = window.bitbudgetBoot.module;
         window.bitbudgetBoot.module = (name) => new Promise((r) => setTimeout(() => r(real(name)), 300));",
    )
    .unwrap();
    paste(&root, LLAMA_1B);
    settle().await;
    assert!(
        !present(&root, "config-message"),
        "the reader is still loading"
    );
    type_into(&root, "input-dp", "4");
    for _ in 0..100 {
        settle().await;
        if present(&root, "config-message") {
            break;
        }
    }
    assert!(text(&root, "config-message").contains("1.24B parameters"));
    assert_eq!(weights(&root), 2 * 1_235_814_400);
    let dp: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&root, "input-dp"));
    assert_eq!(dp.value(), "4", "the change made while the reader loaded");
}

#[wasm_bindgen_test]
async fn a_dropped_config_file_is_read_and_sized() {
    let (root, _app) = mount("?tab=memory&model=gpt2");
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

/// DeepSeek-V3's config.json (MoE, MLA, leading dense layers) as the project keeps it.
const DEEPSEEK_V3: &str =
    include_str!("../../crates/math/tests/fixtures/hf_configs/deepseek-v3.json");

/// A link to a pasted config is the same model: its MoE and MLA travel in the URL's `arch`.
#[wasm_bindgen_test]
async fn a_link_to_a_pasted_config_reproduces_its_report() {
    let memory = parse_query("?tab=memory&model=gpt2&gpu=h100-80gb&dp=64&zero=3").memory;
    let (root, _app) = mount_fresh(move || view! { <MemoryPage initial=memory sync_url=true /> });
    settle().await;
    paste(&root, DEEPSEEK_V3);
    settle().await;
    let pasted = (
        weights(&root),
        part_bytes(&root, "activations"),
        text(&root, "verdict"),
    );
    let url = address_bar().await;
    assert!(url.contains("arch=deepseek_v3."), "{url}");
    assert!(url.contains(".mla"), "{url}");
    let (again, _app2) = mount(&url);
    settle().await;
    assert_eq!(
        (
            weights(&again),
            part_bytes(&again, "activations"),
            text(&again, "verdict")
        ),
        pasted
    );
}
