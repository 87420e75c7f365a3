//! Browser tests of the step time on the Memory page: seconds per step and tokens per second next
//! to the memory, computed by the math crate's step model, following their knobs; and the
//! strategies chart ranked by memory or by step time.

use super::common::*;
use bitbudget_app::ui::pages::memory::query::MemoryQuery;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::memory::step::{step_time, text::format_seconds, StepParams};
use leptos::prelude::*;
use wasm_bindgen_test::*;

const SETUP: &str = "?tab=memory&model=llama-3-8b&zero=3&dp=8&seq=4096&gpu=h100-80gb";

fn mount(query: MemoryQuery) -> (web_sys::HtmlElement, impl Sized) {
    mount_fresh(move || view! { <MemoryPage initial=query sync_url=true /> })
}

#[wasm_bindgen_test]
async fn the_memory_page_shows_the_step_time_and_its_knobs_change_it() {
    let q = parse_query(SETUP).memory;
    let expected = step_time(&q.to_setup(), &StepParams::default()).unwrap();
    let (root, _app) = mount(q);
    settle().await;
    let at40 = expected.timing.unwrap();
    assert_eq!(text(&root, "step-seconds"), format_seconds(at40.total_s));
    assert_text_has(&root, "step-tokens", "tokens/s");
    type_into(&root, "input-utilisation", "80");
    settle().await;
    let p = StepParams {
        utilisation: 0.8,
        ..StepParams::default()
    };
    let at80 = step_time(&parse_query(SETUP).memory.to_setup(), &p).unwrap();
    assert_eq!(
        text(&root, "step-seconds"),
        format_seconds(at80.seconds().unwrap())
    );
    type_into(&root, "input-utilisation", "0");
    settle().await;
    assert!(present(&root, "step-seconds"));
    // A bad value keeps the last good one and says why.
    assert_eq!(
        text(&root, "step-seconds"),
        format_seconds(at80.seconds().unwrap())
    );
}

#[wasm_bindgen_test]
async fn without_a_gpu_speed_the_page_says_why_there_is_no_time() {
    let (root, _app) = mount(parse_query("?tab=memory&model=gpt2&gpu=none").memory);
    settle().await;
    assert_eq!(text(&root, "step-seconds"), "—");
    assert_text_has(&root, "step-why-not", "no GPU chosen");
}

#[wasm_bindgen_test]
async fn the_strategies_chart_reorders_by_step_time() {
    let (root, _app) = mount(parse_query(SETUP).memory);
    settle().await;
    scroll_into_view(&root, "strategies-chart").await;
    let by_table = canvas_fingerprint(&root, "strategies-chart");
    choose(&root, "input-strategy-order", "memory");
    settle().await;
    let by_memory = canvas_fingerprint(&root, "strategies-chart");
    choose(&root, "input-strategy-order", "time");
    settle().await;
    let by_time = canvas_fingerprint(&root, "strategies-chart");
    assert_ne!(by_table.0, by_memory.0, "sorting by memory did not redraw");
    assert_ne!(by_memory.0, by_time.0, "sorting by time did not redraw");
    let search = address_bar().await;
    assert_has(&search, "order=time");
    // The link opens the chart in the same order.
    let (again, _app2) = mount(parse_query(&search).memory);
    settle().await;
    assert_eq!(canvas_fingerprint(&again, "strategies-chart").0, by_time.0);
    let select: web_sys::HtmlSelectElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&again, "input-strategy-order"));
    assert_eq!(select.value(), "time");
}
