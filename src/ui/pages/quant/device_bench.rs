//! The Quantize lab's benchmark panel: throughput of the CPU (WebAssembly) and the GPU (WebGPU)
//! for the selected scheme on seeded normal tensors from 1M to 64M values, for quantizing alone
//! and for the lab's whole pipeline (quantize, dequantize, measure), each a warm-up run then the
//! median of [`RUNS`]. The GPU pipeline quantizes, dequantizes and measures each part on the GPU
//! (only the bytes and a summary come back). GPU quantization is also split into upload, compute
//! and readback ([`Phases`]) by separate timed runs.

use crate::ui::browser::copy_text;
use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::pages::quant::gpu_lab::{
    quantize_on_gpu, quantize_timed_on_gpu, step_on_gpu, GpuStatus, PhaseTimes,
};
use crate::ui::pages::quant::pacing::{now, yield_now};
use crate::ui::pages::quant::state::{QuantState, CHUNK_VALUES};
use bitbudget_charts::throughput::{self, Series};
use bitbudget_math::numbers::grouped;
use bitbudget_math::quant::codec::quantize;
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::{Overview, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;
use leptos::prelude::*;
use serde::Serialize;

/// Timed runs per measurement, after one warm-up run.
pub const RUNS: usize = 3;

/// The tensor sizes offered, in values (1M, 4M, 16M, 64M; M = 2^20).
pub const SIZES: [usize; 4] = [1 << 20, 1 << 22, 1 << 24, 1 << 26];

/// What is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Task {
    /// `scheme::quantize` on the CPU.
    CpuQuantize,
    /// `bitbudget_gpu::quantize` (upload, kernels, readback).
    GpuQuantize,
    /// The lab's analysis of one scheme on the CPU.
    CpuLab,
    /// The lab's analysis with every part made on the GPU.
    GpuLab,
}

impl Task {
    /// All four, CPU first.
    pub const ALL: [Task; 4] = [
        Task::CpuQuantize,
        Task::GpuQuantize,
        Task::CpuLab,
        Task::GpuLab,
    ];

    /// Its name in the legend and table.
    pub const fn label(self) -> &'static str {
        match self {
            Task::CpuQuantize => "CPU quantize",
            Task::GpuQuantize => "GPU quantize",
            Task::CpuLab => "CPU whole lab",
            Task::GpuLab => "GPU whole lab",
        }
    }

    const fn on_gpu(self) -> bool {
        matches!(self, Task::GpuQuantize | Task::GpuLab)
    }
}

/// One measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    /// What was timed.
    pub task: Task,
    /// Values in the tensor.
    pub values: usize,
    /// Median wall time of the timed runs, in milliseconds.
    pub median_ms: f64,
    /// f32 input bytes per second of the median run, in GB/s (10^9 bytes).
    pub gb_per_s: f64,
    /// GPU quantization only: the median phases of [`RUNS`] further runs timed apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phases: Option<Phases>,
}

/// Upload, compute and readback of a GPU quantization, each the median of [`RUNS`] runs timed
/// apart (each phase waited for before the next, so they add up to more than a plain run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Phases {
    /// Writing the input to the GPU, in milliseconds (host clock).
    pub upload_ms: f64,
    /// The kernels, in milliseconds.
    pub compute_ms: f64,
    /// Reading the results back, in milliseconds (host clock).
    pub readback_ms: f64,
    /// How compute was timed: "timestamp queries" or "host timing around separate submissions".
    pub compute_clock: &'static str,
}

impl Phases {
    /// The median of each phase over `runs` (at least one).
    fn median_of(runs: &[PhaseTimes]) -> Phases {
        let of = |f: fn(&PhaseTimes) -> f64| median(runs.iter().map(f).collect());
        Phases {
            upload_ms: of(|t| t.upload_ms),
            compute_ms: of(|t| t.compute_ms),
            readback_ms: of(|t| t.readback_ms),
            compute_clock: runs[0].compute_clock,
        }
    }

    /// "upload / compute / readback ms (clock)" for the table.
    fn text(&self) -> String {
        format!(
            "{:.1} / {:.1} / {:.1} ({})",
            self.upload_ms, self.compute_ms, self.readback_ms, self.compute_clock
        )
    }
}

