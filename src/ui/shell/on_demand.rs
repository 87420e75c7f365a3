//! On-demand modules: wasm binaries of their own that a page loads the first time a reader needs
//! what they hold (the Memory page's downloads and config reader), so that the page's own binary
//! stays light. index.html's boot script lists them with the pages (`MODULES`) and loads one on
//! `bitbudgetBoot.module(name)`, once, answering its exports; this is the page's side of that.

use js_sys::{Function, Promise, Reflect};
use std::fmt;
use wasm_bindgen::{JsCast, JsValue};

/// Why a call to an on-demand module gave no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OnDemandError {
    /// The module could not be loaded (offline, a blocked or missing file, no boot script): a
    /// later call tries again. The text is the browser's reason.
    Load(String),
    /// The module ran and answered with this error (its own sentence).
    Failed(String),
}

impl fmt::Display for OnDemandError {
    /// `Load`: "its code could not be loaded (REASON); try again"; `Failed`: the module's sentence.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnDemandError::Load(why) => {
                write!(f, "its code could not be loaded ({why}); try again")
            }
            OnDemandError::Failed(said) => f.write_str(said),
        }
    }
}

/// What went wrong in JS, as a sentence: a thrown string as it is, an `Error`'s message, else
/// the value as JS prints it.
fn said(e: JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => String::from(err.message()),
        None => String::from(js_sys::JSON::stringify(&e).unwrap_or_else(|_| "?".into())),
    }
}

/// The boot script's promise of module `name`'s exports (the same promise on every call).
fn module(name: &str) -> Result<Promise, String> {
    let window = web_sys::window().ok_or("no window")?;
    let boot = Reflect::get(&window, &"bitbudgetBoot".into()).unwrap_or(JsValue::UNDEFINED);
    let load: Function = Reflect::get(&boot, &"module".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("this page was not started by bitbudget's boot script")?;
    load.call1(&boot, &name.into())
        .map_err(said)?
        .dyn_into()
        .map_err(|_| "the boot script answered no promise".to_string())
}

/// Starts loading module `name` without waiting for it: a pointer or the focus has reached what
/// needs it. A failure here is left for [`call`] to report.
pub fn warm(name: &str) {
    let _ = module(name);
}

/// Calls `export` of module `name` with `args`, loading the module first if need be, and waits
/// for its answer when it is a promise. The error says whether the module could not be loaded
/// (or lacks `export`: a build that does not match) or what the export threw.
pub async fn call(name: &str, export: &str, args: &[JsValue]) -> Result<JsValue, OnDemandError> {
    let exports = wasm_bindgen_futures::JsFuture::from(module(name).map_err(OnDemandError::Load)?)
        .await
        .map_err(|e| OnDemandError::Load(said(e)))?;
    let f: Function = Reflect::get(&exports, &export.into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or_else(|| OnDemandError::Load(format!("{name} has no '{export}'")))?;
    let failed = |e| OnDemandError::Failed(said(e));
    let answer = f
        .apply(&JsValue::UNDEFINED, &args.iter().collect())
        .map_err(failed)?;
    match answer.dyn_into::<Promise>() {
        Ok(p) => wasm_bindgen_futures::JsFuture::from(p)
            .await
            .map_err(failed),
        Err(value) => Ok(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// A module that loads answers through its exports, a thrown string or a rejected `Error` is
    /// the module's own failure, and one that cannot load (or lacks the export) says so.
    #[wasm_bindgen_test]
    async fn each_answer_and_failure_is_told_apart() {
        js_sys::eval(
            "window.bitbudgetBoot = { module: (name) => name === 'ok'
               ? Promise.resolve({ half: (x) => x / 2, no: () => { throw 'bad input'; },
                   later: () => Promise.reject(new Error('late')) })
               : Promise.reject(new TypeError('Failed to fetch')) };",
        )
        .unwrap();
        let half = call("ok", "half", &[JsValue::from(3.0)]).await.unwrap();
        assert_eq!(half.as_f64(), Some(1.5));
        let failed = |s: &str| OnDemandError::Failed(s.into());
        assert_eq!(
            call("ok", "no", &[]).await.unwrap_err(),
            failed("bad input")
        );
        assert_eq!(call("ok", "later", &[]).await.unwrap_err(), failed("late"));
        let gone = call("gone", "half", &[]).await.unwrap_err();
        assert_eq!(gone, OnDemandError::Load("Failed to fetch".into()));
        assert_eq!(
            gone.to_string(),
            "its code could not be loaded (Failed to fetch); try again"
        );
        assert_eq!(
            call("ok", "missing", &[]).await.unwrap_err(),
            OnDemandError::Load("ok has no 'missing'".into())
        );
        js_sys::eval("delete window.bitbudgetBoot;").unwrap();
        assert_eq!(
            call("ok", "half", &[]).await.unwrap_err(),
            OnDemandError::Load("this page was not started by bitbudget's boot script".into())
        );
    }
}
