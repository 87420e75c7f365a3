//! Long work on the page's thread, paced to the browser's frames, and the clock it reads.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `performance.now()` in milliseconds (0 where there is no window).
pub fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Yields to the browser until it has drawn a frame: a zero-delay timeout queued from the next
/// animation-frame callback runs once that frame is rendered. (A bare zero-delay timeout does
/// not do it: Chromium may run many timer tasks before it renders, so frames came 50-65 ms
/// apart while an upload was copied in 8 ms steps.) A hidden page draws no frames, so a
/// 100 ms timeout ends the wait there.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Some(w) = web_sys::window() else {
            let _ = resolve.call0(&JsValue::NULL);
            return;
        };
        let after_frame = {
            let (w, resolve) = (w.clone(), resolve.clone());
            Closure::once_into_js(move || {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
            })
        };
        let _ = w.request_animation_frame(after_frame.unchecked_ref());
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100);
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Long work on the page's thread, paced to the browser's frames: it yields (until a frame is
/// drawn, [`yield_now`]) once `budget_ms` of work has run since the last yield.
pub struct Pacer {
    budget_ms: f64,
    started: f64,
}

impl Pacer {
    /// A pacer whose budget starts now.
    pub fn new(budget_ms: f64) -> Self {
        Self {
            budget_ms,
            started: now(),
        }
    }

    /// Whether the budget is spent (time to yield).
    pub fn due(&self) -> bool {
        now() - self.started >= self.budget_ms
    }

    /// Yields to the browser, then starts a new budget.
    pub async fn yield_now(&mut self) {
        yield_now().await;
        self.started = now();
    }

    /// Yields if the budget is spent; returns whether it did.
    pub async fn pace(&mut self) -> bool {
        let due = self.due();
        if due {
            self.yield_now().await;
        }
        due
    }
}
