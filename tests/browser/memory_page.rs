//! Browser tests of the Memory page in headless Chromium: numbers against the CLI's JSON, controls
//! that redraw and update the URL, hover explanations, and bad input.

use super::common::*;
use bitbudget_app::ui::pages::memory::query::MemoryQuery;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use leptos::prelude::*;
use wasm_bindgen_test::*;

/// The example URL; tests/fixtures/memory_llama3_8b_zero3.json is the CLI's JSON for the
/// same setup (a CLI test keeps it current).
const EXAMPLE: &str = "?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb";

fn bytes(root: &web_sys::HtmlElement, part: &str) -> u64 {
    part_bytes(root, part)
}

fn mount(query: MemoryQuery, sync_url: bool) -> (web_sys::HtmlElement, impl Sized) {
    mount_fresh(move || view! { <MemoryPage initial=query sync_url /> })
}

#[wasm_bindgen_test]
async fn numbers_match_the_cli_json() {
    let q = parse_query(EXAMPLE);
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let (root, _app) = mount(q.memory, false);
    settle().await;
    let cli: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/memory_llama3_8b_zero3.json")).unwrap();
    let parts = bitbudget_math::memory::Part::ALL.map(|p| p.key());
    for part in parts.into_iter().chain(["total"]) {
        assert_eq!(
            bytes(&root, part),
            cli["per_gpu"][part].as_u64().unwrap(),
            "{part}"
        );
    }
    assert_text_is(&root, "bytes-total", "42.39 GB");
    assert_text_starts(&root, "verdict", "Fits");
}

/// A chart far below the window is not redrawn on every change, only once it comes near the view.
#[wasm_bindgen_test]
async fn a_chart_out_of_view_is_redrawn_when_it_comes_into_view() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, false);
    settle().await;
    let window = web_sys::window().unwrap();
    window.scroll_to_with_x_and_y(0.0, 0.0);
    sleep(100).await;
    let chart = by_testid(&root, "scaling-chart");
    let below =
        chart.get_bounding_client_rect().top() - window.inner_height().unwrap().as_f64().unwrap();
    assert!(
        below > 600.0,
        "the scaling chart should start well below the window ({below} px)"
    );
    let before = canvas_fingerprint(&root, "scaling-chart").0;
    choose(&root, "input-model", "llama-3-70b");
    settle().await;
    assert_eq!(
        canvas_fingerprint(&root, "scaling-chart").0,
        before,
        "redrawn out of view"
    );
    scroll_into_view(&root, "scaling-chart").await;
    assert_ne!(
        redrawn(&root, "scaling-chart", before).await,
        before,
        "not redrawn in view"
    );
    window.scroll_to_with_x_and_y(0.0, 0.0);
}

#[wasm_bindgen_test]
async fn changing_a_control_redraws_and_updates_the_url() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, true);
    settle().await;
    let (before, colours) = canvas_fingerprint(&root, "memory-bar");
    assert!(colours >= 4, "the bar chart is blank");
    scroll_into_view(&root, "strategies-chart").await;
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
        redrawn(&root, "strategies-chart", strategies_before).await,
        strategies_before,
        "the strategies chart did not redraw"
    );
    scroll_into_view(&root, "memory-bar").await;
    assert_ne!(
        redrawn(&root, "memory-bar", before).await,
        before,
        "the bar did not redraw"
    );
    let search = address_bar().await;
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
    assert_has(
        &explain,
        "4 B FP32 master + 8 B (FP32 m + v) × 8.03B params ÷ dp 8",
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
    assert_text_has(&root, "setup-error", "does not divide");
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
    assert_text_has(&root, "suggestion", "On the same 8 GPUs");
    by_testid(&root, "apply-SameGpus").click();
    settle().await;
    assert_text_starts(&root, "verdict", "Fits");
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
    let _app = leptos::mount::mount_to(root.clone(), bitbudget_app::app::<MemoryQuery>);
    settle().await;
    let notes = text(&root, "url-notes");
    assert!(
        notes.contains("data-parallel degree")
            && notes.contains("h1000")
            && notes.contains("bogus"),
        "{notes}"
    );
    // The URL names memory options, so the rest are the option table's defaults (as on the CLI).
    let defaults = bitbudget_math::memory::estimate(&MemoryQuery::defaults().to_setup()).unwrap();
    assert_eq!(bytes(&root, "total"), defaults.total);
}

