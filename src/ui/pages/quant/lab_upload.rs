//! Reading a user's file off the page's thread: a Web Worker of its own reads it
//! ([`bitbudget_worker::read_upload`], what the page's thread would run), and its values come
//! back into the page's memory a slice at a time, so even a file near the 256 MiB cap never holds
//! up a frame for long; picking another tensor of a large safetensors file works the same way.
//! Where no worker can start, the caller reads the file on its own thread.

use crate::ui::pages::quant::lab_workers::{post, spawn_worker, workers_off};
use crate::ui::pages::quant::pacing::Pacer;
use bitbudget_math::quant::tensor_io::{Tensor, TensorInfo};
use bitbudget_worker::{decode, Request, Response, PROTOCOL};
use futures_channel::mpsc::unbounded;
use futures_util::StreamExt;
use js_sys::{Array, Float32Array, Uint8Array};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;
use web_sys::{ErrorEvent, MessageEvent};

/// Bytes (or values) copied at a time: 1 Mi (4 MiB of values, about a millisecond).
const SLICE: usize = 1 << 20;
/// Milliseconds of copying between yields to the browser.
const SLICE_MS: f64 = 8.0;

/// A file read: its tensors (empty for .npy), the tensor, and the file's bytes where another of
/// its tensors can be picked (empty for .npy).
pub type ReadFile = (Vec<TensorInfo>, Tensor, Arc<Vec<u8>>);

/// Copies `src` into a new vector a slice at a time, yielding to the browser between slices.
/// `T` is `u8` or `f32` (`copy` copies a range of `src` into a slice of the vector).
async fn copy_sliced<T: Copy + Default>(
    len: usize,
    copy: impl Fn(usize, usize, &mut [T]),
) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(len);
    let mut pacer = Pacer::new(SLICE_MS);
    while out.len() < len {
        let (from, to) = (out.len(), (out.len() + SLICE).min(len));
        out.resize(to, T::default());
        copy(from, to, &mut out[from..to]);
        pacer.pace().await;
    }
    out
}

/// The bytes of `blob`, read a slice at a time, yielding to the browser between slices.
async fn read_sliced(blob: &Blob) -> Result<Vec<u8>, String> {
    let size = blob.size() as usize;
    let mut out = vec![0u8; size];
    let mut pacer = Pacer::new(SLICE_MS);
    for (k, slice) in out.chunks_mut(SLICE).enumerate() {
        let from = (k * SLICE) as f64;
        let buffer = match blob.slice_with_f64_and_f64(from, from + slice.len() as f64) {
            Ok(part) => JsFuture::from(part.array_buffer()).await.ok(),
            Err(_) => None,
        };
        let Some(buffer) = buffer else {
            return Err("the browser could not read the file".into());
        };
        Uint8Array::new(&buffer).copy_to(slice);
        pacer.pace().await;
    }
    Ok(out)
}

/// `bytes` in a new `Uint8Array`, copied a slice at a time, yielding to the browser between
/// slices.
async fn to_js_sliced(bytes: &[u8]) -> Uint8Array {
    let out = Uint8Array::new_with_length(bytes.len() as u32);
    let mut pacer = Pacer::new(SLICE_MS);
    for (k, slice) in bytes.chunks(SLICE).enumerate() {
        let from = (k * SLICE) as u32;
        out.subarray(from, from + slice.len() as u32)
            .copy_from(slice);
        pacer.pace().await;
    }
    out
}

/// What the reading worker said.
enum Heard {
    Message(JsValue),
    Failed(String),
}

/// Reads the chosen file `file` (named `name`) in a Web Worker, which reads its bytes itself, so
/// the page's thread never holds the whole file at once; a safetensors file's bytes are also
/// read here, a slice at a time, to pick its other tensors later. `Ok(None)`: no worker could
/// start (read it on the page's thread); `Err`: the file is bad, or the worker failed once it
/// had the file (a sentence saying why).
pub async fn read_off_thread(name: &str, file: &Blob) -> Result<Option<ReadFile>, String> {
    in_worker(name, None, Source::File(file)).await
}

