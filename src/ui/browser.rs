//! Thin wrappers over the browser APIs the app needs (URL, media queries, pixel ratio, resize).
//! Every call tolerates a missing `window` (returns a default) instead of panicking.

use leptos::prelude::*;
use std::cell::RefCell;
use wasm_bindgen::JsCast;

thread_local! {
    /// Shell parameters (theme, widget id) appended to every query a page writes.
    static SHELL_SUFFIX: RefCell<String> = const { RefCell::new(String::new()) };
    /// The query last written by [`replace_query`] (or read at start), for links that copy it.
    static QUERY: ArcRwSignal<String> = ArcRwSignal::new(location_search());
    /// Set by [`write_address_at_once`]: [`replace_query`] writes the address bar without delay.
    static AT_ONCE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Sets the shell parameters (e.g. `&theme=dark&id=w1`) that [`replace_query`] appends to every
/// page query, so a page that rewrites the URL keeps them.
pub fn set_shell_suffix(suffix: String) {
    SHELL_SUFFIX.with(|s| *s.borrow_mut() = suffix);
}

/// The current query (with `?`) as a reactive value: what the page last wrote with
/// [`replace_query`], shell parameters included.
pub fn current_query() -> String {
    QUERY.with(|q| q.get())
}

/// The current `location.search` (e.g. `?tab=bits&x=0.1`), or "" when unavailable.
pub fn location_search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Opens `url` (relative to this page, e.g. `?tab=serve&...`) in this page's place, without a
/// history entry for the page it leaves; nothing happens outside a browser.
pub fn open_in_place(url: &str) {
    if let Some(w) = web_sys::window() {
        // A refused navigation leaves the page showing its link to the same address.
        let _ = w.location().replace(url);
    }
}

/// The current query (with `?`), like [`current_query`] but without tracking it.
pub fn current_query_untracked() -> String {
    QUERY.with(|q| q.get_untracked())
}

/// How long (ms) the address bar may lag the page: the URL writes of a burst of changes (typing,
/// dragging) become one. `history.replaceState` costs Chromium about 1.4 ms a call, more than a
/// third of a whole Memory page redraw, so it is kept off the change itself.
pub const URL_WRITE_DELAY_MS: i32 = 150;

thread_local! {
    /// The query (shell parameters included) waiting to be written to the address bar.
    static PENDING_URL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the URL's query without adding a history entry or reloading; the shell parameters
/// (see [`set_shell_suffix`]) are appended. [`current_query`] changes at once; the address bar
/// within [`URL_WRITE_DELAY_MS`] (or when the page is hidden, whichever comes first).
pub fn replace_query(query: &str) {
    let suffix = SHELL_SUFFIX.with(|s| s.borrow().clone());
    let query = if query.is_empty() || query == "?" {
        format!("?{}", suffix.trim_start_matches('&'))
    } else {
        format!("{query}{suffix}")
    };
    QUERY.with(|q| {
        if q.get_untracked() != query {
            q.set(query.clone())
        }
    });
    let already_scheduled = PENDING_URL.with(|p| p.borrow_mut().replace(query).is_some());
    if AT_ONCE.with(std::cell::Cell::get) {
        flush_url();
    } else if !already_scheduled {
        schedule_url_write();
    }
}

/// Writes the pending query now, and every later one at once: the address is what another
/// binary starts from (a light embed handing over to its whole page), so it must never lag.
pub fn write_address_at_once() {
    AT_ONCE.with(|a| a.set(true));
    flush_url();
}

/// Writes the pending query (if any) to the address bar now.
pub fn flush_url() {
    let Some(query) = PENDING_URL.with(|p| p.borrow_mut().take()) else {
        return;
    };
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

/// Runs [`flush_url`] after [`URL_WRITE_DELAY_MS`], and when the page is hidden (leaving it, or
/// switching tabs) so that history keeps the last state.
fn schedule_url_write() {
    thread_local! {
        static ON_HIDE: () = {
            let flush = wasm_bindgen::closure::Closure::<dyn Fn()>::new(flush_url);
            if let Some(w) = web_sys::window() {
                let _ = w.add_event_listener_with_callback("pagehide", flush.as_ref().unchecked_ref());
                let _ = w.add_event_listener_with_callback("visibilitychange", flush.as_ref().unchecked_ref());
            }
            flush.forget();
        };
    }
    ON_HIDE.with(|_| ());
    let Some(window) = web_sys::window() else {
        return flush_url();
    };
    let later = wasm_bindgen::closure::Closure::once_into_js(flush_url);
    if window
        .set_timeout_with_callback_and_timeout_and_arguments_0(
            later.unchecked_ref(),
            URL_WRITE_DELAY_MS,
        )
        .is_err()
    {
        flush_url();
    }
}

/// The body of `url` (relative to the page), or why it could not be had: "could not be fetched"
/// (offline, blocked), "HTTP 404" and the like, or "the download broke off".
pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|_| "could not be fetched")?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "unexpected fetch result")?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let body = response.array_buffer().map_err(|_| "no body")?;
    let buffer = wasm_bindgen_futures::JsFuture::from(body)
        .await
        .map_err(|_| "the download broke off")?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Whether the system asks for a dark colour scheme.
pub fn prefers_dark() -> bool {
    dark_query().map(|m| m.matches()).unwrap_or(false)
}

fn dark_query() -> Option<web_sys::MediaQueryList> {
    web_sys::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
}

/// A signal that says whether the system prefers dark, updated when the system setting changes.
/// Call once per app.
pub fn system_dark() -> ReadSignal<bool> {
    let (read, write) = signal(prefers_dark());
    if let Some(mq) = dark_query() {
        let on_change = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(
            move |_: web_sys::Event| write.set(prefers_dark()),
        );
        let _ = mq.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        // The listener lives as long as the page.
        on_change.forget();
    }
    read
}

/// The value stored under `key` in local storage, or `None` when absent or when storage is
/// refused (private mode, a sandboxed iframe).
pub fn stored(key: &str) -> Option<String> {
    web_sys::window()?
        .local_storage()
        .ok()??
        .get_item(key)
        .ok()?
}

/// Stores `value` under `key` in local storage; silently does nothing when storage is refused.
pub fn store(key: &str, value: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

/// Sets CSS custom properties and `color-scheme` on the root element through the CSSOM (which a
/// Content-Security-Policy without `'unsafe-inline'` allows), and `data-theme` to `name`.
pub fn set_root_style(properties: &[(String, String)], name: &str) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let _ = root.set_attribute("data-theme", name);
    let style = root.unchecked_ref::<web_sys::HtmlElement>().style();
    for (k, v) in properties {
        let _ = style.set_property(k, v);
    }
}

/// `scheme://host[:port]/path/` of the page (its URL without query, fragment or file name), or ""
/// when unknown.
pub fn page_base() -> String {
    web_sys::window()
        .map(|w| w.location())
        .and_then(|l| Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?)))
        .map(|u| u[..u.rfind('/').map_or(u.len(), |i| i + 1)].to_string())
        .unwrap_or_default()
}

