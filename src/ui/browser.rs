//! Thin wrappers over the browser APIs the app needs (URL, media queries, pixel ratio, resize).
//! Every call tolerates a missing `window` (returns a default) instead of panicking.

use leptos::prelude::*;

/// The current `location.search` (e.g. `?tab=bits&x=0.1`), or "" when unavailable.
pub fn location_search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Replaces the URL's query without adding a history entry or reloading.
pub fn replace_query(query: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let path = window.location().pathname().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}{query}")),
        );
    }
}

/// Whether the system asks for a dark colour scheme.
pub fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
}

/// Device pixels per CSS pixel (1.0 when unknown), for crisp canvases.
pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// A signal with the window's inner width in CSS pixels, updated on resize. Call once per app and
/// share it through context.
pub fn window_width() -> ReadSignal<f64> {
    let width = || {
        web_sys::window()
            .and_then(|w| w.inner_width().ok())
            .and_then(|v| v.as_f64())
            .unwrap_or(1024.0)
    };
    let (read, write) = signal(width());
    let handle = window_event_listener(leptos::ev::resize, move |_| write.set(width()));
    on_cleanup(move || handle.remove());
    read
}

/// Offers `content` as a file download named `filename` with MIME type `mime`.
pub fn download_text(filename: &str, mime: &str, content: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .map_err(|_| "cannot create the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "cannot create a download link")?;
    let result = download_url(filename, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
    result
}

/// Offers the resource at `url` (e.g. a `data:` URL) as a download named `filename`.
pub fn download_url(filename: &str, url: &str) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| "cannot create a link")?
        .unchecked_into();
    a.set_href(url);
    a.set_download(filename);
    a.click();
    Ok(())
}
