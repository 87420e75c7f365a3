//! Browser tests of the Learn page: every chapter's computed numbers, keyboard navigation from
//! the first chapter to the last, and a bad `step` in the link.

use super::common::*;
use bitbudget_app::ui::pages::learn::chapters::CHAPTERS;
use bitbudget_app::ui::pages::learn::query::Chapter;
use bitbudget_app::ui::pages::learn::scenario::{rows, Scenario};
use bitbudget_app::ui::pages::learn::text::Widget;
use bitbudget_app::ui::pages::learn::FP8_RECIPES;
use bitbudget_app::ui::pages::learn::{
    dynamic_log, fp16_window, provenance, weight_bytes, worked, LearnPage, GRADIENT_URL,
};
use bitbudget_app::ui::shell::url::Tab;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::format::FormatId;
use bitbudget_math::learn::gradient_sample::GradientSample;
use bitbudget_math::learn::loss_scale::fp16_fate;
use bitbudget_math::learn::qat::compare;
use bitbudget_math::numbers::grouped;
use bitbudget_math::numbers::{format_bytes, short, Units};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// The gradient file chapter 4 fetches, as the release build serves it.
const GRADIENT_FILE: &[u8] =
    include_bytes!("../../assets/gradients/minilm-l6-gradients.safetensors");

fn gradient_sample() -> GradientSample {
    GradientSample::read(GRADIENT_FILE).unwrap()
}

fn histogram_gradients() -> Vec<f32> {
    gradient_sample().histogram
}

/// The Learn page at `chapter`, with the gradient file served.
/// Each row of scenario `s` on the page shows what the memory and step-time models give it.
fn scenario_rows_match(root: &web_sys::HtmlElement, n: u8, s: &Scenario) {
    let start = s.scale.map(|(_, _, v)| v[0]);
    for (i, row) in rows(s, start).iter().enumerate() {
        assert_eq!(
            text(root, &format!("learn-row-{i}-memory")),
            row.total(),
            "chapter {n} row {i}"
        );
        assert_eq!(
            text(root, &format!("learn-row-{i}-time")),
            row.seconds(),
            "chapter {n} row {i}"
        );
        assert_eq!(
            text(root, &format!("learn-row-{i}-extra")),
            (s.extra.1)(row),
            "chapter {n} row {i}"
        );
    }
    assert!(present(root, "learn-open-setup"));
}

fn mount(chapter: Chapter, embed: bool) -> (web_sys::HtmlElement, impl Sized) {
    serve_file(GRADIENT_URL, Some(GRADIENT_FILE));
    mount_fresh(move || view! { <LearnPage initial=chapter embed /> })
}

fn click(root: &web_sys::HtmlElement, id: &str) {
    by_testid(root, id).click();
}

fn heading(root: &web_sys::HtmlElement) -> String {
    text(root, "learn-heading")
}

