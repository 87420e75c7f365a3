//! Computing the lab's results: in the page's Web Workers ([`lab_workers`]) on the CPU, or on
//! the page's own thread, a part at a time, on the GPU or where workers cannot start.

use super::{LabResults, QuantState, CHUNK_VALUES};
use crate::ui::pages::quant::gpu_lab::{give_up_gpu, step_on_gpu, GpuStatus, PartFailure};
use crate::ui::pages::quant::lab_workers;
use crate::ui::pages::quant::pacing::Pacer;
use crate::ui::pages::quant::query::{Device, QuantQuery};
use crate::ui::pages::quant::ran_on::RanOn;
use bitbudget_math::quant::lab::{Overview, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::Tensor;
use leptos::prelude::*;
use std::sync::Arc;

/// Milliseconds of work between yields to the browser (about two frames at 60 Hz).
const SLICE_MS: f64 = 32.0;

/// Makes the next part of `run`: on the GPU while `device` is [`Device::Gpu`] and it works (a
/// scheme without a GPU kernel falls back to the CPU for that scheme, noted in `cpu_only`; a GPU
/// that fails is given up for the rest of the page, the status says why), else on the CPU.
async fn next_part(
    state: QuantState,
    run: &mut SchemeRun<'_>,
    device: &mut Device,
    cpu_only: &mut Vec<Scheme>,
) -> Result<(), String> {
    if *device == Device::Gpu && !cpu_only.contains(&run.quantizer().scheme()) {
        match step_on_gpu(run).await {
            Ok(()) => return Ok(()),
            Err(PartFailure::Unsupported(_)) => cpu_only.push(run.quantizer().scheme()),
            Err(PartFailure::Failed(why)) => {
                *device = Device::Cpu;
                give_up_gpu(state.gpu, why);
            }
        }
    }
    run.step().map_err(|e| e.to_string())
}

/// Where a computation ran; `off_thread` says why Web Workers were not used, when the CPU
/// computed on the page's thread for lack of them.
fn ran_on(device: Device, gpu: &GpuStatus, cpu_only: &[Scheme], off_thread: Option<&str>) -> RanOn {
    match (device, gpu) {
        (Device::Gpu, GpuStatus::Ready(name)) => RanOn::Gpu {
            adapter: name.to_string(),
            cpu_only: cpu_only.to_vec(),
        },
        _ => RanOn::PageThread(off_thread.map(str::to_string)),
    }
}

/// Analyses `tensor` under every scheme of `query.schemes` (the page passes the shown scheme
/// among them) and publishes the results unless a newer computation
/// started meanwhile: on the CPU in the page's Web Workers ([`lab_workers`]); on the page's own
/// thread, a part at a time, on the GPU or when workers cannot start (the result says why).
///
/// A scheme that cannot run on this tensor (`fp8-128x128` on values that are not whole rows,
/// see [`QuantQuery::runnable`]) is left out; the page says why. With no scheme left, the last
/// results stay.
pub async fn compute(
    state: QuantState,
    tensor: Arc<Tensor>,
    mut query: QuantQuery,
    generation: u64,
) {
    query.schemes = query.runnable(query.schemes, &tensor.shape).0;
    if query.schemes.is_empty() {
        state.progress.set(1.0);
        return;
    }
    // A newer computation started, or the page is gone (its state disposed while this awaited).
    let outdated = move || state.generation.try_get_value() != Some(generation);
    let on_gpu = query.device == Device::Gpu && state.gpu.with_untracked(GpuStatus::ready);
    let mut off_thread = None;
    if !on_gpu {
        let progress = move |p| state.progress.set(p);
        match lab_workers::analyse(
            &tensor,
            &query,
            generation,
            CHUNK_VALUES,
            outdated,
            progress,
        )
        .await
        {
            Ok(Some(done)) => {
                state.results.set(Some(LabResults {
                    tensor: tensor.clone(),
                    overview: Arc::new(done.overview),
                    rows: done.rows,
                    details: done.details.into_iter().map(Arc::new).collect(),
                    ran_on: RanOn::Workers(done.workers),
                }));
                state.progress.set(1.0);
                return;
            }
            Ok(None) => return,
            Err(why) => off_thread = Some(why),
        }
    }
    compute_here(state, tensor, query, generation, off_thread).await;
}

/// [`compute`] on the page's own thread, a part at a time, yielding to the browser about every
/// frame; `off_thread` says why workers were not used.
async fn compute_here(
    state: QuantState,
    tensor: Arc<Tensor>,
    query: QuantQuery,
    generation: u64,
    off_thread: Option<String>,
) {
    // A newer computation started, or the page is gone (its state disposed while this awaited).
    let outdated = move || state.generation.try_get_value() != Some(generation);
    let values = &tensor.values;
    let overview = Arc::new(Overview::new(values));
    let schemes = query.schemes;
    let mut rows = Vec::with_capacity(schemes.len());
    let mut details = Vec::with_capacity(schemes.len());
    let mut device = match query.device {
        Device::Gpu if state.gpu.with_untracked(GpuStatus::ready) => Device::Gpu,
        _ => Device::Cpu,
    };
    let mut cpu_only = Vec::new();
    let mut pacer = Pacer::new(SLICE_MS);
    for (k, scheme) in schemes.iter().enumerate() {
        let Ok(block) = query.block_for(scheme, &tensor.shape) else {
            continue;
        };
        let mut run = SchemeRun::new(
            scheme,
            values,
            block,
            query.double_quant,
            &overview,
            CHUNK_VALUES,
        )
        .with_options(query.fp4);
        while !run.done() {
            let on_gpu = device == Device::Gpu;
            if let Err(e) = next_part(state, &mut run, &mut device, &mut cpu_only).await {
                web_sys::console::warn_1(&format!("{scheme}: {e}").into());
                break;
            }
            if on_gpu && outdated() {
                return;
            }
            if pacer.due() {
                let part = run.parts_done() as f64 / run.parts().max(1) as f64;
                state
                    .progress
                    .set(((k as f64 + part) / schemes.len() as f64).min(0.99));
                pacer.yield_now().await;
                if outdated() {
                    return;
                }
            }
        }
        let (row, detail) = run.finish();
        rows.push(row);
        details.push(Arc::new(detail));
    }
    if !outdated() {
        let ran_on = state
            .gpu
            .with_untracked(|g| ran_on(device, g, &cpu_only, off_thread.as_deref()));
        state.results.set(Some(LabResults {
            tensor: tensor.clone(),
            overview,
            rows,
            details,
            ran_on,
        }));
        state.progress.set(1.0);
    }
}
