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

mod pool;

pub use pool::MAX_WORKERS;
use pool::{begin, turn_off, with_slot, Event, PoolState, Slot, POOL, SCRIPT, START_MS};
pub(crate) use pool::{post, spawn_worker, workers_off};

use crate::ui::pages::quant::pacing::{now, Pacer};
use crate::ui::pages::quant::query::QuantQuery;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::Tensor;
use bitbudget_worker::{slowest_first, Request, Response, SchemeTask, PROTOCOL};
use futures_util::StreamExt;
use js_sys::Float32Array;
use std::collections::VecDeque;
use std::sync::Arc;
use web_sys::Worker;

/// Values per message when a tensor is handed to a worker: 4 MiB, about a millisecond of
/// copying on the page's thread.
const SEND_VALUES: usize = 1 << 20;
/// Milliseconds of sending between yields to the browser.
const SEND_MS: f64 = 8.0;

/// Why workers whose files come from another build (a stale cache) are not used.
const STALE_WORKER: &str =
    "Web Workers could not start (their files are from another build of bitbudget: reload the page)";

/// The lab's analysis of every scheme, as the page's own thread would give it.
pub struct Analysed {
    /// The tensor's overview.
    pub overview: Overview,
    /// One row per scheme computed, in [`Scheme::ALL`]'s order.
    pub rows: Vec<SchemeResult>,
    /// One detail per scheme, in the same order.
    pub details: Vec<SchemeDetail>,
    /// Workers that computed it.
    pub workers: usize,
}

/// Hands `values` (tensor `id`) to `worker` in slices, yielding to the browser about every
/// [`SEND_MS`]. Returns false when `outdated` turned true meanwhile.
async fn send_tensor(
    worker: &Worker,
    id: u64,
    values: &[f32],
    outdated: &impl Fn() -> bool,
) -> Result<bool, String> {
    let mut offset = 0;
    let mut pacer = Pacer::new(SEND_MS);
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
        if pacer.pace().await && outdated() {
            return Ok(false);
        }
    }
}

/// What is left to hand out: the overview, then every scheme of `query.schemes` that can run on
/// a tensor of `shape` (slowest first; see [`QuantQuery::block_for`]).
fn jobs(
    query: &QuantQuery,
    shape: &[usize],
    generation: u64,
    tensor: u64,
    part_values: usize,
) -> VecDeque<Request> {
    let mut jobs = VecDeque::from([Request::Overview { generation, tensor }]);
    for index in slowest_first(&Scheme::ALL) {
        let scheme = Scheme::ALL[index];
        if !query.schemes.contains(scheme) {
            continue;
        }
        let Ok(block) = query.block_for(scheme, shape) else {
            continue;
        };
        jobs.push_back(Request::Analyse(SchemeTask {
            generation,
            tensor,
            index,
            scheme: scheme.name().into(),
            block,
            double_quant: query.double_quant,
            part_values,
            rht: query.fp4.rht,
            sr: query.fp4.sr,
        }));
    }
    jobs
}

/// Analyses `tensor` under every scheme of `query.schemes` in the page's workers. `Ok(None)`: a newer computation
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
    let mut queue = jobs(query, &tensor.shape, generation, id, part_values);
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
            Event::Answer(k, answer) if matches!(*answer, Response::Ready { .. }) => {
                if *answer != (Response::Ready { protocol: PROTOCOL }) {
                    let why = STALE_WORKER.to_string();
                    turn_off(why.clone());
                    return Err(why);
                }
                with_slot(k, |s| s.ready = true);
            }
            Event::Answer(k, answer) => {
                with_slot(k, |s| s.busy = None);
                match *answer {
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

/// Starts the lab's workers from `url` instead of `./lab-worker.js` from the next computation on (the
/// browser tests serve a worker built by `scripts/browser_tests.sh` from another folder).
pub fn use_worker_script(url: &str) {
    SCRIPT.with(|s| *s.borrow_mut() = url.into());
    set_lab_workers(true);
}

/// Turns the lab's workers on or off for this page (the release build's benchmark compares both
/// paths in one run): off terminates them; on starts them again at the next computation.
pub fn set_lab_workers(on: bool) {
    if on {
        turn_off(String::new());
        POOL.with(|pool| *pool.borrow_mut() = PoolState::Untried);
    } else {
        turn_off("Web Workers are turned off for this page".into());
    }
}
