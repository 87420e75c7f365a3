//! Helpers shared by the browser tests: mount into a fresh element, query by `data-testid`,
//! fire events, and let effects run.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};

/// Loads the app's stylesheet into the test page once, so layout assertions see the real CSS.
pub fn load_css() {
    let doc = web_sys::window().unwrap().document().unwrap();
    if doc.get_element_by_id("app-css").is_none() {
        let style = doc.create_element("style").unwrap();
        style.set_id("app-css");
        style.set_text_content(Some(include_str!("../../assets/style.css")));
        doc.head().unwrap().append_child(&style).unwrap();
    }
}

thread_local! {
    /// The exports of the on-demand modules, linked into this binary (see [`link_modules`]).
    static MODULES: wasm_bindgen::JsValue = linked_modules();
}

/// `bitbudgetBoot.module` of index.html's boot script, answering from this binary: the Memory
/// page's files module is the same library functions that `src/bin/memory_files.rs` exports
/// under the same names (`dist_check.mjs` checks the real module in the release build).
fn linked_modules() -> wasm_bindgen::JsValue {
    use bitbudget_app::ui::pages::memory::files;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsValue;
    let download =
        Closure::<dyn Fn(String, String) -> js_sys::Promise>::new(|kind: String, query: String| {
            wasm_bindgen_futures::future_to_promise(async move {
                let made = files::download(&kind, &query).await;
                made.map(|()| JsValue::UNDEFINED).map_err(JsValue::from)
            })
        });
    let read_config = Closure::<dyn Fn(String, String) -> Result<JsValue, JsValue>>::new(
        |query: String, text: String| {
            let (q, said) = files::read_config(&query, &text)?;
            Ok(js_sys::Array::of2(&q.into(), &said.into()).into())
        },
    );
    let exports = js_sys::Object::new();
    js_sys::Reflect::set(&exports, &files::DOWNLOAD.into(), &download.into_js_value()).unwrap();
    js_sys::Reflect::set(
        &exports,
        &files::READ_CONFIG.into(),
        &read_config.into_js_value(),
    )
    .unwrap();
    let module = js_sys::Function::new_with_args(
        "exports, name",
        "return (asked) => asked === name ? Promise.resolve(exports) : Promise.reject(new Error(`no module named ${asked}`));",
    );
    module
        .call2(&JsValue::NULL, &exports, &files::MODULE.into())
        .unwrap()
}

/// Gives the test page the boot script's `bitbudgetBoot.module`, keeping what else a test put
/// in `bitbudgetBoot` (a light embed's `loadRest`).
pub fn link_modules() {
    let window = web_sys::window().unwrap();
    let mut boot = js_sys::Reflect::get(&window, &"bitbudgetBoot".into()).unwrap();
    if !boot.is_object() {
        boot = js_sys::Object::new().into();
        js_sys::Reflect::set(&window, &"bitbudgetBoot".into(), &boot).unwrap();
    }
    MODULES.with(|m| js_sys::Reflect::set(&boot, &"module".into(), m).unwrap());
}

