//! Browser tests of the Serve page: the numbers are the math crate's (the CLI's `serve --json`),
//! knobs change them and take the engine's names, a wrong knob leaves a message and the last good
//! figures, and a link opens the state it names.

use super::common::*;
use bitbudget_app::ui::pages::serve::query::ServeQuery;
use bitbudget_app::ui::pages::serve::ServePage;
use bitbudget_app::ui::shell::query::parse_page_query;
use bitbudget_math::numbers::{format_bytes, Units};
use bitbudget_math::serve::{serve, verdict, Checkpoint, Engine, ServeSetup};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

fn mount(query: ServeQuery) -> (web_sys::HtmlElement, impl Sized) {
    mount_fresh(move || view! { <ServePage initial=query /> })
}

#[wasm_bindgen_test]
async fn the_page_shows_the_math_crates_answer() {
    let q = ServeQuery::default();
    let setup = q.setup().unwrap();
    let r = serve(&setup).unwrap();
    let (root, _app) = mount(q);
    settle().await;
    assert_text_is(&root, "serve-verdict", &verdict(&setup, &r));
    assert_text_starts(&root, "serve-verdict", "Fits on NVIDIA H100 80GB");
    assert_text_has(
        &root,
        "serve-kv-cache",
        &format_bytes(r.per_gpu.kv_cache, Units::Gib),
    );
    assert_text_has(
        &root,
        "serve-concurrency",
        &format!("{:.2}x", r.max_concurrency),
    );
    assert_text_has(&root, "serve-checked", "Checked against engine logs");
}

#[wasm_bindgen_test]
async fn knobs_change_the_answer_under_the_engines_names() {
    let (root, _app) = mount(ServeQuery::default());
    settle().await;
    let before = text(&root, "serve-concurrency");
    choose(&root, "input-kv", "fp8");
    settle().await;
    assert_ne!(
        text(&root, "serve-concurrency"),
        before,
        "an FP8 KV cache holds more requests"
    );
    choose(&root, "input-engine", "sglang");
    settle().await;
    assert_has(&root.inner_text(), "mem_fraction_static");
    choose(&root, "input-engine", "llama.cpp");
    settle().await;
    // llama.cpp has no FP8 KV cache: the page goes back to F16 rather than keep a refused type.
    let kv = by_testid(&root, "input-kv");
    assert_eq!(
        kv.dyn_ref::<web_sys::HtmlSelectElement>().unwrap().value(),
        "bf16"
    );
    choose(&root, "input-dtype", "q4_k_m");
    settle().await;
    assert_text_has(&root, "serve-placement", "layers on the GPU");
    assert_text_has(&root, "serve-weights", "q4_k_m");
}

#[wasm_bindgen_test]
async fn a_wrong_knob_says_so_and_keeps_the_last_good_figures() {
    let (root, _app) = mount(ServeQuery::default());
    settle().await;
    let kv = text(&root, "serve-kv-cache");
    type_into(&root, "input-util", "1.5");
    settle().await;
    assert_has(&root.inner_text(), "is not above 0 and at most 1");
    assert_eq!(text(&root, "serve-kv-cache"), kv);
    // The bandwidth share is the page's to change: half the share, half the tokens per second.
    let decode = |root: &web_sys::HtmlElement| text(root, "serve-decode");
    let before = decode(&root);
    type_into(&root, "input-bw", "0.4");
    settle().await;
    assert_ne!(decode(&root), before);
    type_into(&root, "input-bw", "");
    settle().await;
    assert_eq!(decode(&root), before);
    type_into(&root, "input-tp", "3");
    settle().await;
    assert_text_starts(
        &root,
        "serve-verdict",
        "Cannot answer: tensor parallel 3 does not split",
    );
    assert_eq!(
        text(&root, "serve-kv-cache"),
        kv,
        "the last good figures stay"
    );
}

#[wasm_bindgen_test]
async fn a_link_opens_the_state_it_names() {
    let (shell, q) = parse_page_query::<ServeQuery>(
        "?tab=serve&engine=vllm&model=llama-3.1-70b&gpu=h100-80gb&tp=2&kv=fp8&len=32768",
    );
    assert!(shell.notes.is_empty(), "{:?}", shell.notes);
    let (root, _app) = mount(q);
    settle().await;
    assert_text_starts(&root, "serve-verdict", "Fits on 2 × NVIDIA H100 80GB");
}

