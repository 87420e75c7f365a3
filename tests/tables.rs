//! Wide tables on a phone-wide page with the app's stylesheet: they scroll inside their box with
//! the row names held in place (position: sticky), and no number is cut off.
#![cfg(target_arch = "wasm32")]

mod common;

use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use common::*;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

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
        include_str!("../assets/style.css")
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

#[wasm_bindgen_test]
async fn the_conventions_table_scrolls_on_a_phone_with_its_first_column_fixed() {
    load_stylesheet();
    let root = fresh_root();
    root.style().set_property("width", "360px").unwrap();
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&zero=3&dp=8&gpu=h100-80gb");
    let memory = q.memory;
    let _app = leptos::mount::mount_to(
        root.clone(),
        move || view! { <MemoryPage initial=memory /> },
    );
    settle().await;
    let table = by_testid(&root, "conventions");
    let scroller: web_sys::HtmlElement = table.parent_element().unwrap().unchecked_into();
    assert!(
        scroller.scroll_width() > scroller.client_width(),
        "the table should scroll inside its box at 360 px ({} <= {})",
        scroller.scroll_width(),
        scroller.client_width()
    );
    assert_eq!(computed(&scroller, "overflow-x"), "auto");
    let rows = table.query_selector_all("tr").unwrap();
    assert!(rows.length() > 1);
    for i in 0..rows.length() {
        let row: web_sys::Element = rows.item(i).unwrap().unchecked_into();
        let first = row.first_element_child().unwrap();
        assert_eq!(computed(&first, "position"), "sticky", "row {i}");
        assert_ne!(
            computed(&first, "background-color"),
            "rgba(0, 0, 0, 0)",
            "row {i}: a sticky cell needs an opaque background"
        );
    }
    let numbers = table.query_selector_all("td.num").unwrap();
    for i in 0..numbers.length() {
        let cell: web_sys::HtmlElement = numbers.item(i).unwrap().unchecked_into();
        assert!(
            cell.scroll_width() <= cell.client_width(),
            "'{}' is cut off",
            cell.text_content().unwrap_or_default()
        );
    }
}
