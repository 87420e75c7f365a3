//! The Quantize lab's Web Workers: one per core the browser reports (at most [`MAX_WORKERS`]),
//! each its own wasm instance (`crates/worker`), so no cross-origin isolation is needed and
//! embeds keep working. Every worker gets its own copy of the tensor, in slices small enough to
//! copy within a frame; the schemes are then handed out one at a time to whichever worker is
//! idle, the slowest first, and the results come back in the table's order whoever made them.
//!
//! A newer computation cancels at once: workers still busy with an older one are terminated
//! (and started afresh), and answers are tagged with their computation, so a stale one is never
//! used. When workers cannot start (no `Worker`, a blocked or missing script), the pool is off
//! for the page and says why in one sentence; the lab then computes on the page's thread.

use crate::ui::quant_query::QuantQuery;
use crate::ui::quant_state::{now, yield_now};
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::Tensor;
use bitbudget_worker::{decode, encode, slowest_first, Job, Request, Response};
use futures_channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures_util::StreamExt;
use js_sys::{Array, Float32Array, Uint8Array};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions};

/// Most workers, whatever the browser reports: each holds its own copy of the tensor (168 MB
/// for a 42M-value upload), so more would cost memory faster than they save time.
pub const MAX_WORKERS: usize = 4;
/// The worker's script (`assets/lab-worker.js`, which Trunk copies beside `index.html`).
const LOADER: &str = "./lab-worker.js";
/// How long the workers may take to start before the lab gives up on them, in milliseconds.
const START_MS: i32 = 15_000;
/// Values per message when a tensor is handed to a worker: 16 MiB, a few milliseconds of
/// copying on the page's thread.
const SEND_VALUES: usize = 1 << 22;

/// The lab's analysis of every scheme, as the page's own thread would give it.
pub struct Analysed {
    /// The tensor's overview.
    pub overview: Overview,
    /// One row per scheme, in [`Scheme::ALL`]'s order.
    pub rows: Vec<SchemeResult>,
    /// One detail per scheme, in the same order.
    pub details: Vec<SchemeDetail>,
    /// Workers that computed it.
    pub workers: usize,
}

/// What a worker's handlers report.
enum Event {
    /// An answer from worker `slot`.
    Answer(usize, Response),
    /// Worker `slot` failed (its script did not load, or it crashed), with the browser's words.
    Failed(usize, String),
    /// The start-up time ran out.
    StartTimeout,
}

/// One worker and what the page knows about it.
struct Slot {
    worker: Worker,
    ready: bool,
    /// The computation whose job it runs, if any.
    busy: Option<u64>,
    /// The tensor it holds whole.
    tensor: Option<u64>,
    /// When it was started ([`now`], ms).
    started: f64,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(ErrorEvent)>,
}

/// The page's workers, started on the first computation.
struct Pool {
    slots: Vec<Slot>,
    /// Where the handlers send events: replaced for every computation, which ends the older
    /// computation's wait.
    inbox: Rc<RefCell<UnboundedSender<Event>>>,
    /// The tensor last handed out and its number.
    tensor: Option<(std::sync::Weak<Tensor>, u64)>,
    tensors: u64,
}

/// Whether the page uses workers.
enum PoolState {
    /// Not tried yet.
    Untried,
    /// Started.
    On(Pool),
    /// Off for this page, with the sentence that says why.
    Off(String),
}

thread_local! {
    static POOL: RefCell<PoolState> = const { RefCell::new(PoolState::Untried) };
    static SCRIPT: RefCell<String> = RefCell::new(LOADER.into());
}