/// Reads tensor `name` of the safetensors file `bytes` (which the page keeps) in a Web Worker,
/// as [`read_off_thread`]; the bytes are copied to the worker a slice at a time.
pub async fn pick_off_thread(bytes: &[u8], name: &str) -> Result<Option<Tensor>, String> {
    let read = in_worker("", Some(name), Source::Kept(bytes)).await?;
    Ok(read.map(|(_, tensor, _)| tensor))
}

/// Where a file's bytes are.
enum Source<'a> {
    /// A chosen file (the worker reads it).
    File(&'a Blob),
    /// Bytes the page keeps (copied to the worker).
    Kept(&'a [u8]),
}

/// [`read_off_thread`] and [`pick_off_thread`]: starts a worker and reads the file in it.
async fn in_worker(
    file: &str,
    tensor: Option<&str>,
    source: Source<'_>,
) -> Result<Option<ReadFile>, String> {
    if workers_off() {
        return Ok(None);
    }
    let (tx, mut heard) = unbounded();
    let Ok(worker) = spawn_worker() else {
        return Ok(None);
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new({
        let tx = tx.clone();
        move |m: MessageEvent| {
            let _ = tx.unbounded_send(Heard::Message(m.data()));
        }
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |e: ErrorEvent| {
        let _ = tx.unbounded_send(Heard::Failed(e.message()));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let result = read_in(&worker, file, tensor, source, &mut heard).await;
    worker.terminate();
    result
}

/// [`read_off_thread`] once the worker is started, `heard` receiving what it says.
async fn read_in(
    worker: &web_sys::Worker,
    file: &str,
    tensor: Option<&str>,
    source: Source<'_>,
    heard: &mut futures_channel::mpsc::UnboundedReceiver<Heard>,
) -> Result<Option<ReadFile>, String> {
    match heard.next().await {
        // A worker from another build (a stale cache) is no worker: read on the page's thread.
        Some(Heard::Message(m))
            if matches!(answer(&m), Ok((Response::Ready { protocol: PROTOCOL }, _))) => {}
        _ => return Ok(None),
    }
    let (sent, bytes): (js_sys::Object, _) = match source {
        Source::File(blob) => {
            // A safetensors file stays in the page, to pick its other tensors.
            let bytes = if file.ends_with(".npy") {
                Vec::new()
            } else {
                read_sliced(blob).await?
            };
            (blob.clone().into(), bytes)
        }
        Source::Kept(kept) => (to_js_sliced(kept).await.into(), Vec::new()),
    };
    let request = Request::Parse {
        file: file.into(),
        tensor: tensor.map(Into::into),
    };
    post(worker, &request, Some(&sent))?;
    let failed =
        |why: String| format!("the browser could not read the file in a Web Worker ({why})");
    let m = match heard.next().await {
        Some(Heard::Message(m)) => m,
        Some(Heard::Failed(why)) => return Err(failed(why)),
        None => return Err(failed("it stopped".into())),
    };
    match answer(&m)? {
        (Response::Parsed { index, name, shape }, Some(values)) => {
            let copy = |from: usize, to: usize, out: &mut [f32]| {
                values.subarray(from as u32, to as u32).copy_to(out)
            };
            let values = copy_sliced(values.length() as usize, copy).await;
            let tensor = Tensor {
                name,
                shape,
                values,
            };
            Ok(Some((index, tensor, Arc::new(bytes))))
        }
        (Response::Failed { message, .. }, _) => Err(message),
        _ => Err(failed("it answered something else".into())),
    }
}

/// A worker's answer: its header, and the values that follow it, if any.
fn answer(m: &JsValue) -> Result<(Response, Option<Float32Array>), String> {
    let parts: Array = m.clone().unchecked_into();
    let header = Uint8Array::new(&parts.get(0)).to_vec();
    let values = parts.get(1).dyn_into::<Float32Array>().ok();
    Ok((decode(&header)?, values))
}