/// Checks the numbers the open chapter `n` shows against the math crate.
fn check_numbers(root: &web_sys::HtmlElement, n: u8) {
    match &CHAPTERS[n as usize - 1].widget {
        Widget::Bytes => {
            let fp32 = format_bytes(weight_bytes(1_000_000_000, FormatId::F32), Units::Gb);
            assert_eq!(fp32, "4.00 GB");
            assert_eq!(
                text(root, &format!("learn-bytes-{}", FormatId::F32.name())),
                fp32
            );
            let int4 = format_bytes(weight_bytes(1_000_000_000, FormatId::F4E2M1), Units::Gb);
            assert_eq!(
                text(root, &format!("learn-bytes-{}", FormatId::F4E2M1.name())),
                int4
            );
            // Serving a billion parameters: the Serve page with the preset nearest that count.
            assert_text_starts(root, "learn-open-serve", "Serve Gemma 3 1B");
            let href = by_testid(root, "learn-open-serve")
                .get_attribute("href")
                .unwrap();
            assert!(href.starts_with("?tab=serve&model=gemma-3-1b"), "{href}");
        }
        Widget::Formats => {
            assert_text_has(
                root,
                &format!("learn-stored-{}", FormatId::F32.name()),
                "0.100000001",
            );
        }
        Widget::LossScale => {
            assert_eq!(text(root, "learn-window-low"), short(fp16_window(0).0, 3));
            assert_eq!(text(root, "learn-window-high"), short(fp16_window(0).1, 5));
            let fate = fp16_fate(&histogram_gradients(), 1.0);
            assert!(
                fate.underflow > 0,
                "unscaled FP16 loses some of MiniLM's gradients"
            );
            assert_eq!(text(root, "learn-underflow"), grouped(fate.underflow));
            assert_eq!(text(root, "learn-kept"), grouped(fate.kept));
            assert_eq!(
                text(root, "learn-gradients-source"),
                provenance(&gradient_sample())
            );
        }
        Widget::Scenario(s) => scenario_rows_match(root, n, s),
        Widget::Fp8 => scenario_rows_match(root, n, &FP8_RECIPES),
        Widget::Layout(s) => {
            scenario_rows_match(root, n, s);
            // The chosen row (TP 8 × CP 4 × DP 2) drawn as a grid, its first GPU described.
            assert_text_has(root, "layout-holds", "GPU 1 of 64");
            assert_text_has(root, "layout-holds", "context-parallel rank 1 of 4");
        }
        Widget::Quantize => {
            let w = &worked(false)[0];
            assert_eq!(
                text(root, "learn-absmax-0"),
                format!("{} → {}", w.absmax_code, short(w.absmax_back as f64, 3))
            );
            assert_eq!(text(root, "learn-block-0"), short(w.block_back as f64, 3));
        }
        Widget::Serve => {
            use bitbudget_app::ui::pages::serve::query::ServeQuery;
            let q = ServeQuery {
                len: Some(8192),
                ..ServeQuery::default()
            };
            let r = bitbudget_math::serve::serve(&q.setup().unwrap()).unwrap();
            assert_eq!(
                text(root, "learn-serve-concurrency"),
                format!("{:.1}", r.max_concurrency)
            );
        }
    }
    assert!(present(root, "learn-try"));
}

#[wasm_bindgen_test]
async fn next_steps_through_every_chapter_and_each_shows_its_computed_numbers() {
    let (root, _app) = mount(Chapter::FIRST, false);
    settle().await;
    for n in 1..=Chapter::COUNT {
        assert!(
            heading(&root).starts_with(&format!("{n}. ")),
            "{}",
            heading(&root)
        );
        if matches!(CHAPTERS[n as usize - 1].widget, Widget::LossScale) {
            until_present(&root, "learn-underflow", 50).await;
        }
        check_numbers(&root, n);
        if n < Chapter::COUNT {
            click(&root, "learn-next");
            settle().await;
        }
    }
    assert!(
        !present(&root, "learn-next"),
        "no next after the last chapter"
    );
}

#[wasm_bindgen_test]
async fn the_keyboard_alone_goes_from_the_first_chapter_to_the_last_and_focuses_each_heading() {
    let (root, _app) = mount(Chapter::FIRST, false);
    settle().await;
    for n in 2..=Chapter::COUNT {
        let k = if n % 2 == 0 { "ArrowRight" } else { "PageDown" };
        press(&root, "learn-heading", k);
        settle().await;
        assert!(
            heading(&root).starts_with(&format!("{n}. ")),
            "{}",
            heading(&root)
        );
        assert_eq!(
            focused().get_attribute("data-testid").as_deref(),
            Some("learn-heading")
        );
    }
    press(&root, "learn-heading", "ArrowRight");
    settle().await;
    assert!(
        heading(&root).starts_with(&format!("{}. ", Chapter::COUNT)),
        "stays on the last chapter"
    );
    press(&root, "learn-heading", "PageUp");
    settle().await;
    assert!(heading(&root).starts_with(&format!("{}. ", Chapter::COUNT - 1)));
    // Arrows inside a form field belong to the field.
    let select: web_sys::HtmlElement = root
        .query_selector("input, select")
        .unwrap()
        .unwrap()
        .unchecked_into();
    select.set_attribute("data-testid", "a-select").unwrap();
    press(&root, "a-select", "ArrowRight");
    settle().await;
    assert!(heading(&root).starts_with(&format!("{}. ", Chapter::COUNT - 1)));
}