/// Workers to start: the cores the browser reports, at least 1 and at most [`MAX_WORKERS`].
fn worker_count() -> usize {
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
fn start_worker(slot: usize, inbox: &Rc<RefCell<UnboundedSender<Event>>>) -> Result<Slot, String> {
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
                Ok(answer) => send(Event::Answer(slot, answer)),
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
fn begin(generation: u64, tensor: &Arc<Tensor>) -> Result<(UnboundedReceiver<Event>, u64), String> {
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
fn arm_start_timeout(inbox: &Rc<RefCell<UnboundedSender<Event>>>) {
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
fn turn_off(why: String) {
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
fn with_slot<T>(k: usize, f: impl FnOnce(&mut Slot) -> T) -> Option<T> {
    POOL.with(|pool| match &mut *pool.borrow_mut() {
        PoolState::On(p) => p.slots.get_mut(k).map(f),
        _ => None,
    })
}

/// Posts `request` to `worker`, and `payload` (a typed array: values or a file's bytes) after
/// it; the payload's buffer is transferred (moved, not copied).
pub(crate) fn post(
    worker: &Worker,
    request: &Request,
    payload: Option<&js_sys::Object>,
) -> Result<(), String> {
    let header = Uint8Array::from(encode(request).as_slice());
    let message = Array::of1(&header);
    let transfer = Array::of1(&header.buffer());
    if let Some(p) = payload {
        transfer.push(&js_sys::Reflect::get(p, &"buffer".into()).unwrap_or_default());
        message.push(p);
    }
    worker
        .post_message_with_transfer(&message, &transfer)
        .map_err(|_| "a message to a Web Worker failed".to_string())
}

/// Hands `values` (tensor `id`) to `worker` in slices, yielding to the browser between them.
/// Returns false when `outdated` turned true meanwhile.
async fn send_tensor(
    worker: &Worker,
    id: u64,
    values: &[f32],
    outdated: &impl Fn() -> bool,
) -> Result<bool, String> {
    let mut offset = 0;
    loop {
        let end = (offset + SEND_VALUES).min(values.len());
        let part = Float32Array::new_with_length((end - offset) as u32);
        part.copy_from(&values[offset..end]);
        let request = Request::TensorPart {
            tensor: id,
            offset,
            total: values.len(),
        };
        post(worker, &request, Some(&part))?;
        offset = end;
        if offset >= values.len() {
            return Ok(true);
        }
        yield_now().await;
        if outdated() {
            return Ok(false);
        }
    }
}

/// What is left to hand out: the overview, then every scheme (slowest first).
fn jobs(query: &QuantQuery, generation: u64, tensor: u64, part_values: usize) -> VecDeque<Request> {
    let mut jobs = VecDeque::from([Request::Overview { generation, tensor }]);
    for index in slowest_first(&Scheme::ALL) {
        let scheme = Scheme::ALL[index];
        jobs.push_back(Request::Analyse(Job {
            generation,
            tensor,
            index,
            scheme: scheme.name().into(),
            block: query.block_for(scheme),
            double_quant: query.double_quant,
            part_values,
        }));
    }
    jobs
}

/// Analyses `tensor` under every scheme in the page's workers. `Ok(None)`: a newer computation
/// started (nothing to publish); `Err`: workers cannot be used (one sentence; the caller
/// computes on the page's thread). `progress` gets the fraction of jobs done.
pub async fn analyse(
    tensor: &Arc<Tensor>,
    query: &QuantQuery,
    generation: u64,
    part_values: usize,
    outdated: impl Fn() -> bool,
    progress: impl Fn(f64),
) -> Result<Option<Analysed>, String> {
    let (mut inbox, id) = begin(generation, tensor)?;
    let mut queue = jobs(query, generation, id, part_values);
    let total = queue.len();
    let workers = POOL.with(|p| match &*p.borrow() {
        PoolState::On(p) => p.slots.len(),
        _ => 0,
    });
    let mut overview = None;
    let mut results: Vec<Option<(SchemeResult, SchemeDetail)>> = vec![None; Scheme::ALL.len()];
    let mut done = 0;
    while done < total {
        // Hand a job to every ready, idle worker, sending it the tensor first if need be.
        for k in 0..workers {
            let Some((worker, needs_tensor)) = with_slot(k, |s| {
                (s.ready && s.busy.is_none()).then(|| (s.worker.clone(), s.tensor != Some(id)))
            })
            .flatten() else {
                continue;
            };
            let Some(job) = queue.pop_front() else { break };
            if needs_tensor {
                if !send_tensor(&worker, id, &tensor.values, &outdated).await? {
                    return Ok(None);
                }
                with_slot(k, |s| s.tensor = Some(id));
            }
            post(&worker, &job, None)?;
            with_slot(k, |s| s.busy = Some(generation));
        }
        let Some(event) = inbox.next().await else {
            return Ok(None);
        };
        if outdated() {
            return Ok(None);
        }
        match event {
            Event::Answer(k, Response::Ready) => {
                with_slot(k, |s| s.ready = true);
            }
            Event::Answer(k, answer) => {
                with_slot(k, |s| s.busy = None);
                match answer {
                    Response::Overview {
                        generation: g,
                        overview: o,
                    } if g == generation => {
                        overview = Some(o);
                    }
                    Response::Analysed {
                        generation: g,
                        index,
                        row,
                        detail,
                    } if g == generation => {
                        results[index] = Some((row, detail));
                    }
                    Response::Failed { message, .. } => {
                        return Err(format!("a Web Worker failed ({message})"));
                    }
                    _ => continue,
                }
                done += 1;
                progress((done as f64 / total as f64).min(0.99));
            }
            Event::Failed(k, why) => {
                let started = with_slot(k, |s| s.ready).unwrap_or(false);
                let why = if started {
                    format!("a Web Worker failed ({why})")
                } else {
                    format!("Web Workers could not start ({why})")
                };
                turn_off(why.clone());
                return Err(why);
            }
            Event::StartTimeout => {
                // Off only when no worker ever answered and every one has had its time (a
                // timer armed for an earlier start may fire while a restarted one loads).
                let late = |s: &mut Slot| !s.ready && now() - s.started >= f64::from(START_MS);
                if (0..workers).all(|k| with_slot(k, late).unwrap_or(false)) {
                    let why = format!(
                        "Web Workers could not start (none answered within {} s)",
                        START_MS / 1000
                    );
                    turn_off(why.clone());
                    return Err(why);
                }
            }
        }
    }
    let overview = overview.ok_or("the workers gave no overview")?;
    let (rows, details) = results.into_iter().flatten().unzip();
    Ok(Some(Analysed {
        overview,
        rows,
        details,
        workers,
    }))
}

/// Starts the lab's workers from `url` instead of [`LOADER`] from the next computation on (the
/// browser tests serve a worker built by `scripts/build_lab_worker.sh` from another folder).
pub fn use_worker_script(url: &str) {
    SCRIPT.with(|s| *s.borrow_mut() = url.into());
    set_lab_workers(true);
}

/// Turns the lab's workers on or off for this page (the release build's benchmark compares both
/// paths in one run): off terminates them; on starts them again at the next computation.
#[wasm_bindgen]
pub fn set_lab_workers(on: bool) {
    if on {
        turn_off(String::new());
        POOL.with(|pool| *pool.borrow_mut() = PoolState::Untried);
    } else {
        turn_off("Web Workers are turned off for this page".into());
    }
}