/// Each download comes from the page's files module, named for the setup, with its content.
#[wasm_bindgen_test]
async fn every_download_is_produced_with_its_content() {
    capture_downloads();
    let (root, _app) = mount(parse_query(EXAMPLE).memory, false);
    settle().await;
    let stem = "bitbudget-llama-3-8b-train-zero3-dp8";
    let (name, _, url) = download_by(&root, "download-png").await;
    assert_eq!(name, format!("{stem}.png"));
    assert!(url.starts_with("data:image/png;base64,"), "{url:.40}");
    let (name, svg, _) = download_by(&root, "download-svg").await;
    assert_eq!(name, format!("{stem}.svg"));
    assert!(svg.starts_with("<svg"), "{svg:.80}");
    let (name, csv, _) = download_by(&root, "download-csv").await;
    assert_eq!(name, format!("{stem}.csv"));
    let total = bitbudget_math::memory::estimate(&parse_query(EXAMPLE).memory.to_setup())
        .unwrap()
        .total;
    assert!(
        csv.contains(&format!("\ntotal,{total},,\n")),
        "the CSV has the total {total}:\n{csv}"
    );
    let (name, json, _) = download_by(&root, "download-json").await;
    assert_eq!(name, format!("{stem}.json"));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["per_gpu"]["total"].as_u64(), Some(total), "{json:.200}");
}

fn value(root: &web_sys::HtmlElement, id: &str) -> String {
    use wasm_bindgen::JsCast;
    let el = by_testid(root, id);
    match el.dyn_ref::<web_sys::HtmlSelectElement>() {
        Some(s) => s.value(),
        None => el.unchecked_into::<web_sys::HtmlInputElement>().value(),
    }
}

fn disabled(root: &web_sys::HtmlElement, id: &str) -> bool {
    by_testid(root, id).has_attribute("disabled")
}

/// The QLoRA case: the advice tries recomputation (QLoRA and FlashAttention are already
/// on and never suggested), and "Apply" makes exactly that change.
#[wasm_bindgen_test]
async fn qlora_70b_advice_recomputes_and_apply_makes_exactly_that_change() {
    let q = parse_query(
        "?tab=memory&model=llama-3-70b&mode=qlora&gpu=a100-80gb&dp=2&flash-attention=1&seq=4096",
    )
    .memory;
    let (root, _app) = mount(q, false);
    settle().await;
    let advice = text(&root, "suggestion");
    assert_has(&advice, "On the same 2 GPUs: full recomputation");
    assert_has(&advice, "Fewest GPUs: 1 × NVIDIA A100 80GB");
    assert!(
        !advice.contains("FlashAttention") && !advice.contains("QLoRA"),
        "{advice}"
    );
    by_testid(&root, "apply-SameGpus").click();
    settle().await;
    assert_text_starts(&root, "verdict", "Fits");
    assert_eq!(value(&root, "input-recompute"), "full");
    assert_eq!(value(&root, "input-dp"), "2", "the same GPUs");
}

/// Serving is the Serve page's: the mode offers training and fine-tuning only, and the page links
/// there with its model and GPU.
#[wasm_bindgen_test]
async fn serving_is_offered_on_the_serve_page_with_this_model_and_gpu() {
    let q = parse_query("?tab=memory&model=llama-3-70b&gpu=a100-80gb").memory;
    let (root, _app) = mount(q, false);
    settle().await;
    let modes: Vec<String> = {
        let options = by_testid(&root, "input-mode")
            .query_selector_all("option")
            .unwrap();
        (0..options.length())
            .map(|i| options.item(i).unwrap().text_content().unwrap())
            .collect()
    };
    assert_eq!(modes, ["train", "lora", "qlora"]);
    let link = by_testid(&root, "serve-link")
        .query_selector("a")
        .unwrap()
        .unwrap()
        .get_attribute("href")
        .unwrap();
    assert!(
        link.starts_with("?tab=serve&model=llama-3-70b&gpu=a100-80gb&len="),
        "{link}"
    );
}