/// [`RUNS`] GPU quantizations of `x` with their phases timed apart.
async fn phases(scheme: Scheme, x: &[f32], block: usize) -> Result<Phases, String> {
    let mut runs = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        yield_now().await;
        runs.push(
            quantize_timed_on_gpu(scheme, x, block)
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    Ok(Phases::median_of(&runs))
}

/// The report the Copy button gives, as JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The scheme benchmarked.
    pub scheme: String,
    /// Its block size (for fp8-128x128 the columns per row), as measured.
    pub block: usize,
    /// The GPU, as the page names it (or why there is none).
    pub gpu: String,
    /// Warm-up runs, then timed runs per measurement.
    pub warm_up: usize,
    /// Timed runs per measurement.
    pub runs: usize,
    /// Every measurement, by size then task.
    pub measurements: Vec<Measurement>,
}

/// Runs `task` once on `x`; `Err` says why it cannot run (no kernel, the GPU failed).
async fn run_once(
    task: Task,
    scheme: Scheme,
    x: &[f32],
    block: usize,
    overview: &Overview,
) -> Result<(), String> {
    match task {
        Task::CpuQuantize => quantize(scheme, x, block)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Task::GpuQuantize => quantize_on_gpu(scheme, x, block)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Task::CpuLab | Task::GpuLab => {
            let mut run = SchemeRun::new(scheme, x, block, false, overview, CHUNK_VALUES);
            while !run.done() {
                if task == Task::GpuLab {
                    step_on_gpu(&mut run).await.map_err(|e| e.to_string())?;
                } else {
                    run.step().map_err(|e| e.to_string())?;
                }
            }
            let _ = run.finish();
            Ok(())
        }
    }
}

/// The median of `times` (at least one).
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Measures every task the page can run (GPU tasks only with a GPU) at every size up to
/// `largest`, reporting progress (0..=1) and each measurement as it lands; stops at the first
/// failure with its message.
async fn measure_all(
    state: QuantState,
    scheme: Scheme,
    block: usize,
    largest: usize,
    progress: RwSignal<f64>,
    found: RwSignal<Vec<Measurement>>,
) -> Result<(), String> {
    let gpu = state.gpu.with_untracked(GpuStatus::ready);
    let tasks: Vec<Task> = Task::ALL
        .into_iter()
        .filter(|t| gpu || !t.on_gpu())
        .collect();
    let sizes: Vec<usize> = SIZES.into_iter().filter(|n| *n <= largest).collect();
    let steps = (tasks.len() * sizes.len()) as f64;
    for (i, n) in sizes.iter().enumerate() {
        let n = (*n / block).max(1) * block;
        let x = generate(Distribution::Normal, 1, n, 0.02, 1);
        let overview = Overview::new(&x);
        for (k, task) in tasks.iter().enumerate() {
            let mut times = Vec::with_capacity(RUNS);
            for run in 0..=RUNS {
                yield_now().await;
                let t0 = now();
                run_once(*task, scheme, &x, block, &overview)
                    .await
                    .map_err(|e| format!("{}: {e}", task.label()))?;
                if run > 0 {
                    times.push(now() - t0);
                }
            }
            let median_ms = median(times);
            let gb_per_s = (n * 4) as f64 / (median_ms.max(1e-3) / 1e3) / 1e9;
            let phases = match task {
                Task::GpuQuantize => Some(phases(scheme, &x, block).await?),
                _ => None,
            };
            found.update(|f| {
                f.push(Measurement {
                    task: *task,
                    values: n,
                    median_ms,
                    gb_per_s,
                    phases,
                })
            });
            progress.set((i * tasks.len() + k + 1) as f64 / steps);
        }
    }
    Ok(())
}