#[wasm_bindgen_test]
async fn a_bad_step_opens_chapter_1_with_a_note_and_embeds_show_the_chapter_alone() {
    let q = parse_query("?tab=learn&step=99");
    assert_eq!(q.tab, Tab::Learn);
    assert_eq!(q.chapter, Chapter::FIRST);
    assert!(
        q.notes.iter().any(|n| n.contains("showing chapter 1")),
        "{:?}",
        q.notes
    );
    let q = parse_query("?tab=learn&step=8&embed=1");
    let (root, _app) = mount(q.chapter, q.embed);
    settle().await;
    assert!(heading(&root).starts_with("8. "));
    assert!(!present(&root, "learn-nav-1"));
    assert!(!present(&root, "learn-next"));
    check_numbers(&root, 8);
}

#[wasm_bindgen_test]
async fn choosing_a_row_or_a_sequence_length_recomputes_the_chapter() {
    let (root, _app) = mount(Chapter::new(11).unwrap(), false);
    settle().await;
    let before = text(&root, "learn-row-0-extra");
    choose(&root, "learn-scale-seq", "16384");
    settle().await;
    let Widget::Scenario(s) = &CHAPTERS[10].widget else {
        panic!("chapter 11 compares setups")
    };
    let after = rows(s, Some("16384"));
    assert_eq!(text(&root, "learn-row-0-extra"), (s.extra.1)(&after[0]));
    assert_ne!(text(&root, "learn-row-0-extra"), before);
    let (bar_before, _) = canvas_fingerprint(&root, "learn-bar");
    by_testid(&root, "learn-choose-0").click();
    settle().await;
    assert_ne!(
        redrawn(&root, "learn-bar", bar_before).await,
        bar_before,
        "the bar follows the chosen row"
    );
    // Chapter 2's serving row links to the Serve page, its training rows to the Memory page.
    let (root, _app) = mount(Chapter::new(2).unwrap(), false);
    settle().await;
    assert_text_starts(
        &root,
        "learn-open-setup",
        "Open this setup in the Memory page",
    );
    by_testid(&root, "learn-choose-0").click();
    settle().await;
    assert_text_starts(&root, "learn-open-setup", "Serve a model of this size");
    let href = by_testid(&root, "learn-open-setup")
        .get_attribute("href")
        .unwrap();
    assert!(
        href.starts_with("?tab=serve&model=gemma-3-1b&gpu=h100-80gb"),
        "{href}"
    );
}

/// Chapter 11 names the model and setup behind its numbers (as the CLI's chart caption does), and
/// FlashAttention saves time as well as memory: standard attention's step pays for its scores'
/// trips through GPU memory.
#[wasm_bindgen_test]
async fn chapter_11_names_its_setup_and_flash_attention_saves_time_too() {
    let (root, _app) = mount(Chapter::new(11).unwrap(), false);
    settle().await;
    let named = text(&root, "learn-setup");
    assert!(
        named.starts_with("Memory per GPU: Llama 3 8B. train")
            && named.contains("ZeRO-3")
            && named.contains("FlashAttention on")
            && named.contains("NVIDIA H100 80GB"),
        "{named}"
    );
    choose(&root, "learn-scale-seq", "8192");
    settle().await;
    let seconds = |i: usize| -> f64 {
        let t = text(&root, &format!("learn-row-{i}-time"));
        let (v, unit) = t.split_once(' ').unwrap();
        v.parse::<f64>().unwrap() * if unit == "ms" { 1e-3 } else { 1.0 }
    };
    assert!(
        seconds(0) > 1.5 * seconds(1),
        "standard {} s, FlashAttention {} s",
        seconds(0),
        seconds(1)
    );
    by_testid(&root, "learn-choose-0").click();
    settle().await;
    assert_text_has(&root, "learn-setup", "FlashAttention off");
}