/// Typing "70b" in the filter used to show Llama 2 70B in the select while the numbers stayed
/// Llama 3 8B: the select keeps showing the model in use, and an empty result says so.
#[wasm_bindgen_test]
async fn the_model_filter_never_shows_a_model_that_is_not_in_use() {
    use wasm_bindgen::JsCast;
    let (root, _app) = mount(MemoryQuery::default(), false);
    settle().await;
    type_into(&root, "model-filter", "70b");
    settle().await;
    let select: web_sys::HtmlSelectElement = by_testid(&root, "input-model").unchecked_into();
    assert_eq!(select.value(), "llama-3-8b");
    let shown = select
        .query_selector("option:checked")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert!(shown.starts_with("Llama 3 8B"), "{shown}");
    assert_text_has(&root, "model-filter-note", "models match");
    type_into(&root, "model-filter", "zzz");
    settle().await;
    // A filter that finds nothing points to the config paste.
    assert_text_has(&root, "model-filter-note", "No preset matches");
    assert_text_has(&root, "model-filter-note", "config.json");
    type_into(&root, "model-filter", "27b");
    settle().await;
    assert_text_has(&root, "model-filter-note", "1 model matches");
}

/// Options that do not apply are disabled with a reason: the adapters' options outside LoRA, the
/// weights dtype under QLoRA; int4 cannot be picked for full training.
#[wasm_bindgen_test]
async fn options_that_do_not_apply_are_disabled_with_a_reason() {
    let (root, _app) = mount(MemoryQuery::default(), false);
    settle().await;
    assert!(!disabled(&root, "input-dtype"));
    let int4 = by_testid(&root, "input-dtype")
        .query_selector("option[value='int4']")
        .unwrap()
        .unwrap();
    assert!(int4.has_attribute("disabled"), "int4 for full training");
    choose(&root, "input-mode", "qlora");
    settle().await;
    assert!(disabled(&root, "input-dtype"));
    assert_text_has(&root, "why-dtype", "NF4");
}

/// From a link, full training with int4 weights used to show "showing the last valid setup" with
/// 0.00 GB: it now opens on BF16 with a note, and real numbers.
#[wasm_bindgen_test]
async fn a_link_training_with_int4_weights_opens_on_bf16_with_a_note() {
    let q = parse_query("?tab=memory&model=llama-3-8b&dtype=int4&gpu=h100-80gb").memory;
    let (root, _app) = mount(q, false);
    settle().await;
    assert!(
        !present(&root, "setup-error"),
        "{}",
        text(&root, "setup-error")
    );
    let note = text(&root, "settled-note");
    assert!(note.contains("int4") && note.contains("bf16"), "{note}");
    assert_eq!(value(&root, "input-dtype"), "bf16");
    assert!(bytes(&root, "total") > 16_000_000_000);
}

/// QLoRA adapts every linear layer by default (~207M adapters on 70B at rank 16, as the paper);
/// the checkboxes are bound to the lora-targets option and the count follows them.
#[wasm_bindgen_test]
async fn lora_targets_are_shown_chosen_and_counted() {
    use wasm_bindgen::JsCast;
    let q = parse_query("?tab=memory&model=llama-3-70b&mode=qlora&gpu=a100-80gb").memory;
    let (root, _app) = mount(q, true);
    settle().await;
    assert_text_starts(&root, "adapter-count", "207.1M");
    let mlp: web_sys::HtmlInputElement = by_testid(&root, "lora-target-mlp").unchecked_into();
    assert!(mlp.checked());
    mlp.click();
    settle().await;
    assert!(!text(&root, "adapter-count").starts_with("207.1M"));
    let search = address_bar().await;
    assert_has(&search, "lora-targets=q,k,v,o");
}

