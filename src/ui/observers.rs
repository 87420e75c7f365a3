//! The browser's layout observers (`ResizeObserver`, `IntersectionObserver`) as values that stop
//! observing when dropped, so a component that unmounts leaves nothing behind.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// An active observer of one element. Dropping it disconnects the observer and frees its callback.
pub struct Watching {
    disconnect: Box<dyn Fn()>,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Watching {
    /// Keeps observing for as long as the page lives (for observers of the app's root).
    pub fn forever(self) {
        std::mem::forget(self);
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        (self.disconnect)();
    }
}

/// Calls `on_resize` with the `ResizeObserver` entry of `element` when observing starts and
/// whenever its size changes (layout is up to date while it runs, so reading boxes there forces
/// no extra layout). `None` when the browser has no `ResizeObserver`.
pub fn watch_size(
    element: &web_sys::Element,
    on_resize: impl Fn(&web_sys::ResizeObserverEntry) + 'static,
) -> Option<Watching> {
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        // Several entries for one element are in time order: the last one is current.
        if let Some(entry) = entries
            .get(entries.length().saturating_sub(1))
            .dyn_ref::<web_sys::ResizeObserverEntry>()
        {
            on_resize(entry);
        }
    });
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(element);
    Some(Watching {
        disconnect: Box::new(move || observer.disconnect()),
        _callback: callback,
    })
}

/// Calls `on_change(true)` when `element` comes within `margin_px` CSS pixels of the viewport and
/// `on_change(false)` when it leaves; the browser reports the starting state too. `None` when the
/// browser has no `IntersectionObserver`.
pub fn watch_in_view(
    element: &web_sys::Element,
    margin_px: u32,
    on_change: impl Fn(bool) + 'static,
) -> Option<Watching> {
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        if let Some(entry) = entries
            .get(entries.length().saturating_sub(1))
            .dyn_ref::<web_sys::IntersectionObserverEntry>()
        {
            on_change(entry.is_intersecting());
        }
    });
    let options = web_sys::IntersectionObserverInit::new();
    options.set_root_margin(&format!("{margin_px}px"));
    let observer = web_sys::IntersectionObserver::new_with_options(
        callback.as_ref().unchecked_ref(),
        &options,
    )
    .ok()?;
    observer.observe(element);
    Some(Watching {
        disconnect: Box::new(move || observer.disconnect()),
        _callback: callback,
    })
}