/// An embed in a 760 px column opens at its verdict and chart; the accounting table and the
/// controls are one click away.
#[wasm_bindgen_test]
async fn an_embed_in_a_760_px_column_opens_at_its_verdict() {
    let q = ServeQuery::default();
    let (root, _app) = mount_in_frame(
        760,
        900,
        move || view! { <ServePage initial=q embed=true /> },
    )
    .await;
    assert!(shown(&root, "serve-verdict"));
    let height = mounted_height(&root);
    assert!(height < 1000.0, "the widget is {height} px tall");
    let select = || {
        root.query_selector("[data-testid='embed-more-controls'] select")
            .unwrap()
    };
    assert!(select().is_none(), "the controls wait behind a click");
    open_disclosure(&root, "embed-more-controls").await;
    let select: web_sys::HtmlElement = select()
        .expect("opened, the controls are built")
        .unchecked_into();
    assert!(element_shown(&select));
}

/// A pasted config.json is the model: its quantization_config sets the checkpoint (gpt-oss's
/// MXFP4 experts), the figures are the CLI's `serve --config` answer, the link carries the
/// architecture, a preset brings the preset back, and a config that cannot be read says why and
/// keeps the model.
#[wasm_bindgen_test]
async fn a_pasted_config_is_served_as_the_cli_serves_it() {
    use bitbudget_math::memory::find_gpu;
    use bitbudget_math::memory::model::hf_config::parse_config;
    use bitbudget_math::serve::quant_config::checkpoint_of;
    const GPT_OSS: &str =
        include_str!("../../crates/math/tests/fixtures/hf_configs/gpt-oss-20b.json");
    let (root, _app) = mount(ServeQuery::default());
    settle().await;
    let preset_weights = text(&root, "serve-weights");
    paste(&root, GPT_OSS);
    settle().await;
    assert_text_starts(&root, "config-message", "Serving gpt_oss: ");
    let model = parse_config(GPT_OSS).unwrap();
    let mut cli = ServeSetup::new(
        Engine::Vllm,
        "gpt_oss",
        model.arch,
        find_gpu("h100-80gb").unwrap(),
    );
    cli.checkpoint = checkpoint_of(GPT_OSS).unwrap().0;
    cli.max_model_len = Some(8192);
    let r = serve(&cli).unwrap();
    assert_eq!(cli.checkpoint, Checkpoint::Mxfp4);
    assert_text_has(
        &root,
        "serve-weights",
        &format_bytes(r.per_gpu.weights, Units::Gib),
    );
    assert_text_is(&root, "serve-verdict", &verdict(&cli, &r));
    assert!(present(&root, "serve-config-in-use"));
    let dtype: web_sys::HtmlSelectElement = by_testid(&root, "input-dtype").unchecked_into();
    assert_eq!(
        dtype.value(),
        "mxfp4",
        "the config's quantization_config sets the checkpoint"
    );
    // The link: what the page writes to the address bar reproduces the answer.
    let q = parse_page_query::<ServeQuery>(&format!(
        "?tab=serve&arch={}&dtype=mxfp4",
        bitbudget_math::memory::model::arch_text::arch_to_text(
            "gpt_oss",
            &parse_config(GPT_OSS).unwrap().arch
        )
    ))
    .1;
    assert_eq!(
        verdict(&q.setup().unwrap(), &serve(&q.setup().unwrap()).unwrap()),
        verdict(&cli, &r)
    );
    paste(&root, r#"{"model_type": "llama", "hidden_size": 2048}"#);
    settle().await;
    assert_text_has(&root, "config-message", "The model in use stays");
    assert_text_is(&root, "serve-verdict", &verdict(&cli, &r));
    choose(&root, "input-model", "llama-3.1-8b");
    settle().await;
    assert_eq!(text(&root, "serve-weights"), preset_weights);
    assert!(!present(&root, "serve-config-in-use"));
}

/// Pipeline, data and expert parallelism under their engine names: each changes the answer as
/// the math crate does, and llama.cpp shows none of them.
#[wasm_bindgen_test]
async fn pipeline_data_and_expert_parallel_split_the_model_as_the_engines_do() {
    let q = parse_page_query::<ServeQuery>("?tab=serve&model=qwen3-30b-a3b&tp=2").1;
    let (root, _app) = mount(q.clone());
    settle().await;
    type_into(&root, "input-dp", "4");
    set_checked(&root, "input-ep", true);
    type_into(&root, "input-pp", "2");
    settle().await;
    let mut s = q.setup().unwrap();
    (s.dp, s.pp, s.expert_parallel) = (4, 2, true);
    let r = serve(&s).unwrap();
    assert_text_is(&root, "serve-verdict", &verdict(&s, &r));
    assert_text_starts(&root, "serve-verdict", "Fits on 16 × NVIDIA H100 80GB");
    assert_text_has(&root, "serve-verdict", "on each of 4 replicas");
    assert_text_has(
        &root,
        "serve-weights",
        &format_bytes(r.per_gpu.weights, Units::Gib),
    );
    choose(&root, "input-engine", "llama.cpp");
    settle().await;
    assert!(!present(&root, "input-pp") && !present(&root, "input-ep"));
    assert_text_starts(&root, "serve-verdict", "Fits on NVIDIA H100 80GB");
}