/// Jargon has an explanation that keyboard users reach: the "?" button is described by it.
#[wasm_bindgen_test]
async fn jargon_is_explained_on_focus_through_an_accessible_description() {
    let (root, _app) = mount(MemoryQuery::default(), false);
    settle().await;
    for id in ["parallel", "sharding"] {
        let button = by_testid(&root, &format!("jargon-{id}"));
        let tip = button.get_attribute("aria-describedby").unwrap();
        let tip = web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .get_element_by_id(&tip)
            .unwrap();
        assert!(tip.text_content().unwrap().len() > 40, "{id}");
    }
    assert_text_has(&root, "strategies-key", "+off");
    let recompute = root
        .query_selector("label[for='field-recompute']")
        .unwrap()
        .unwrap();
    assert!(recompute
        .text_content()
        .unwrap()
        .contains("gradient checkpointing"));
}

/// At 390 px (a phone) the verdict comes before the controls: its top is within the first
/// viewport (844 px) with room for the app's header. The page is mounted in a 390 × 844 iframe
/// with the app's stylesheet, so the media queries see a phone.
#[wasm_bindgen_test]
async fn at_390_px_the_verdict_is_in_the_first_viewport() {
    let (root, _app) = mount_in_frame(390, 844, || {
        view! { <MemoryPage initial=MemoryQuery::default() /> }
    })
    .await;
    let verdict = by_testid(&root, "verdict").get_bounding_client_rect();
    let controls = root
        .query_selector("form.controls")
        .unwrap()
        .unwrap()
        .get_bounding_client_rect();
    assert!(
        verdict.top() + 150.0 < 844.0,
        "verdict at {} px",
        verdict.top()
    );
    assert!(
        verdict.top() < controls.top(),
        "verdict {} vs controls {}",
        verdict.top(),
        controls.top()
    );
}

/// The strategy and scaling charts have their numbers in tables under them (a text alternative
/// reachable by keyboard and screen reader): one row per strategy, per-GPU sizes with units, and
/// the fewest GPUs that fit.
#[wasm_bindgen_test]
async fn the_numbers_behind_the_strategy_and_scaling_charts_are_tables() {
    let (root, _app) = mount(MemoryQuery::default(), false);
    settle().await;
    let strategies = by_testid(&root, "strategies-numbers");
    let rows = strategies.query_selector_all("tbody tr").unwrap();
    assert_eq!(rows.length(), 7);
    let all = strategies.text_content().unwrap();
    assert!(all.contains("DDP") && all.contains(" GB"), "{all}");
    assert!(
        all.contains("does not fit") && all.contains("fits"),
        "{all}"
    );
    let scaling = by_testid(&root, "scaling-numbers");
    assert_eq!(scaling.query_selector_all("tbody tr").unwrap().length(), 4);
    assert!(scaling.text_content().unwrap().contains(" GPUs"));
}

/// An FP8 recipe from the precision menu: the weights' line lists the 16-bit weights and the FP8
/// copies (explained on focus, naming the framework it follows), the activations shrink, the FP8
/// all-gather is off until the optimizer is sharded, and an FP8 dtype in a link becomes BF16 with
/// a recipe and a note.
#[wasm_bindgen_test]
async fn an_fp8_recipe_lists_its_copies_and_explains_them() {
    let (root, _app) = mount(parse_query(EXAMPLE).memory, false);
    settle().await;
    let activations_bf16 = bytes(&root, "activations");
    choose(&root, "input-precision", "fp8-delayed");
    settle().await;
    by_testid(&root, "part-weights").focus().unwrap();
    settle().await;
    let explain = text(&root, "explain");
    assert_has(&explain, "2 × 1 B FP8 (both orientations)");
    assert_has(&explain, "amax histories");
    assert_has(&explain, "Transformer Engine");
    assert!(bytes(&root, "activations") < activations_bf16);
    assert!(!disabled(&root, "input-fp8-param-gather"));
    choose(&root, "input-zero", "0");
    settle().await;
    assert!(disabled(&root, "input-fp8-param-gather"));
    assert_text_has(&root, "why-fp8-param-gather", "sharded optimizer");
    choose(&root, "input-precision", "mixed");
    settle().await;
    assert!(disabled(&root, "input-fp8-param-gather"));
    // The report's notes, as the CLI prints them: MXFP8 on an H100.
    choose(&root, "input-precision", "mxfp8");
    settle().await;
    assert_text_has(&root, "report-notes", "The mxfp8 recipe needs Blackwell");
    assert_text_has(
        &root,
        "report-notes",
        "The mxfp8 recipe follows Transformer Engine",
    );

    let q = parse_query("?tab=memory&model=llama-3-8b&dtype=fp8&gpu=b200").memory;
    let (root, _app) = mount(q, false);
    settle().await;
    assert!(
        !present(&root, "setup-error"),
        "{}",
        text(&root, "setup-error")
    );
    assert_text_has(&root, "settled-note", "fp8-current");
    assert_eq!(value(&root, "input-dtype"), "bf16");
    assert_eq!(value(&root, "input-precision"), "fp8-current");
}

