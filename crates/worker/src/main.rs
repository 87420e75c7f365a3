//! The Quantize lab's Web Worker (built by Trunk from `index.html`'s `data-type="worker"` link,
//! started by the page from `bitbudget-worker_loader.js`). Each message is an array: a postcard
//! [`bitbudget_worker::Request`] in a `Uint8Array`, then a tensor part's values in a
//! `Float32Array`, or a file's bytes in a `Uint8Array` or the chosen file itself (a `Blob`,
//! read here so that the page's thread never holds the whole file). Answers are a postcard
//! [`bitbudget_worker::Response`] in a transferred `Uint8Array`, then a read file's values.

#[cfg(target_arch = "wasm32")]
fn main() {
    use bitbudget_worker::{decode, encode, read_request, Analyst, Request, Response};
    use js_sys::{Array, Float32Array, Uint8Array};
    use std::cell::RefCell;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    // Answers are [postcard header] or, for a read file, [postcard header, Float32Array].
    let post = {
        let scope = scope.clone();
        move |response: &Response, values: Option<&[f32]>| {
            let bytes = Uint8Array::from(encode(response).as_slice());
            let message = Array::of1(&bytes);
            let transfer = Array::of1(&bytes.buffer());
            if let Some(values) = values {
                let values = Float32Array::from(values);
                transfer.push(&values.buffer());
                message.push(&values);
            }
            // Posting arrays of transferable buffers to the page cannot fail.
            let _ = scope.post_message_with_transfer(&message, &transfer);
        }
    };
    let analyst = RefCell::new(Analyst::default());
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new({
        let post = post.clone();
        move |event: MessageEvent| {
            let message: Array = event.data().unchecked_into();
            let header = Uint8Array::new(&message.get(0)).to_vec();
            let request = match decode::<Request>(&header) {
                Ok(request) => request,
                Err(message) => {
                    let generation = 0;
                    return post(
                        &Response::Failed {
                            generation,
                            message,
                        },
                        None,
                    );
                }
            };
            if let Request::Parse { file, tensor } = &request {
                let read = match message.get(1).dyn_into::<web_sys::Blob>() {
                    Ok(blob) => read_blob(&blob),
                    Err(bytes) => Ok(Uint8Array::new(&bytes).to_vec()),
                };
                let parsed = read.and_then(|bytes| read_request(file, tensor.as_deref(), &bytes));
                return match parsed {
                    Ok((index, t)) => {
                        let (name, shape) = (t.name, t.shape);
                        let parsed = Response::Parsed { index, name, shape };
                        post(&parsed, Some(&t.values))
                    }
                    Err(message) => {
                        let generation = 0;
                        post(
                            &Response::Failed {
                                generation,
                                message,
                            },
                            None,
                        )
                    }
                };
            }
            let values = message
                .get(1)
                .dyn_into::<Float32Array>()
                .map(|v| v.to_vec())
                .unwrap_or_default();
            if let Some(answer) = analyst.borrow_mut().handle(request, &values) {
                post(&answer, None);
            }
        }
    });
    /// A chosen file's bytes, read synchronously (a worker may block; the page never does).
    fn read_blob(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
        let reader = web_sys::FileReaderSync::new()
            .map_err(|_| "this browser cannot read files in a Web Worker".to_string())?;
        let buffer = reader
            .read_as_array_buffer(blob)
            .map_err(|_| "the browser could not read the file".to_string())?;
        Ok(Uint8Array::new(&buffer).to_vec())
    }
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    let protocol = bitbudget_worker::PROTOCOL;
    post(&Response::Ready { protocol }, None);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "bitbudget-worker runs inside a browser's Web Worker: Trunk builds it for \
         wasm32-unknown-unknown from index.html (see README)"
    );
    std::process::exit(2);
}
