//! The Quantize lab's GPU: WebGPU looked for once per page (an adapter and a device through
//! wgpu, `crates/gpu`), what the page says about it, and the GPU step of the lab's analysis
//! (each part quantized, dequantized and measured on the device).

use bitbudget_math::quant::lab::SchemeRun;
use leptos::prelude::*;

/// What the page knows about its GPU.
#[derive(Clone, Debug, PartialEq)]
pub enum GpuStatus {
    /// Still asking the browser for an adapter.
    Looking,
    /// Ready, with the adapter's name.
    Ready(String),
    /// None to be had, and why (no WebGPU in this browser, no adapter, no device).
    Missing(String),
    /// It worked, then failed (e.g. the device was lost); the lab went back to the CPU.
    Lost(String),
}

impl GpuStatus {
    /// One sentence for beside the CPU/GPU switch.
    pub fn sentence(&self) -> String {
        match self {
            GpuStatus::Looking => "Looking for a GPU (WebGPU)…".into(),
            GpuStatus::Ready(name) => format!(
                "GPU: {name} (WebGPU): the CPU's bytes, counts and histograms exactly, its error sums to within {} parts per million.",
                sum_tolerance_ppm()
            ),
            GpuStatus::Missing(why) => format!("No GPU here: {why}. Everything runs on the CPU (WebAssembly)."),
            GpuStatus::Lost(why) => format!("The GPU stopped working ({why}); the lab went back to the CPU and kept your tensor."),
        }
    }

    /// Whether the GPU can be chosen.
    pub fn ready(&self) -> bool {
        matches!(self, GpuStatus::Ready(_))
    }
}

/// Why a part could not be made on the GPU.
#[derive(Clone, Debug, PartialEq)]
pub enum PartFailure {
    /// The scheme or block has no kernel: make this scheme's parts on the CPU.
    Unsupported(String),
    /// The GPU failed (lost device, readback): go back to the CPU for good.
    Failed(String),
}

impl std::fmt::Display for PartFailure {
    /// The reason alone, as the GPU crate words it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PartFailure::Unsupported(why) | PartFailure::Failed(why) => f.write_str(why),
        }
    }
}

mod web {
    use super::*;
    use bitbudget_gpu::{Gpu, GpuError};
    use std::cell::RefCell;
    use std::rc::Rc;

    thread_local! {
        /// The page's GPU once found (wgpu objects stay on the thread that made them).
        static GPU: RefCell<Option<Rc<Gpu>>> = const { RefCell::new(None) };
    }

    /// The browser's vendor and architecture of its default adapter ("google swiftshader"), for
    /// adapters that give no description (wgpu's name is the description).
    async fn browser_adapter_label() -> Option<String> {
        use js_sys::Reflect;
        let gpu = Reflect::get(&web_sys::window()?.navigator(), &"gpu".into()).ok()?;
        let request = Reflect::get(&gpu, &"requestAdapter".into()).ok()?;
        let promise = js_sys::Function::from(request).call0(&gpu).ok()?;
        let adapter = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
            .await
            .ok()?;
        let info = Reflect::get(&adapter, &"info".into()).ok()?;
        let field = |k: &str| Reflect::get(&info, &k.into()).ok()?.as_string();
        let words: Vec<String> = ["vendor", "architecture"]
            .into_iter()
            .filter_map(field)
            .filter(|w| !w.trim().is_empty())
            .collect();
        (!words.is_empty()).then(|| words.join(" "))
    }

    /// A readable adapter name: wgpu's (the browser's description), else the browser's vendor
    /// and architecture; "(a fallback adapter on the CPU)" when the browser says it is one.
    async fn adapter_name(gpu: &Gpu) -> String {
        let info = gpu.info();
        let mut name = info.name.trim().to_string();
        if name.is_empty() {
            name = browser_adapter_label()
                .await
                .unwrap_or_else(|| "an unnamed WebGPU adapter".into());
        }
        if info.device_type == bitbudget_gpu::DeviceType::Cpu {
            name.push_str(" (a fallback adapter on the CPU)");
        }
        name
    }

    /// What a GPU error means for the lab: this scheme on the CPU, or no more GPU.
    fn failure(e: GpuError) -> PartFailure {
        match e {
            GpuError::Input(m) | GpuError::TooLarge(m) => PartFailure::Unsupported(m),
            other => PartFailure::Failed(other.to_string()),
        }
    }

    /// Why the browser gave no GPU, in words for the page (wgpu's own message names native
    /// backends and drivers, which mean nothing in a browser).
    fn why_none(e: &GpuError) -> String {
        match e {
            GpuError::NoAdapter(_) => {
                "the browser offers WebGPU but no adapter (no usable GPU, or WebGPU is turned off)"
                    .into()
            }
            GpuError::NoDevice(_) => "the GPU adapter refused to open a device".into(),
            other => other.to_string(),
        }
    }

    pub(super) fn look(status: RwSignal<GpuStatus>) {
        let has_webgpu = web_sys::window()
            .map(|w| js_sys::Reflect::has(&w.navigator(), &"gpu".into()).unwrap_or(false))
            .unwrap_or(false);
        if !has_webgpu {
            status.set(GpuStatus::Missing(
                "this browser does not offer WebGPU (navigator.gpu)".into(),
            ));
            return;
        }
        leptos::task::spawn_local(async move {
            match document_gpu().await {
                Ok(gpu) => status.set(GpuStatus::Ready(adapter_name(&gpu).await)),
                Err(e) => status.set(GpuStatus::Missing(why_none(&e))),
            }
        });
    }

