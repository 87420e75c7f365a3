//! Browser tests of the app shell in headless Chromium: the theme from the URL and the theme menu
//! wins over the system for the CSS custom properties, the choice is stored, and the shell
//! parameters (`theme`, `id`) survive the page rewriting its URL.

use super::common::*;
use bitbudget_app::ui::shell::palette::{custom_properties, DARK, LIGHT, THEME_STORAGE_KEY};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

fn set_url(query: &str) {
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(query))
        .unwrap();
}

fn root_property(name: &str) -> String {
    let html: web_sys::HtmlElement = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .document_element()
        .unwrap()
        .unchecked_into();
    html.style().get_property_value(name).unwrap()
}

fn expected(theme: &bitbudget_app::ui::shell::palette::Theme, name: &str) -> String {
    custom_properties(theme)
        .into_iter()
        .find(|(k, _)| k == name)
        .unwrap()
        .1
}

#[wasm_bindgen_test]
async fn the_url_theme_and_then_the_menu_choice_set_the_colours() {
    set_url("?tab=bits&theme=dark&id=post-1");
    let root = fresh_root();
    let _app = leptos::mount::mount_to(
        root.clone(),
        bitbudget_app::app::<bitbudget_app::ui::pages::bits::query::BitsQuery>,
    );
    settle().await;
    assert_eq!(root_property("--bg"), expected(&DARK, "--bg"));
    assert_eq!(root_property("color-scheme"), "dark");
    let select: web_sys::HtmlSelectElement = by_testid(&root, "theme-select").unchecked_into();
    select.set_value("light");
    select
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    settle().await;
    assert_eq!(root_property("--bg"), expected(&LIGHT, "--bg"));
    let stored = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(THEME_STORAGE_KEY)
        .unwrap();
    assert_eq!(stored.as_deref(), Some("light"));
    // The page rewrote the URL with its own state; the shell kept the theme (now light) and id.
    let search = address_bar().await;
    assert!(
        search.contains("tab=bits")
            && search.contains("theme=light")
            && search.contains("id=post-1"),
        "{search}"
    );
}
