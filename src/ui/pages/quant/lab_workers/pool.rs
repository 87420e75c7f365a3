//! The pool of the lab's Web Workers: starting them (each named after its script's address),
//! their handlers, the page-wide state (on, off with a reason, or not tried yet), restarting those
//! still busy with an older computation, and posting messages with transferred buffers.

use crate::ui::pages::quant::pacing::now;
use bitbudget_math::quant::tensor_io::Tensor;
use bitbudget_worker::{decode, encode, Request, Response};
use futures_channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use js_sys::{Array, Uint8Array};
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions};

/// Most workers, whatever the browser reports: each holds its own copy of the tensor (168 MB
/// for a 42M-value upload), so more would cost memory faster than they save time.
pub const MAX_WORKERS: usize = 4;
/// The worker's script (`assets/lab-worker.js`, which Trunk copies beside `index.html`).
pub(super) const LOADER: &str = "./lab-worker.js";
/// How long the workers may take to start before the lab gives up on them, in milliseconds.
pub(super) const START_MS: i32 = 15_000;

/// What a worker's handlers report.
pub(super) enum Event {
    /// An answer from worker `slot` (boxed: a scheme's results are large).
    Answer(usize, Box<Response>),
    /// Worker `slot` failed (its script did not load, or it crashed), with the browser's words.
    Failed(usize, String),
    /// The start-up time ran out.
    StartTimeout,
}

