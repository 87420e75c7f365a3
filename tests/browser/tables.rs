//! Wide tables and the bit row on a phone-wide page with the app's stylesheet: tables scroll
//! inside their box with the row names held in place (position: sticky) and no number cut off;
//! bit-field names are whole, at least 12 px, and do not run into each other.

use super::common::*;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::format::FormatId;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// Puts the app's stylesheet and the palette's custom properties (which the app writes into a
/// `<style>` itself) into the page once.
fn load_stylesheet() {
    let document = web_sys::window().unwrap().document().unwrap();
    if document.get_element_by_id("app-css").is_some() {
        return;
    }
    let style = document.create_element("style").unwrap();
    style.set_id("app-css");
    let css = format!(
        "{}\n{}",
        bitbudget_charts::palette::stylesheet(),
        include_str!("../../assets/style.css")
    );
    style.set_text_content(Some(&css));
    document.head().unwrap().append_child(&style).unwrap();
}

fn computed(el: &web_sys::Element, property: &str) -> String {
    web_sys::window()
        .unwrap()
        .get_computed_style(el)
        .unwrap()
        .unwrap()
        .get_property_value(property)
        .unwrap()
}

/// On a phone the conventions table's sentences go under their rows: the table fits its box (no
/// sideways swipe) and no number is cut off. (Tables that still scroll keep their first column in
/// place: the Quantize page's metrics table, `quant_page`.)
#[wasm_bindgen_test]
async fn the_conventions_table_fits_a_phone_with_its_sentences_under_the_rows() {
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&zero=3&dp=8&gpu=h100-80gb");
    let memory = q.memory;
    let (root, _app) =
        mount_in_frame(360, 844, move || view! { <MemoryPage initial=memory /> }).await;
    let table = by_testid(&root, "conventions");
    let scroller: web_sys::HtmlElement = table.parent_element().unwrap().unchecked_into();
    assert!(
        scroller.scroll_width() <= scroller.client_width(),
        "the table should fit its box at 360 px ({} > {})",
        scroller.scroll_width(),
        scroller.client_width()
    );
    let numbers = table.query_selector_all("td.num, td").unwrap();
    for i in 0..numbers.length() {
        let cell: web_sys::HtmlElement = numbers.item(i).unwrap().unchecked_into();
        assert!(
            cell.scroll_width() <= cell.client_width() + 1,
            "'{}' is cut off",
            cell.text_content().unwrap_or_default()
        );
    }
}

/// The box of the visible text inside `el` (not of the element, and without screen-reader-only
/// text such as a term's explanation), as (left, top, right, bottom).
fn text_box(el: &web_sys::Element) -> (f64, f64, f64, f64) {
    let f = js_sys::Function::new_with_args(
        "el",
        "const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
         let [l, t, r, b] = [Infinity, Infinity, -Infinity, -Infinity];
         for (let n = w.nextNode(); n; n = w.nextNode()) {
           if (n.parentElement.closest('.sr-only')) continue;
           const range = document.createRange(); range.selectNodeContents(n);
           for (const x of range.getClientRects()) {
             l = Math.min(l, x.left); t = Math.min(t, x.top); r = Math.max(r, x.right); b = Math.max(b, x.bottom);
           }
         }
         return [l, t, r, b];",
    );
    let v: js_sys::Array = f
        .call1(&wasm_bindgen::JsValue::NULL, el)
        .unwrap()
        .unchecked_into();
    let n = |i| v.get(i).as_f64().unwrap();
    (n(0), n(1), n(2), n(3))
}

#[wasm_bindgen_test]
async fn fp32_field_names_are_whole_and_apart_on_a_phone() {
    load_stylesheet();
    let (root, _app) = mount_bits("0.1", FormatId::F32);
    root.style().set_property("width", "360px").unwrap();
    settle().await;
    // The selected format's bit row (the first FP32 row on the page).
    let row = root
        .query_selector("[aria-label='FP32 bits']")
        .unwrap()
        .expect("an FP32 bit row");
    let labels = row.query_selector_all(".field-label").unwrap();
    assert_eq!(labels.length(), 3);
    let mut boxes = Vec::new();
    for i in 0..labels.length() {
        let label: web_sys::HtmlElement = labels.item(i).unwrap().unchecked_into();
        let text = label.text_content().unwrap_or_default();
        // Text wider than its box is cut off unless the box lets it show.
        let hides = computed(&label, "overflow-x") != "visible";
        assert!(
            !hides || label.scroll_width() <= label.client_width() + 1,
            "'{text}' is cut off ({} > {})",
            label.scroll_width(),
            label.client_width()
        );
        let size: f64 = computed(&label, "font-size")
            .trim_end_matches("px")
            .parse()
            .unwrap();
        assert!(size >= 12.0, "'{text}' is {size} px");
        boxes.push((text, text_box(&label)));
    }
    for (i, (a, ra)) in boxes.iter().enumerate() {
        for (b, rb) in &boxes[i + 1..] {
            let apart = ra.2 <= rb.0 + 0.5 || rb.2 <= ra.0 + 0.5 || ra.3 <= rb.1 || rb.3 <= ra.1;
            assert!(apart, "'{a}' {ra:?} runs into '{b}' {rb:?}");
        }
    }
}

/// A convention that does not cover the setup (DeepSpeed under ZeRO-0) explains why in a cell that
/// wraps, so the explanation column stays in view at 1280 px instead of being pushed off the
/// table's right edge.
#[wasm_bindgen_test]
async fn an_unavailable_convention_wraps_and_keeps_the_explanations_in_view() {
    use bitbudget_app::ui::pages::memory::query::MemoryQuery;
    load_stylesheet();
    let root = fresh_root();
    root.style().set_property("width", "1000px").unwrap();
    let query = MemoryQuery::default();
    let _app =
        leptos::mount::mount_to(root.clone(), move || view! { <MemoryPage initial=query /> });
    settle().await;
    let deepspeed = by_testid(&root, "convention-deepspeed")
        .text_content()
        .unwrap();
    assert!(
        deepspeed.contains("n/a"),
        "the landing setup is DDP: {deepspeed}"
    );
    let scroll: web_sys::HtmlElement = root
        .query_selector("[aria-label='Model states by convention']")
        .unwrap()
        .expect("the conventions table")
        .unchecked_into();
    assert_not_cut(&scroll, "the conventions table");
}