/// Without the gradient file (a host that did not copy it) chapter 4 says so and the rest works.
#[wasm_bindgen_test]
async fn chapter_4_without_its_gradient_file_says_so_and_keeps_working() {
    serve_file(GRADIENT_URL, None);
    let chapter = Chapter::new(4).unwrap();
    let (root, _app) = mount_fresh(move || view! { <LearnPage initial=chapter embed=false /> });
    until_present(&root, "learn-gradients-error", 50).await;
    assert_text_has(&root, "learn-gradients-error", "HTTP 404");
    assert!(present(&root, "learn-try"));
    serve_file(GRADIENT_URL, Some(GRADIENT_FILE));
}

#[wasm_bindgen_test]
async fn a_loss_scale_rescues_underflowing_gradients_and_dynamic_scaling_steps_one_at_a_time() {
    let (root, _app) = mount(Chapter::new(4).unwrap(), false);
    until_present(&root, "learn-gradients", 50).await;
    let (bars_before, _) = canvas_fingerprint(&root, "learn-gradients");
    choose(&root, "learn-loss-scale", "16");
    settle().await;
    let fate = fp16_fate(&histogram_gradients(), 65536.0);
    assert_eq!(text(&root, "learn-underflow"), grouped(fate.underflow));
    assert_eq!(text(&root, "learn-overflow"), grouped(fate.overflow));
    assert!(fate.underflow < fp16_fate(&histogram_gradients(), 1.0).underflow);
    assert_ne!(
        redrawn(&root, "learn-gradients", bars_before).await,
        bars_before,
        "the range lines move"
    );
    let log = dynamic_log(&gradient_sample());
    assert!(log[0].skipped, "2^24 overflows the first step's gradients");
    for _ in 0..3 {
        by_testid(&root, "learn-scaler-step").click();
        settle().await;
    }
    for (i, step) in log.iter().take(3).enumerate() {
        assert_eq!(
            text(&root, &format!("learn-scale-{i}")),
            format!("2^{}", step.scale.log2())
        );
        let decision = text(&root, &format!("learn-decision-{i}"));
        assert_eq!(decision.starts_with("overflow"), step.skipped, "{decision}");
    }
    assert!(!present(&root, "learn-scale-3"));
    // Playing adds a step every 400 ms until paused.
    by_testid(&root, "learn-scaler-play").click();
    settle().await;
    assert_eq!(text(&root, "learn-scaler-play"), "Pause");
    sleep(1300).await;
    assert!(present(&root, "learn-scale-4"), "playing added steps");
    by_testid(&root, "learn-scaler-play").click();
    settle().await;
    let rows = root
        .query_selector_all("[data-testid^='learn-scale-']")
        .unwrap()
        .length();
    sleep(600).await;
    assert_eq!(
        root.query_selector_all("[data-testid^='learn-scale-']")
            .unwrap()
            .length(),
        rows,
        "paused"
    );
}