/// One worker and what the page knows about it.
pub(super) struct Slot {
    pub(super) worker: Worker,
    pub(super) ready: bool,
    /// The computation whose job it runs, if any.
    pub(super) busy: Option<u64>,
    /// The tensor it holds whole.
    pub(super) tensor: Option<u64>,
    /// When it was started ([`now`], ms).
    pub(super) started: f64,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

/// The page's workers, started on the first computation.
pub(super) struct Pool {
    pub(super) slots: Vec<Slot>,
    /// Where the handlers send events: replaced for every computation, which ends the older
    /// computation's wait.
    inbox: Rc<RefCell<UnboundedSender<Event>>>,
    /// The tensor last handed out and its number.
    tensor: Option<(std::sync::Weak<Tensor>, u64)>,
    tensors: u64,
}

/// Whether the page uses workers.
pub(super) enum PoolState {
    /// Not tried yet.
    Untried,
    /// Started.
    On(Pool),
    /// Off for this page, with the sentence that says why.
    Off(String),
}

thread_local! {
    pub(super) static POOL: RefCell<PoolState> = const { RefCell::new(PoolState::Untried) };
    pub(super) static SCRIPT: RefCell<String> = RefCell::new(LOADER.into());
}

/// Workers to start: the cores the browser reports, at least 1 and at most [`MAX_WORKERS`].
pub(super) fn worker_count() -> usize {
    let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
    (cores as usize).clamp(1, MAX_WORKERS)
}

/// Starts a lab worker from the page's worker script, or says why it cannot.
pub(crate) fn spawn_worker() -> Result<Worker, String> {
    let script = SCRIPT.with(|s| s.borrow().clone());
    // The worker's name is its script's full address, against which it finds the wasm.
    let address = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .and_then(|page| web_sys::Url::new_with_base(&script, &page).ok())
        .map_or(script.clone(), |u| u.href());
    let options = WorkerOptions::new();
    options.set_name(&address);
    Worker::new_with_options(&script, &options).map_err(|e| {
        let why = e.dyn_ref::<js_sys::Error>().map_or_else(
            || "Worker is unavailable".to_string(),
            |e| e.message().into(),
        );
        format!("Web Workers could not start ({why})")
    })
}

/// Whether the page's workers are off (they failed to start, or were turned off).
pub(crate) fn workers_off() -> bool {
    POOL.with(|p| matches!(*p.borrow(), PoolState::Off(_)))
}

/// Starts worker `slot`, its handlers sending to `inbox`.
pub(super) fn start_worker(
    slot: usize,
    inbox: &Rc<RefCell<UnboundedSender<Event>>>,
) -> Result<Slot, String> {
    let worker = spawn_worker()?;
    let to = Rc::downgrade(inbox);
    let send = move |event: Event| {
        if let Some(inbox) = Weak::upgrade(&to) {
            let _ = inbox.borrow().unbounded_send(event);
        }
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new({
        let send = send.clone();
        move |m: MessageEvent| {
            let header = Array::from(&m.data()).get(0);
            match decode::<Response>(&Uint8Array::new(&header).to_vec()) {
                Ok(answer) => send(Event::Answer(slot, Box::new(answer))),
                Err(why) => send(Event::Failed(slot, why)),
            }
        }
    });
    let on_error = Closure::<dyn FnMut(ErrorEvent)>::new(move |e: ErrorEvent| {
        let message = e.message();
        let why = if message.is_empty() {
            "its script did not load or was blocked".to_string()
        } else {
            message
        };
        send(Event::Failed(slot, why));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Slot {
        worker,
        ready: false,
        busy: None,
        tensor: None,
        started: now(),
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// Prepares the pool for computation `generation` on `tensor`: starts it if untried, restarts
/// workers busy with an older computation, and opens a new inbox. Returns the inbox and the
/// tensor's number, or why workers are off.
pub(super) fn begin(
    generation: u64,
    tensor: &Arc<Tensor>,
) -> Result<(UnboundedReceiver<Event>, u64), String> {
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        if matches!(*pool, PoolState::Untried) {
            let (tx, _) = unbounded();
            let inbox = Rc::new(RefCell::new(tx));
            let slots = (0..worker_count())
                .map(|k| start_worker(k, &inbox))
                .collect::<Result<Vec<_>, _>>();
            *pool = match slots {
                Ok(slots) => {
                    arm_start_timeout(&inbox);
                    PoolState::On(Pool {
                        slots,
                        inbox,
                        tensor: None,
                        tensors: 0,
                    })
                }
                Err(why) => PoolState::Off(why),
            };
        }
        let p = match &mut *pool {
            PoolState::On(p) => p,
            PoolState::Off(why) => return Err(why.clone()),
            PoolState::Untried => unreachable!("started above"),
        };
        let (tx, rx) = unbounded();
        *p.inbox.borrow_mut() = tx;
        let mut restarted = false;
        for k in 0..p.slots.len() {
            if p.slots[k].busy.is_some_and(|g| g != generation) {
                p.slots[k].worker.terminate();
                p.slots[k] = start_worker(k, &p.inbox)?;
                restarted = true;
            }
        }
        if restarted {
            arm_start_timeout(&p.inbox);
        }
        let id = match &p.tensor {
            Some((t, id)) if t.upgrade().is_some_and(|t| Arc::ptr_eq(&t, tensor)) => *id,
            _ => {
                p.tensors += 1;
                p.tensor = Some((Arc::downgrade(tensor), p.tensors));
                p.tensors
            }
        };
        Ok((rx, id))
    })
}

/// Sends [`Event::StartTimeout`] after [`START_MS`], unless the pool has gone meanwhile.
pub(super) fn arm_start_timeout(inbox: &Rc<RefCell<UnboundedSender<Event>>>) {
    let to = Rc::downgrade(inbox);
    let fire = Closure::once_into_js(move || {
        if let Some(inbox) = to.upgrade() {
            let _ = inbox.borrow().unbounded_send(Event::StartTimeout);
        }
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(fire.unchecked_ref(), START_MS);
    }
}

/// Turns workers off for the page, terminating them, with the sentence that says why.
pub(super) fn turn_off(why: String) {
    POOL.with(|pool| {
        if let PoolState::On(p) = &*pool.borrow() {
            for s in &p.slots {
                s.worker.terminate();
            }
        }
        *pool.borrow_mut() = PoolState::Off(why);
    });
}

/// Runs `f` on the pool's slot `k` (nothing when the pool is not on).
pub(super) fn with_slot<T>(k: usize, f: impl FnOnce(&mut Slot) -> T) -> Option<T> {
    POOL.with(|pool| match &mut *pool.borrow_mut() {
        PoolState::On(p) => p.slots.get_mut(k).map(f),
        _ => None,
    })
}

/// Posts `request` to `worker`, and `payload` (a typed array: values or a file's bytes; or a
/// chosen file's `Blob`) after it; a typed array's buffer is transferred (moved, not copied), a
/// `Blob` is a handle the worker reads.
pub(crate) fn post(
    worker: &Worker,
    request: &Request,
    payload: Option<&js_sys::Object>,
) -> Result<(), String> {
    let header = Uint8Array::from(encode(request).as_slice());
    let message = Array::of1(&header);
    let transfer = Array::of1(&header.buffer());
    if let Some(p) = payload {
        let buffer = js_sys::Reflect::get(p, &"buffer".into()).unwrap_or_default();
        if buffer.is_instance_of::<js_sys::ArrayBuffer>() {
            transfer.push(&buffer);
        }
        message.push(p);
    }
    worker
        .post_message_with_transfer(&message, &transfer)
        .map_err(|_| "a message to a Web Worker failed".to_string())
}