/// A link that does not mention the attention kernel gets fused attention, as Transformers,
/// Megatron-LM and the serving engines run by default; eager attention is one click away and
/// keeps the s×s scores.
#[wasm_bindgen_test]
async fn fused_attention_is_the_default_and_eager_is_one_click_away() {
    let q = parse_query("?tab=memory&model=llama-3-8b&seq=8192&batch=4&gpu=h100-80gb").memory;
    let (root, _app) = mount(q, false);
    settle().await;
    let checkbox: web_sys::HtmlInputElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&root, "input-flash-attention"));
    assert!(checkbox.checked());
    let fused = bytes(&root, "activations");
    set_checked(&root, "input-flash-attention", false);
    settle().await;
    let eager = bytes(&root, "activations");
    assert!(eager > 5 * fused, "eager {eager} vs fused {fused}");
    by_testid(&root, "part-activations").focus().unwrap();
    settle().await;
    assert_has(&text(&root, "explain"), "s×s attention scores");
}

/// At 390 px the conventions table needs no sideways swipe: its explanations go under their rows.
#[wasm_bindgen_test]
async fn at_390_px_the_conventions_table_fits_without_a_sideways_swipe() {
    let (root, _app) = mount_in_frame(390, 844, || {
        view! { <MemoryPage initial=MemoryQuery::default() /> }
    })
    .await;
    let table = by_testid(&root, "conventions");
    let scroller = table.parent_element().unwrap();
    assert!(
        scroller.scroll_width() <= scroller.client_width(),
        "{} > {}",
        scroller.scroll_width(),
        scroller.client_width()
    );
}

/// Context parallelism divides the activations; expert parallelism the routed experts; both
/// travel in the URL, and a layout that cannot run says why.
#[wasm_bindgen_test]
async fn context_and_expert_parallel_fields_change_the_numbers_and_the_link() {
    let q = parse_query(
        "?tab=memory&model=llama-3-70b&tp=8&sequence-parallel=1&seq=65536&gpu=h100-80gb",
    );
    let (root, _app) = mount(q.memory, false);
    settle().await;
    let activations = bytes(&root, "activations");
    type_into(&root, "input-cp", "4");
    settle().await;
    let ratio = activations as f64 / bytes(&root, "activations") as f64;
    assert!(
        (ratio - 4.0).abs() < 0.01,
        "cp 4 divides the activations by {ratio}"
    );
    by_testid(&root, "part-activations").focus().unwrap();
    settle().await;
    assert_text_has(&root, "explain", "context parallel: 65536 tokens ÷ cp 4");
    type_into(&root, "input-cp", "3");
    settle().await;
    assert_text_has(&root, "setup-error", "divisible by 2 × cp = 6");

    let q = parse_query("?tab=memory&model=mixtral-8x7b&dp=8&gpu=h100-80gb");
    let (root, _app) = mount(q.memory, true);
    settle().await;
    let weights = bytes(&root, "weights");
    type_into(&root, "input-ep", "8");
    settle().await;
    assert!(
        bytes(&root, "weights") < weights / 3,
        "ep 8 holds an eighth of the experts"
    );
    by_testid(&root, "part-weights").focus().unwrap();
    settle().await;
    assert_text_has(&root, "explain", "in experts ÷ ep 8");
    let href = address_bar().await;
    assert!(href.contains("ep=8"), "{href}");
    choose(&root, "input-etp", "2");
    settle().await;
    assert_text_has(&root, "setup-error", "must divide the 8 GPUs");
    choose(&root, "input-etp", "auto");
    type_into(&root, "input-ep", "3");
    settle().await;
    assert_text_has(&root, "setup-error", "does not divide the 8 routed experts");
}