#[wasm_bindgen_test]
async fn the_tiny_model_trains_twice_in_the_browser_and_qat_beats_ptq_at_4_bits() {
    let (root, _app) = mount(Chapter::new(13).unwrap(), false);
    settle().await;
    by_testid(&root, "learn-outlier").click();
    settle().await;
    let with_outlier = worked(true);
    // The outlier's scale crushes the small first weight; blocks of 4 and the FP16 split keep it.
    assert_eq!(with_outlier[7].x, 6.0);
    assert_eq!(
        text(&root, "learn-mixed-0"),
        short(with_outlier[0].mixed_back as f64, 3)
    );
    assert!((with_outlier[0].absmax_back - 0.12).abs() > (with_outlier[0].block_back - 0.12).abs());
    by_testid(&root, "learn-train").click();
    settle().await;
    let c = compare(4, 1);
    let pct = |a: f32| format!("{:.1}%", a * 100.0);
    assert_eq!(text(&root, "learn-acc-float"), pct(c.float));
    assert_eq!(text(&root, "learn-acc-ptq"), pct(c.ptq));
    assert_eq!(text(&root, "learn-acc-qat"), pct(c.qat));
    assert!(c.qat > c.ptq);
}

#[wasm_bindgen_test]
async fn the_serving_chapter_sizes_the_kv_cache_as_the_serve_page_does() {
    use bitbudget_app::ui::pages::serve::query::ServeQuery;
    use bitbudget_math::serve::serve;
    let (root, _app) = mount(Chapter::new(14).unwrap(), false);
    settle().await;
    let at = |len: u64, kv: &str| {
        let q = ServeQuery {
            len: Some(len),
            kv: kv.parse().unwrap(),
            ..ServeQuery::default()
        };
        serve(&q.setup().unwrap()).unwrap()
    };
    assert_eq!(
        text(&root, "learn-serve-concurrency"),
        format!("{:.1}", at(8192, "bf16").max_concurrency)
    );
    choose(&root, "learn-serve-len", "131072");
    settle().await;
    assert_eq!(
        text(&root, "learn-serve-concurrency"),
        format!("{:.1}", at(131072, "bf16").max_concurrency)
    );
    choose(&root, "learn-serve-kv", "fp8");
    settle().await;
    assert_eq!(
        text(&root, "learn-serve-concurrency"),
        format!("{:.1}", at(131072, "fp8").max_concurrency)
    );
    assert_text_has(&root, "learn-serve-link", "Serve page");
}

/// Chapter 15: the recipes side by side (the scenario's rows, sized by the memory model), and
/// the block shapes' errors on MiniLM's query weight, computed by the math crate, with an outlier
/// channel that costs one scale per tensor far more than 1×128 tiles.
#[wasm_bindgen_test]
async fn the_fp8_chapter_compares_recipes_and_block_shapes_on_a_real_tensor() {
    use bitbudget_app::ui::pages::learn::fp8_widget::shape_errors;
    use bitbudget_app::ui::pages::quant::query::{SAMPLE_TENSORS, SAMPLE_URL};
    use bitbudget_math::quant::tensor_io::read_safetensors;
    const SAMPLE: &[u8] = include_bytes!("../../assets/tensors/minilm-l6-layer0.safetensors");
    serve_file(SAMPLE_URL, Some(SAMPLE));
    let (root, _app) = mount(Chapter::new(15).unwrap(), false);
    until_present(&root, "learn-block-shapes-table", 100).await;
    let tensor = read_safetensors(SAMPLE, SAMPLE_TENSORS[0]).unwrap();
    let sqnr = |i: usize| text(&root, &format!("learn-shape-{i}-sqnr"));
    let expected = shape_errors(&tensor, false).unwrap();
    assert_eq!(sqnr(1), format!("{:.1} dB", expected[1].sqnr_db));
    set_checked(&root, "learn-outlier-channel", true);
    settle().await;
    let outlier = shape_errors(&tensor, true).unwrap();
    assert_eq!(sqnr(0), format!("{:.1} dB", outlier[0].sqnr_db));
    assert!(outlier[1].sqnr_db > outlier[0].sqnr_db + 3.0, "{outlier:?}");
    assert!(outlier[0].sqnr_db < expected[0].sqnr_db);
    // Stochastic rounding: the mean of the seeded draws, against round to nearest.
    choose(&root, "learn-sr-value", "0.7");
    settle().await;
    let f = FormatId::F4E2M1;
    let mean = bitbudget_math::quant::rotation::stochastic_mean(f, 0.7, 10_000, 1);
    assert_eq!(text(&root, "learn-sr-mean"), format!("{mean:.4}"));
    assert_eq!(text(&root, "learn-sr-nearest"), "0.5");
    assert!((mean - 0.7).abs() < 0.01);
    // The recipes' rows, as the memory model sizes them.
    assert!(matches!(CHAPTERS[14].widget, Widget::Fp8));
    scenario_rows_match(&root, 15, &FP8_RECIPES);
    serve_file(SAMPLE_URL, None);
}