/// A fresh `<div>` appended to the body, so each test starts from nothing; the on-demand modules
/// are linked ([`link_modules`]).
pub fn fresh_root() -> HtmlElement {
    link_modules();
    let document = web_sys::window().unwrap().document().unwrap();
    let root: HtmlElement = document.create_element("div").unwrap().unchecked_into();
    root.style().set_property("width", "1000px").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

/// Mounts `view` into a fresh element ([`fresh_root`]); the handle keeps it mounted.
pub fn mount_fresh<F, N>(view: F) -> (HtmlElement, impl Sized)
where
    F: FnOnce() -> N + 'static,
    N: leptos::prelude::IntoView,
{
    let root = fresh_root();
    let handle = leptos::mount::mount_to(root.clone(), view);
    (root, handle)
}

/// The element with `data-testid="id"` under `root`; panics with the id when missing.
pub fn by_testid(root: &HtmlElement, id: &str) -> HtmlElement {
    root.query_selector(&format!("[data-testid='{id}']"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={id}"))
        .unchecked_into()
}

/// Asserts that `haystack` contains `needle`, showing both when it does not.
#[track_caller]
pub fn assert_has(haystack: &str, needle: &str) {
    assert!(haystack.contains(needle), "{haystack:?} lacks {needle:?}");
}

/// Asserts that the text of the element with `data-testid="id"` contains `needle`, showing the
/// whole text when it does not.
#[track_caller]
pub fn assert_text_has(root: &HtmlElement, id: &str, needle: &str) {
    let t = text(root, id);
    assert!(t.contains(needle), "{id} reads {t:?}, without {needle:?}");
}

/// Asserts that the text of the element with `data-testid="id"` is `expected`.
#[track_caller]
pub fn assert_text_is(root: &HtmlElement, id: &str, expected: &str) {
    assert_eq!(text(root, id), expected, "{id}");
}

/// The Bits page showing `x` in `fmt` (round to nearest, no saturation), mounted in a fresh
/// element; the handle keeps it mounted.
pub fn mount_bits(x: &str, fmt: bitbudget_math::format::FormatId) -> (HtmlElement, impl Sized) {
    use bitbudget_app::ui::pages::bits::BitsPage;
    use leptos::prelude::*;
    let initial = bitbudget_app::ui::pages::bits::query::BitsQuery {
        x: x.into(),
        fmt,
        ..Default::default()
    };
    mount_fresh(move || view! { <BitsPage initial /> })
}

/// Asserts that the text of the element with `data-testid="id"` starts with `prefix`.
#[track_caller]
pub fn assert_text_starts(root: &HtmlElement, id: &str, prefix: &str) {
    let t = text(root, id);
    assert!(
        t.starts_with(prefix),
        "{id} reads {t:?}, not from {prefix:?}"
    );
}

/// Asserts that `el` shows all of its content across (its scroll width is at most its box's,
/// give or take a pixel of rounding), naming `what` and both widths when not.
#[track_caller]
pub fn assert_not_cut(el: &web_sys::Element, what: &str) {
    assert!(
        el.scroll_width() <= el.client_width() + 1,
        "{what} is cut or spills over: {} px of content in {} px",
        el.scroll_width(),
        el.client_width()
    );
}

/// Trimmed text content of the element with `data-testid="id"`.
pub fn text(root: &HtmlElement, id: &str) -> String {
    by_testid(root, id)
        .text_content()
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Types `value` into the input with `data-testid="id"` (sets it and fires `input`).
pub fn type_into(root: &HtmlElement, id: &str, value: &str) {
    let input: HtmlInputElement = by_testid(root, id).unchecked_into();
    input.set_value(value);
    let event = web_sys::Event::new_with_event_init_dict("input", &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    input.dispatch_event(&event).unwrap();
}

/// Waits `ms` milliseconds (a browser timer).
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

/// Lets Leptos flush effects: a reactive tick and then a macrotask.
pub async fn settle() {
    leptos::task::tick().await;
    sleep(10).await;
    leptos::task::tick().await;
}

/// The fingerprint of canvas `id` once it differs from `before`: a redraw can wait for an
/// animation frame, which a busy machine delays, so this polls for up to about 3 s and then
/// returns what is there (the caller's assertion says what did not change). The canvas is first
/// scrolled into view: a chart out of view waits to be seen before it draws (`Placement`), and the
/// roots of earlier tests can push this one's below the fold.
pub async fn redrawn(root: &HtmlElement, id: &str, before: u64) -> u64 {
    scroll_into_view(root, id).await;
    for _ in 0..60 {
        let now = canvas_fingerprint(root, id).0;
        if now != before {
            return now;
        }
        sleep(50).await;
    }
    canvas_fingerprint(root, id).0
}

/// Makes the page's `fetch` answer any URL ending in `name` with `bytes` (HTTP 200), as the
/// release build's server serves the files index.html copies; `None` stops that (the test server
/// then answers 404).
pub fn serve_file(name: &str, bytes: Option<&[u8]>) {
    let install = js_sys::Function::new_with_args(
        "name, bytes",
        "if (!window.__served) {
           window.__served = {};
           const real = window.fetch.bind(window);
           window.fetch = (url, ...rest) => {
             const hit = Object.keys(window.__served).find((n) => String(url).endsWith(n));
             return hit ? Promise.resolve(new Response(window.__served[hit])) : real(url, ...rest);
           };
         }
         if (bytes) window.__served[name] = bytes; else delete window.__served[name];",
    );
    let body = bytes.map_or(wasm_bindgen::JsValue::UNDEFINED, |b| {
        js_sys::Uint8Array::from(b).into()
    });
    install
        .call2(&wasm_bindgen::JsValue::NULL, &name.into(), &body)
        .unwrap();
}

/// Scrolls the element with `data-testid=id` into view and waits until the page has noticed
/// (charts out of view are not drawn until they come near it).
pub async fn scroll_into_view(root: &HtmlElement, id: &str) {
    by_testid(root, id).scroll_into_view();
    sleep(100).await;
    settle().await;
}

/// The address bar's query once the page has written its state there (it merges the writes of
/// [`bitbudget_app::ui::browser::URL_WRITE_DELAY_MS`] into one).
pub async fn address_bar() -> String {
    sleep(bitbudget_app::ui::browser::URL_WRITE_DELAY_MS + 50).await;
    web_sys::window().unwrap().location().search().unwrap()
}

/// Whether an element with `data-testid=id` is in `root`.
pub fn present(root: &HtmlElement, id: &str) -> bool {
    root.query_selector(&format!("[data-testid='{id}']"))
        .unwrap()
        .is_some()
}

/// Waits (up to `tries` settles) for an element with `data-testid=id` to appear.
pub async fn until_present(root: &HtmlElement, id: &str, tries: usize) {
    for _ in 0..tries {
        if present(root, id) {
            return;
        }
        settle().await;
    }
}

/// A cheap fingerprint of a canvas's pixels and the number of distinct colours sampled.
pub fn canvas_fingerprint(root: &HtmlElement, id: &str) -> (u64, usize) {
    let canvas: web_sys::HtmlCanvasElement = by_testid(root, id).unchecked_into();
    let ctx: web_sys::CanvasRenderingContext2d =
        canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let data = ctx
        .get_image_data(0.0, 0.0, canvas.width() as f64, canvas.height() as f64)
        .unwrap()
        .data();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut colours = std::collections::HashSet::new();
    for (i, b) in data.iter().enumerate() {
        hash = (hash ^ *b as u64).wrapping_mul(0x100_0000_01b3);
        if i % 64 == 0 && i + 2 < data.len() {
            colours.insert((data[i], data[i + 1], data[i + 2]));
        }
    }
    (hash, colours.len())
}

/// Fires a bubbling `change` at `target`, as a user's pick does (Leptos delegates it).
fn fire_change(target: &web_sys::EventTarget) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    target
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
}

/// Picks `value` in the select with `data-testid="id"` and fires a bubbling `change`.
pub fn choose(root: &HtmlElement, id: &str, value: &str) {
    let select: web_sys::HtmlSelectElement = by_testid(root, id).unchecked_into();
    select.set_value(value);
    fire_change(&select);
}

/// Sets the checkbox with `data-testid="id"` to `on` and fires a bubbling `change`, as a click
/// would.
pub fn set_checked(root: &HtmlElement, id: &str, on: bool) {
    let input: HtmlInputElement = by_testid(root, id).unchecked_into();
    input.set_checked(on);
    fire_change(&input);
}

/// The bytes a breakdown part shows (`data-bytes` of `bytes-{part}`).
pub fn part_bytes(root: &HtmlElement, part: &str) -> u64 {
    by_testid(root, &format!("bytes-{part}"))
        .get_attribute("data-bytes")
        .unwrap()
        .parse()
        .unwrap()
}

/// Dispatches a bubbling `keydown` of `key` on the element with `data-testid="id"`.
pub fn press(root: &HtmlElement, id: &str, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    by_testid(root, id).dispatch_event(&ev).unwrap();
}

/// The element that has the keyboard focus.
pub fn focused() -> web_sys::Element {
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .active_element()
        .unwrap()
}

/// Drops `bytes` as a file called `name` on the upload input.
pub fn upload(root: &web_sys::HtmlElement, name: &str, bytes: &[u8]) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let file = web_sys::File::new_with_u8_array_sequence(&parts, name).unwrap();
    let transfer = web_sys::DataTransfer::new().unwrap();
    transfer.items().add_with_file(&file).unwrap();
    let input: web_sys::HtmlInputElement = by_testid(root, "quant-file").unchecked_into();
    input.set_files(transfer.files().as_ref());
    input
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
}

/// A view mounted in an iframe of its own; dropping it unmounts the view and removes the frame,
/// so that later tests' pages are not pushed below the window (charts out of view are not drawn).
pub struct FrameMount<M> {
    _app: M,
    frame: web_sys::Element,
}

impl<M> Drop for FrameMount<M> {
    fn drop(&mut self) {
        self.frame.remove();
    }
}

/// Mounts `view` in a fresh `width` × `height` iframe that has the app's stylesheet, so that its
/// media and container queries see a phone (or an embed's column). Returns the root element
/// inside the frame and the handle that keeps the view (and the frame) in place.
pub async fn mount_in_frame<F, N>(width: u32, height: u32, view: F) -> (HtmlElement, impl Sized)
where
    F: FnOnce() -> N + 'static,
    N: leptos::prelude::IntoView + 'static,
{
    use wasm_bindgen::JsCast;
    link_modules();
    let document = web_sys::window().unwrap().document().unwrap();
    let frame = document.create_element("iframe").unwrap();
    frame
        .set_attribute(
            "style",
            &format!("width:{width}px;height:{height}px;border:0"),
        )
        .unwrap();
    document.body().unwrap().append_child(&frame).unwrap();
    // A timer, not `settle`: Leptos' executor may not be running before the first mount.
    sleep(10).await;
    let inner: web_sys::Document = js_sys::Reflect::get(&frame, &"contentDocument".into())
        .unwrap()
        .unchecked_into();
    let style = inner.create_element("style").unwrap();
    style.set_text_content(Some(include_str!("../../assets/style.css")));
    inner
        .query_selector("head")
        .unwrap()
        .unwrap()
        .append_child(&style)
        .unwrap();
    let root: HtmlElement = inner.create_element("div").unwrap().unchecked_into();
    inner.body().unwrap().append_child(&root).unwrap();
    let app = leptos::mount::mount_to(root.clone(), view);
    settle().await;
    (root, FrameMount { _app: app, frame })
}

/// Whether the element with `data-testid=id` takes up room on screen (it and its ancestors are
/// displayed: not inside a closed `<details>`, not hidden by a media query).
pub fn shown(root: &HtmlElement, id: &str) -> bool {
    element_shown(&by_testid(root, id))
}

/// Whether nothing with `data-testid=id` is on screen: not built (what an embed keeps behind a
/// click is built when first opened) or built and hidden.
pub fn not_on_screen(root: &HtmlElement, id: &str) -> bool {
    root.query_selector(&format!("[data-testid='{id}']"))
        .unwrap()
        .is_none_or(|el| !element_shown(el.unchecked_ref()))
}

/// Whether `el` takes up room on screen. Chromium lays out a closed `<details>`'s content
/// (`content-visibility: hidden`) when asked for its size, so that is checked apart.
pub fn element_shown(el: &HtmlElement) -> bool {
    el.offset_height() > 0
        && el
            .closest("details:not([open]) > :not(summary)")
            .unwrap()
            .is_none()
}

/// Opens the embed's closed disclosure `data-testid=id` as a reader would, by its summary.
pub async fn open_disclosure(root: &HtmlElement, id: &str) {
    use wasm_bindgen::JsCast;
    let summary: HtmlElement = by_testid(root, id)
        .query_selector("summary")
        .unwrap()
        .expect("the disclosure has a summary")
        .unchecked_into();
    summary.click();
    settle().await;
}

/// The height in CSS px of what is mounted at `root` (an embed's widget height).
pub fn mounted_height(root: &HtmlElement) -> f64 {
    root.get_bounding_client_rect().height()
}

/// Pastes `text` into the config.json area (Memory or Serve) and presses "Use this config".
pub fn paste(root: &HtmlElement, text: &str) {
    let area: web_sys::HtmlTextAreaElement = by_testid(root, "config-text").unchecked_into();
    area.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    area.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    by_testid(root, "config-load").click();
}

/// A `File` of `bytes` named `name`, as a page's file input receives it.
pub fn gguf_file(bytes: &[u8], name: &str) -> web_sys::File {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    web_sys::File::new_with_u8_array_sequence(&parts, name).unwrap()
}

/// Puts `f` on the `gguf-input` file input, as picking it would, and fires `change`.
pub fn pick_file(root: &web_sys::HtmlElement, f: &web_sys::File) {
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(f).unwrap();
    let input: web_sys::HtmlInputElement = by_testid(root, "gguf-input").unchecked_into();
    input.set_files(dt.files().as_ref());
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    input
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
}

/// Replaces link clicks (how the app starts a download) with keeping what would have been saved
/// while it still exists: `window.__downloads` gets `[file name, text, href]` per download (the
/// text of a `blob:` link, "" for a `data:` one such as the PNG's).
pub fn capture_downloads() {
    js_sys::Function::new_no_args(
        "window.__downloads = [];
         HTMLAnchorElement.prototype.click = function () {
           let text = '';
           if (this.href.startsWith('blob:')) {
             const xhr = new XMLHttpRequest();
             xhr.open('GET', this.href, false);
             xhr.send();
             text = xhr.responseText;
           }
           window.__downloads.push([this.download, text, this.href]);
         };",
    )
    .call0(&wasm_bindgen::JsValue::NULL)
    .unwrap();
}

fn downloads() -> js_sys::Array {
    js_sys::Reflect::get(&web_sys::window().unwrap(), &"__downloads".into())
        .unwrap()
        .unchecked_into()
}

/// Clicks the button `id` and waits (about 5 s at most) for the download it starts, after
/// [`capture_downloads`]: `(file name, text, href)`. Panics with the page's message (a
/// `.field-error` under `root`) when none comes.
pub async fn download_by(root: &HtmlElement, id: &str) -> (String, String, String) {
    let before = downloads().length();
    by_testid(root, id).click();
    for _ in 0..200 {
        settle().await;
        let all = downloads();
        if all.length() > before {
            let last: js_sys::Array = all.at(-1).unchecked_into();
            let field = |i| last.get(i).as_string().unwrap_or_default();
            return (field(0), field(1), field(2));
        }
        if let Some(e) = root.query_selector(".field-error").unwrap() {
            panic!(
                "{id}: no download: {}",
                e.text_content().unwrap_or_default()
            );
        }
    }
    panic!("{id}: no download, and no message");
}
