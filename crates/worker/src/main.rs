//! The Quantize lab's Web Worker (built by Trunk from `index.html`'s `data-type="worker"` link,
//! started by the page from `bitbudget-worker_loader.js`). Each message is an array: a CBOR
//! [`Request`] in a `Uint8Array`, and for a tensor part its values in a `Float32Array`. Answers
//! are a CBOR [`bitbudget_worker::Response`] in a transferred `Uint8Array`.

#[cfg(target_arch = "wasm32")]
fn main() {
    use bitbudget_worker::{decode, encode, Analyst, Request, Response};
    use js_sys::{Array, Float32Array, Uint8Array};
    use std::cell::RefCell;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = {
        let scope = scope.clone();
        move |response: &Response| {
            let bytes = Uint8Array::from(encode(response).as_slice());
            let transfer = Array::of1(&bytes.buffer());
            // Posting to the page cannot fail for a plain byte array.
            let _ = scope.post_message_with_transfer(&bytes, &transfer);
        }
    };
    let analyst = RefCell::new(Analyst::default());
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new({
        let post = post.clone();
        move |event: MessageEvent| {
            let message: Array = event.data().unchecked_into();
            let header = Uint8Array::new(&message.get(0)).to_vec();
            let values = message
                .get(1)
                .dyn_into::<Float32Array>()
                .map(|v| v.to_vec())
                .unwrap_or_default();
            let answer = match decode::<Request>(&header) {
                Ok(request) => analyst.borrow_mut().handle(request, &values),
                Err(message) => Some(Response::Failed {
                    generation: 0,
                    message,
                }),
            };
            if let Some(answer) = answer {
                post(&answer);
            }
        }
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    post(&Response::Ready);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "bitbudget-worker runs inside a browser's Web Worker: Trunk builds it for \
         wasm32-unknown-unknown from index.html (see README)"
    );
    std::process::exit(2);
}
