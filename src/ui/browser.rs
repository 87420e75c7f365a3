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