/// The benchmark panel (a disclosure under the lab).
#[component]
pub fn DeviceBench() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let largest = RwSignal::new(1usize << 24);
    let running = RwSignal::new(false);
    let progress = RwSignal::new(0.0);
    let found = RwSignal::new(Vec::<Measurement>::new());
    let message = RwSignal::new(None::<String>);
    let scheme = move || state.query.with(|q| q.scheme);
    // The block the measurements were made at (fp8-128x128: the tensor's columns).
    let measured_block = RwSignal::new(0usize);
    let start = move |_| {
        let s = scheme();
        let shape = state
            .current
            .with_untracked(|t| t.as_ref().map(|t| t.shape.clone()).ok());
        let block = match shape {
            Some(shape) => state.query.with_untracked(|q| q.block_for(s, &shape)),
            None if s.needs_columns() => Err(QuantError::NeedsColumns(s)),
            None => state.query.with_untracked(|q| q.block_for(s, &[])),
        };
        let block = match block {
            Ok(block) => block,
            Err(e) => return message.set(Some(format!("{s}: {e}"))),
        };
        measured_block.set(block);
        running.set(true);
        progress.set(0.0);
        found.set(Vec::new());
        message.set(None);
        leptos::task::spawn_local(async move {
            let done = measure_all(state, s, block, largest.get_untracked(), progress, found).await;
            message.set(done.err());
            running.set(false);
        });
    };
    let report = move || Report {
        scheme: scheme().to_string(),
        block: measured_block.get(),
        gpu: state.gpu.with(GpuStatus::sentence),
        warm_up: 1,
        runs: RUNS,
        measurements: found.get(),
    };
    let copy = move |_| {
        let json = serde_json::to_string_pretty(&report()).unwrap_or_default();
        leptos::task::spawn_local(async move {
            message.set(Some(match copy_text(&json).await {
                Ok(()) => "Copied the numbers as JSON.".into(),
                Err(e) => format!("Not copied ({e}): the JSON is below."),
            }));
        });
    };
    let series = Signal::derive(move || {
        let f = found.get();
        Task::ALL
            .into_iter()
            .map(|task| Series {
                label: task.label().into(),
                points: f
                    .iter()
                    .filter(|m| m.task == task)
                    .map(|m| (m.values as f64, m.gb_per_s))
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect::<Vec<_>>()
    });
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        let series = series.get();
        let input = throughput::Input { series: &series };
        warn_on_error(
            "throughput chart",
            draw_chart(canvas, throughput::HEIGHT, &input),
        );
    };
    let rows = move || {
        found.get().into_iter().map(|m| view! {
            <tr><th scope="row">{m.task.label()}</th><td class="num">{grouped(m.values)}</td>
                <td class="num">{format!("{:.1}", m.median_ms)}</td><td class="num" data-testid="bench-rate">{rate_text(m.gb_per_s)}</td>
                <td data-testid="bench-phases">{m.phases.as_ref().map(Phases::text)}</td></tr>
        }).collect_view()
    };
    view! {
        <details class="bench" data-testid="device-bench">
            <summary>"Benchmark: CPU against GPU"</summary>
            <p class="help">"Times the selected scheme on seeded normal tensors: quantizing alone and the lab's whole pipeline (quantize, dequantize, measure), one warm-up run, then the median of three. The GPU pipeline quantizes, dequantizes and measures each part on the GPU. GPU quantizing is also timed phase by phase in three more runs (compute from timestamp queries where the browser offers them). In a browser without a real GPU (a software adapter), GPU numbers show correctness, not speed."</p>
            <div class="field-box">
                <label for="bench-largest">"Largest tensor"</label>
                <select id="bench-largest" data-testid="bench-largest" prop:value=move || largest.get().to_string()
                    on:change=move |ev| if let Ok(n) = event_target_value(&ev).parse() { largest.set(n) }>
                    {SIZES.iter().map(|n| view! { <option value=n.to_string()>{format!("{} values ({}M)", grouped(*n), n >> 20)}</option> }).collect_view()}
                </select>
            </div>
            <button data-testid="bench-run" disabled=move || running.get() on:click=start>{move || if running.get() { "Measuring…" } else { "Run the benchmark" }}</button>
            <Show when=move || running.get()>
                <progress max="1" prop:value=move || progress.get() data-testid="bench-progress" aria-label="Benchmark progress"></progress>
            </Show>
            {move || message.get().map(|m| view! { <p class="help" role="status" data-testid="bench-message">{m}</p> })}
            <Show when=move || !found.with(Vec::is_empty)>
                <CanvasChart label=Signal::derive(|| "Throughput in GB/s against tensor size, CPU and GPU".to_string()) height=throughput::HEIGHT testid="bench-chart" draw=draw />
                <div class="table-scroll">
                    <table data-testid="bench-table">
                        <thead><tr><th scope="col">"task"</th><th scope="col">"values"</th><th scope="col">"median ms"</th><th scope="col">"GB/s"</th><th scope="col">"GPU upload / compute / readback ms"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                <button data-testid="bench-copy" on:click=copy>"Copy as JSON"</button>
                <details><summary>"JSON"</summary><pre data-testid="bench-json">{move || serde_json::to_string_pretty(&report()).unwrap_or_default()}</pre></details>
            </Show>
        </details>
    }
}

/// A throughput in GB/s with at least three decimals and three significant digits, so that a
/// software adapter's 0.0004 reads 0.000400, not 0.000 (at most 12 decimals; 0, NaN and
/// infinities print as Rust writes them).
fn rate_text(gb_per_s: f64) -> String {
    if !(gb_per_s.is_finite() && gb_per_s > 0.0) {
        return gb_per_s.to_string();
    }
    let decimals = (2 - gb_per_s.log10().floor() as i32).clamp(3, 12) as usize;
    format!("{gb_per_s:.decimals$}")
}