/// Chapter 15's delayed scaling: the table is the math crate's simulation; a tensor that grows
/// saturates under the delayed scale (never under current scaling), and one that shrinks
/// flushes under a `max` history but far less with `most_recent`.
#[wasm_bindgen_test]
async fn the_fp8_chapter_shows_what_delayed_scaling_saturates_and_flushes() {
    use bitbudget_app::ui::pages::learn::delayed_widget::delayed_steps;
    use bitbudget_math::quant::delayed::AmaxAlgo;
    let (root, _app) = mount(Chapter::new(15).unwrap(), false);
    settle().await;
    let row = |i: usize| text(&root, &format!("learn-delayed-row-{i}"));
    let grows = delayed_steps(4.0, 1024, AmaxAlgo::Max);
    assert!(grows[1].delayed.saturated > 0 && grows[1].current.saturated == 0);
    assert!(
        row(1).contains(&format!("{:.1} dB", grows[1].delayed.sqnr_db)),
        "{}",
        row(1)
    );
    choose(&root, "learn-delayed-growth", &(1.0f32 / 16.0).to_string());
    settle().await;
    let shrinks = delayed_steps(1.0 / 16.0, 1024, AmaxAlgo::Max);
    assert!(shrinks[7].delayed.flushed > 0);
    assert!(
        row(7).contains(&format!("{:.1} dB", shrinks[7].delayed.sqnr_db)),
        "{}",
        row(7)
    );
    choose(&root, "learn-delayed-algo", "most-recent");
    settle().await;
    let recent = delayed_steps(1.0 / 16.0, 1024, AmaxAlgo::MostRecent);
    assert!(recent[7].delayed.flushed < shrinks[7].delayed.flushed);
    assert!(
        row(7).contains(&format!("{:.1} dB", recent[7].delayed.sqnr_db)),
        "{}",
        row(7)
    );
}

/// The keys work on arrival and after a click on the text: a key pressed on the document's body
/// (the focus nowhere inside the page) still moves between chapters.
#[wasm_bindgen_test]
async fn the_chapter_keys_work_with_the_focus_outside_the_page() {
    let (root, _app) = mount(Chapter::new(3).unwrap(), false);
    settle().await;
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("ArrowRight");
    init.set_bubbles(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    let body = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .body()
        .unwrap();
    body.dispatch_event(&ev).unwrap();
    settle().await;
    assert!(heading(&root).starts_with("4. "), "{}", heading(&root));
}

/// The parallelism chapter's grid follows the chosen row and the GPU typed in.
#[wasm_bindgen_test]
async fn the_parallelism_chapter_draws_the_chosen_layout() {
    let (root, _app) = mount(Chapter::new(Chapter::COUNT).unwrap(), false);
    settle().await;
    assert!(
        heading(&root).contains("5D parallelism"),
        "{}",
        heading(&root)
    );
    click(&root, "learn-choose-2");
    settle().await;
    assert_text_has(
        &root,
        "layout-holds",
        "pipeline stage 1 of 4: layers 1–20 of 80",
    );
    type_into(&root, "layout-gpu", "17");
    settle().await;
    assert_text_has(&root, "layout-holds", "GPU 17 of 64: node 3, GPU 1 in it");
    assert_text_has(
        &root,
        "layout-holds",
        "pipeline stage 2 of 4: layers 21–40 of 80",
    );
}