/// The page's path (e.g. `/tools/bitbudget/`), or "" when unknown.
pub fn page_path() -> String {
    web_sys::window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_default()
}

/// Copies `text` to the clipboard; resolves to an error message when the browser refuses (no
/// permission, an insecure origin, a sandboxed iframe).
pub async fn copy_text(text: &str) -> Result<(), String> {
    let clipboard = web_sys::window()
        .map(|w| w.navigator().clipboard())
        .ok_or("no window")?;
    // `navigator.clipboard` is undefined on insecure origins, although web-sys types it as present.
    if wasm_bindgen::JsValue::from(clipboard.clone()).is_undefined() {
        return Err("the clipboard is not available here".into());
    }
    wasm_bindgen_futures::JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|_| "the browser refused the clipboard".into())
}

/// Whether the page runs inside a frame (its parent is another window).
pub fn in_frame() -> bool {
    web_sys::window()
        .and_then(|w| {
            let parent = w.parent().ok().flatten()?;
            Some(!js_sys::Object::is(&w, &parent))
        })
        .unwrap_or(false)
}

/// Posts the widget's content height to the parent window, in the two forms documented in the
/// README's embed section: `{"type": "bitbudget-height", "id": ID, "height": PX}` and
/// Datawrapper's `{"datawrapper-height": {ID: PX}}`. `height_px` is in CSS pixels, rounded up;
/// `id` is "bitbudget" when the URL gives none. Does nothing outside a frame.
pub fn post_height(id: &str, height_px: f64) {
    use js_sys::{Object, Reflect};
    use wasm_bindgen::JsValue;
    if !in_frame() || !height_px.is_finite() || height_px <= 0.0 {
        return;
    }
    let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) else {
        return;
    };
    let h = JsValue::from_f64(height_px.ceil());
    let ours = Object::new();
    let _ = Reflect::set(&ours, &"type".into(), &"bitbudget-height".into());
    let _ = Reflect::set(&ours, &"id".into(), &id.into());
    let _ = Reflect::set(&ours, &"height".into(), &h);
    let inner = Object::new();
    let _ = Reflect::set(&inner, &id.into(), &h);
    let datawrapper = Object::new();
    let _ = Reflect::set(&datawrapper, &"datawrapper-height".into(), &inner);
    // The height is not a secret: any host may receive it.
    let _ = parent.post_message(&ours, "*");
    let _ = parent.post_message(&datawrapper, "*");
}

/// Device pixels per CSS pixel (1.0 when unknown), for crisp canvases.
pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
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
