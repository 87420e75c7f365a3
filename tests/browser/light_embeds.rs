//! Browser tests of the light embeds (Memory and Serve without what they keep behind a click): the
//! same widget as the whole page's embed until a disclosure opens, which asks the boot script for
//! the rest, and says so when that cannot happen.

use super::common::*;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::pages::serve::ServePage;
use bitbudget_app::ui::shell::light::LightPage;
use bitbudget_app::ui::url_state::parse_query;
use leptos::prelude::*;
use wasm_bindgen_test::*;

/// Installs `window.bitbudgetBoot.loadRest` that counts its calls in `window.__loadRestCalls`
/// and answers with `answer` (a JS expression giving a promise); `None` removes the loader.
fn fake_loader(answer: Option<&str>) {
    let script = match answer {
        Some(answer) => format!(
            "window.__loadRestCalls = 0; window.bitbudgetBoot = {{ loadRest: () => {{ window.__loadRestCalls += 1; return {answer}; }} }};"
        ),
        None => "delete window.bitbudgetBoot; window.__loadRestCalls = 0;".to_string(),
    };
    js_sys::eval(&script).unwrap();
}

fn load_rest_calls() -> f64 {
    js_sys::eval("window.__loadRestCalls")
        .unwrap()
        .as_f64()
        .unwrap()
}

/// Memory's light embed shows what the whole page's embed shows before a click, with the same
/// verdict and bar; opening a disclosure asks for the rest (and builds none of it here).
#[wasm_bindgen_test]
async fn memorys_light_embed_is_the_embed_until_a_disclosure_asks_for_the_rest() {
    fake_loader(Some("new Promise(() => {})"));
    let url = "?tab=memory&model=llama-3-8b&gpu=rtx-4090&embed=1";
    let (whole, _a) = mount_in_frame(760, 900, move || {
        view! { <MemoryPage initial=parse_query(url).memory embed=true /> }
    })
    .await;
    let (light, _b) = mount_in_frame(760, 900, move || parse_query(url).memory.light_view()).await;
    for id in ["verdict", "memory-bar"] {
        assert!(shown(&light, id), "{id} is shown");
    }
    assert_eq!(text(&light, "verdict"), text(&whole, "verdict"));
    assert_eq!(part_bytes(&light, "weights"), part_bytes(&whole, "weights"));
    let (h_light, h_whole) = (mounted_height(&light), mounted_height(&whole));
    assert!(
        (h_light - h_whole).abs() < 2.0,
        "light {h_light} px, whole {h_whole} px: the frame should not jump at the swap"
    );
    assert_eq!(load_rest_calls(), 0.0, "nothing loads before a click");
    open_disclosure(&light, "embed-more-controls").await;
    assert_eq!(load_rest_calls(), 1.0);
    assert_text_has(&light, "loads-rest", "Loading the rest");
    assert!(
        not_on_screen(&light, "input-dp"),
        "the light embed has no controls"
    );
    fake_loader(None);
}

/// Without the boot script's loader (or when it fails), the opened disclosure says why, and the
/// widget keeps its verdict.
#[wasm_bindgen_test]
async fn a_light_embed_whose_rest_cannot_load_says_why() {
    fake_loader(Some("Promise.reject(new Error('offline'))"));
    let (root, _a) = mount_in_frame(760, 900, move || {
        parse_query("?tab=serve&embed=1").serve.light_view()
    })
    .await;
    assert!(shown(&root, "serve-verdict"));
    open_disclosure(&root, "embed-more-results").await;
    settle().await;
    assert_text_has(&root, "loads-rest", "could not be loaded (offline)");
    fake_loader(None);
    open_disclosure(&root, "embed-more-controls").await;
    settle().await;
    let notes = root
        .query_selector_all("[data-testid='loads-rest']")
        .unwrap();
    let last: web_sys::HtmlElement =
        wasm_bindgen::JsCast::unchecked_into(notes.item(notes.length() - 1).unwrap());
    let said = last.text_content().unwrap_or_default();
    assert!(said.contains("no loader"), "{said}");
    assert!(shown(&root, "serve-verdict"));
}

/// Serve's light embed shows the whole embed's verdict and charts before a click.
#[wasm_bindgen_test]
async fn serves_light_embed_shows_the_verdict_and_charts_of_the_whole_embed() {
    fake_loader(Some("new Promise(() => {})"));
    let url = "?tab=serve&model=llama-3-8b&gpu=rtx-4090&embed=1";
    let (whole, _a) = mount_in_frame(760, 900, move || {
        view! { <ServePage initial=parse_query(url).serve embed=true /> }
    })
    .await;
    let (light, _b) = mount_in_frame(760, 900, move || parse_query(url).serve.light_view()).await;
    assert_eq!(text(&light, "serve-verdict"), text(&whole, "serve-verdict"));
    let charts = |root: &web_sys::HtmlElement| root.query_selector_all("canvas").unwrap().length();
    assert!(charts(&light) > 0);
    assert_eq!(charts(&light), charts(&whole));
    assert_eq!(load_rest_calls(), 0.0);
    fake_loader(None);
}