    /// The document's GPU: opened on the first call, then the same device (with the pipelines
    /// compiled on it) for every later one, the page mounted again included, until the lab gives
    /// it up after a failure. Errors are the adapter's or the device's refusal.
    pub async fn document_gpu() -> Result<Rc<Gpu>, GpuError> {
        if let Some(gpu) = GPU.with(|g| g.borrow().clone()) {
            return Ok(gpu);
        }
        let gpu = Rc::new(Gpu::new().await?);
        Ok(GPU.with(|g| g.borrow_mut().get_or_insert(gpu).clone()))
    }

    /// The page's GPU, or a failure when there is none (never found, or given up).
    fn current() -> Result<Rc<Gpu>, PartFailure> {
        GPU.with(|g| g.borrow().clone())
            .ok_or_else(|| PartFailure::Failed("no GPU".into()))
    }

    pub(super) async fn step(run: &mut SchemeRun<'_>) -> Result<(), PartFailure> {
        let gpu = current()?;
        let setup = run.measure_setup();
        let padded = run.padded_part();
        let (bytes, summary) =
            bitbudget_gpu::measure_part(&gpu, run.quantizer(), &setup, run.part_values(), &padded)
                .await
                .map_err(failure)?;
        run.measure_summary(&bytes, &summary)
            .map_err(|e| PartFailure::Failed(e.to_string()))
    }

    pub(super) async fn quantize(
        scheme: bitbudget_math::quant::scheme::Scheme,
        x: &[f32],
        block: usize,
    ) -> Result<Vec<u8>, PartFailure> {
        let gpu = current()?;
        bitbudget_gpu::quantize(&gpu, scheme, x, block)
            .await
            .map_err(failure)
    }

    pub(super) async fn quantize_timed(
        scheme: bitbudget_math::quant::scheme::Scheme,
        x: &[f32],
        block: usize,
    ) -> Result<PhaseTimes, PartFailure> {
        let gpu = current()?;
        let (_, t) = bitbudget_gpu::quantize_timed(
            &gpu,
            scheme,
            x,
            block,
            &crate::ui::pages::quant::pacing::now,
        )
        .await
        .map_err(failure)?;
        Ok(PhaseTimes {
            upload_ms: t.upload_ms,
            compute_ms: t.compute_ms,
            readback_ms: t.readback_ms,
            compute_clock: t.clock.label(),
        })
    }

    pub(super) fn forget() {
        GPU.with(|g| *g.borrow_mut() = None);
    }
}

pub use web::document_gpu;

/// Asks for the page's GPU (once, in the background) and reports in `status`.
pub fn look_for_gpu(status: RwSignal<GpuStatus>) {
    web::look(status);
}

/// Runs the next part of `run` on the GPU (see `bitbudget_gpu::measure_part`): quantized,
/// dequantized and measured on the device, so only its bytes and a summary come back. The bytes,
/// counts and histograms are the CPU's exactly, the sums within `bitbudget_gpu::SUM_TOLERANCE`.
/// On failure nothing is merged and the part is still next.
pub async fn step_on_gpu(run: &mut SchemeRun<'_>) -> Result<(), PartFailure> {
    web::step(run).await
}

/// Quantizes a whole tensor on the GPU (the benchmark's "quantize alone"): the same bytes as
/// `bitbudget_math::quant::codec::quantize`.
pub async fn quantize_on_gpu(
    scheme: bitbudget_math::quant::scheme::Scheme,
    x: &[f32],
    block: usize,
) -> Result<Vec<u8>, PartFailure> {
    web::quantize(scheme, x, block).await
}

/// One GPU quantization's phases, in milliseconds (from `bitbudget_gpu::Timings`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseTimes {
    /// Writing the input to the GPU (host clock).
    pub upload_ms: f64,
    /// The kernels.
    pub compute_ms: f64,
    /// Reading the results back (host clock).
    pub readback_ms: f64,
    /// How compute was timed: "timestamp queries" or "host timing around separate submissions".
    pub compute_clock: &'static str,
}

/// Quantizes a whole tensor on the GPU with upload, compute and readback timed apart (see
/// `bitbudget_gpu::quantize_timed`; compute from timestamp queries when the adapter offers them).
pub async fn quantize_timed_on_gpu(
    scheme: bitbudget_math::quant::scheme::Scheme,
    x: &[f32],
    block: usize,
) -> Result<PhaseTimes, PartFailure> {
    web::quantize_timed(scheme, x, block).await
}

/// Lets go of a GPU that failed, and says so in `status`.
pub fn give_up_gpu(status: RwSignal<GpuStatus>, why: String) {
    web::forget();
    status.set(GpuStatus::Lost(why));
}

/// The GPU's tolerance on the lab's error sums, in parts per million
/// (`bitbudget_gpu::SUM_TOLERANCE`).
fn sum_tolerance_ppm() -> f64 {
    bitbudget_gpu::SUM_TOLERANCE * 1e6
}