/// The parallel layout appears with more than one GPU, and choosing a GPU says what it holds.
#[wasm_bindgen_test]
async fn the_parallel_layout_says_what_each_gpu_holds() {
    let q = parse_query("?tab=memory&model=mixtral-8x7b&dp=8&pp=2&ep=4&gpu=h100-80gb");
    let (root, _app) = mount(q.memory, false);
    settle().await;
    assert_text_has(&root, "layout-holds", "GPU 1 of 16: node 1, GPU 1 in it");
    assert_text_has(
        &root,
        "layout-holds",
        "pipeline stage 1 of 2: layers 1–16 of 32, the token embedding",
    );
    assert_text_has(&root, "layout-holds", "routed experts 1–2 of 8");
    scroll_into_view(&root, "layout-chart").await;
    let (before, colours) = canvas_fingerprint(&root, "layout-chart");
    assert!(
        colours >= 4,
        "the grid is drawn in its groups' colours ({colours} colours)"
    );
    type_into(&root, "layout-gpu", "16");
    settle().await;
    assert_ne!(
        redrawn(&root, "layout-chart", before).await,
        before,
        "the grid follows the choice"
    );
    assert_text_has(&root, "layout-holds", "GPU 16 of 16: node 2, GPU 8 in it");
    assert_text_has(
        &root,
        "layout-holds",
        "layers 17–32 of 32, the output layer and loss",
    );
    assert_text_has(&root, "layout-holds", "routed experts 7–8 of 8");
    // Out of range: the choice stays.
    type_into(&root, "layout-gpu", "99");
    settle().await;
    assert_text_has(&root, "layout-holds", "GPU 16 of 16");
    // One GPU: no grid.
    let (root, _app) = mount(
        parse_query("?tab=memory&model=llama-3-8b&gpu=h100-80gb").memory,
        false,
    );
    settle().await;
    assert!(!present(&root, "parallel-layout"));
}

/// A published setup loads in one click, with its source, and the grid shows its layout.
#[wasm_bindgen_test]
async fn a_published_setup_loads_in_one_click() {
    let (root, _app) = mount(
        parse_query("?tab=memory&model=llama-3-8b&recompute=full").memory,
        false,
    );
    settle().await;
    choose(&root, "input-published", "deepseek-v3");
    settle().await;
    assert_text_has(&root, "published-source", "DeepSeek-V3 Technical Report");
    assert_eq!(value(&root, "input-ep"), "64");
    assert_eq!(value(&root, "input-pp"), "16");
    assert_text_has(&root, "layout-holds", "GPU 1 of 2048");
    assert_text_has(&root, "layout-holds", "routed experts 1–4 of 256");
    // The rest of the job is the publication's, not what was set before.
    assert_eq!(value(&root, "input-recompute"), "none");
}

/// On a phone the controls follow the results: while they are changed, the verdict stays at the
/// top of the screen in one line (the same rounding as the sentence), and "Results ↑" goes back.
/// On a wide screen, where the controls sit beside the results, there is no strip.
#[wasm_bindgen_test]
async fn at_390_px_the_verdict_stays_in_view_while_the_controls_change_it() {
    let q = parse_query("?tab=memory&model=llama-3-8b&gpu=rtx-4090");
    let (root, _app) =
        mount_in_frame(390, 844, move || view! { <MemoryPage initial=q.memory /> }).await;
    let dp = by_testid(&root, "input-dp");
    dp.scroll_into_view();
    settle().await;
    let strip = by_testid(&root, "verdict-strip");
    let top = strip.get_bounding_client_rect().top();
    assert!(top.abs() < 1.0, "the strip is not held at the top: {top}");
    assert!(
        strip.get_bounding_client_rect().bottom() <= dp.get_bounding_client_rect().top() + 1.0,
        "the strip covers the field scrolled to"
    );
    let verdict = text(&root, "verdict");
    let brief = strip.text_content().unwrap();
    assert!(
        brief.starts_with("Does not fit: 142.2 GB of 25.76 GB"),
        "{brief}"
    );
    assert!(
        verdict.contains("(5.53x)") && brief.contains("(5.53x)"),
        "{verdict} / {brief}"
    );
    choose(&root, "input-model", "llama-3-70b");
    settle().await;
    let changed = by_testid(&root, "verdict-strip").text_content().unwrap();
    assert_ne!(changed, brief, "the strip follows the setup");
    let link: web_sys::HtmlElement =
        wasm_bindgen::JsCast::unchecked_into(strip.query_selector("a").unwrap().unwrap());
    assert_eq!(
        link.get_attribute("href").as_deref(),
        Some("#memory-results")
    );
    // The link's target is the results (following it in a real page: tests/e2e/widgets.mjs; a
    // frame written from script resolves fragments against the test page's address instead).
    let target = root
        .owner_document()
        .unwrap()
        .get_element_by_id("memory-results");
    assert!(target.is_some_and(|t| t.contains(Some(&by_testid(&root, "verdict")))));

    let q = parse_query("?tab=memory&model=llama-3-8b&gpu=rtx-4090");
    let (wide, _app) =
        mount_in_frame(1280, 800, move || view! { <MemoryPage initial=q.memory /> }).await;
    assert!(
        !shown(&wide, "verdict-strip"),
        "a wide screen shows the strip"
    );
}

/// An embed in a 760 px column opens at its point: the verdict and the bar, about one screen
/// tall; the controls and the step time are one click away, and the form's fields keep their
/// height when opened (no select stretched to its neighbour's fieldset).
#[wasm_bindgen_test]
async fn an_embed_in_a_760_px_column_opens_at_its_point_with_the_rest_one_click_away() {
    let q = parse_query("?tab=memory&model=llama-3-8b&gpu=rtx-4090&embed=1");
    let (root, _app) = mount_in_frame(
        760,
        900,
        move || view! { <MemoryPage initial=q.memory embed=true /> },
    )
    .await;
    assert!(shown(&root, "verdict") && shown(&root, "memory-bar"));
    assert!(
        not_on_screen(&root, "input-dp") && not_on_screen(&root, "step-time"),
        "the rest should wait behind a click"
    );
    let height = mounted_height(&root);
    assert!(height < 1000.0, "the widget is {height} px tall");
    open_disclosure(&root, "embed-more-controls").await;
    assert!(shown(&root, "input-dp"));
    let selects = root.query_selector_all(".controls select").unwrap();
    for i in 0..selects.length() {
        let el: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(selects.item(i).unwrap());
        let h = el.get_bounding_client_rect().height();
        assert!(h < 44.0, "select {} is {h} px tall", el.id());
    }
    open_disclosure(&root, "embed-more-results").await;
    assert!(shown(&root, "step-time"));
}

/// The MTP field: one module adds its block to DeepSeek-V3's states, and where it is not
/// modelled the field says why.
#[wasm_bindgen_test]
async fn an_mtp_module_adds_its_block_and_is_refused_outside_full_training() {
    let q = parse_query("?tab=memory&model=deepseek-v3&pp=16&ep=64&dp=128&zero=1&gpu=h100-80gb");
    let (root, _app) = mount(q.memory, false);
    settle().await;
    let gradients = bytes(&root, "gradients");
    type_into(&root, "input-mtp", "1");
    settle().await;
    assert!(
        bytes(&root, "gradients") > gradients,
        "the MTP block has gradients"
    );
    choose(&root, "input-mode", "lora");
    settle().await;
    assert_text_has(&root, "why-mtp", "full training");
}

/// A link that trains a llama.cpp file type falls back to BF16 and says why.
#[wasm_bindgen_test]
async fn a_link_training_a_llama_cpp_file_type_falls_back_to_bf16() {
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&dtype=q6_k");
    let (root, _app2) = mount_fresh(move || view! { <MemoryPage initial=q.memory /> });
    settle().await;
    let note = text(&root, "settled-note");
    assert!(
        note.contains("q6_k is a llama.cpp file type for serving"),
        "{note}"
    );
}
