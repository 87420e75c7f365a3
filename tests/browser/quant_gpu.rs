//! The Quantize lab on the GPU in headless Chromium, through the browser's WebGPU (SwiftShader
//! here: a CPU emulation, so these check correctness, not speed). Every kernel gives the CPU's
//! bytes and weights (the K-quants and the newest formats included), the lab's measuring pass
//! gives the CPU's counts and histograms (sums within the stated tolerance), and the page's
//! CPU/GPU switch gives the same table (a scheme without a quantize kernel would run on the CPU
//! there). Chromium runs with
//! `--enable-unsafe-webgpu` (webdriver.json): without an adapter these tests fail, never skip.

use super::common::*;
use bitbudget_app::ui::pages::quant::gpu_lab::document_gpu;
use bitbudget_app::ui::pages::quant::lab_workers::set_lab_workers;
use bitbudget_app::ui::pages::quant::QuantPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_gpu::Gpu;
use bitbudget_math::quant::codec;
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::scheme::Scheme;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// The document's device, which the page's tests below use too (a clone with a chunk cap shares
/// its compiled pipelines: on SwiftShader compiling them is most of these tests' time).
async fn open_gpu() -> Gpu {
    let gpu = document_gpu().await.unwrap_or_else(|e| {
        panic!("WebGPU must be available here (Chromium with --enable-unsafe-webgpu): {e}")
    });
    Gpu::clone(&gpu)
}

/// 24 blocks of 64 normal weights with a NaN, ±∞, a subnormal and a zero block among them.
fn weights() -> Vec<f32> {
    let mut x = generate(Distribution::Normal, 24, 64, 1.0, 9);
    x[5] = f32::NAN;
    x[70] = f32::INFINITY;
    x[71] = f32::NEG_INFINITY;
    x[200] = 1e-40;
    x[256..320].fill(0.0);
    x
}

#[wasm_bindgen_test]
async fn every_kernel_gives_the_cpu_bytes_through_the_browser_webgpu() {
    every_kernel_gives_the_cpu_bytes(&open_gpu().await).await;
}

/// Chunks of two blocks: each chunk's readback (`map_async`, completed by the browser's event
/// loop) overlaps the next chunk's upload and compute (double buffering).
#[wasm_bindgen_test]
async fn every_kernel_gives_the_cpu_bytes_through_double_buffered_chunks() {
    every_kernel_gives_the_cpu_bytes(&open_gpu().await.with_chunk_limit(CHUNK)).await;
}

/// Weights per chunk of the chunked tests: [`weights`] streams through a dozen chunks.
const CHUNK: usize = 128;

/// Every scheme's quantize and dequantize kernels on `gpu` against the CPU.
async fn every_kernel_gives_the_cpu_bytes(gpu: &Gpu) {
    let x = weights();
    for s in Scheme::ALL {
        let block = s.default_block();
        let cpu = codec::quantize(s, &x, block).unwrap();
        let on_gpu = bitbudget_gpu::quantize(gpu, s, &x, block)
            .await
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        let first = on_gpu.iter().zip(&cpu).position(|(a, b)| a != b);
        assert_eq!(on_gpu.len(), cpu.len(), "{s}: byte count");
        assert_eq!(first, None, "{s}: first differing byte");
        let back_cpu = codec::dequantize(s, &cpu, block).unwrap();
        let back_gpu = bitbudget_gpu::dequantize(gpu, s, &cpu, block)
            .await
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(back_gpu.len(), back_cpu.len(), "{s}: weight count");
        for (i, (g, c)) in back_gpu.iter().zip(&back_cpu).enumerate() {
            assert!(
                g.to_bits() == c.to_bits() || (g.is_nan() && c.is_nan()),
                "{s}: weight {i}: GPU {g} CPU {c}"
            );
        }
    }
}

/// The lab's measuring pass in the browser's WebGPU: each part's summary against the CPU's
/// reference (counts, value bins and fine error bins exactly; sums within the stated tolerance),
/// over parts of several blocks with NaN, ±∞ and a subnormal among the values.
#[wasm_bindgen_test]
async fn the_measuring_pass_gives_the_cpu_counts_and_histograms_through_the_browser_webgpu() {
    the_measuring_pass_gives_the_cpu_counts_and_histograms(&open_gpu().await).await;
}

/// The same through chunks of two blocks (whole groups of 256 blocks for NF4's double
/// quantization): the chunks of a part are double-buffered and never wait for each other's
/// readback.
#[wasm_bindgen_test]
async fn the_measuring_pass_gives_the_cpu_counts_and_histograms_through_double_buffered_chunks() {
    let gpu = open_gpu().await.with_chunk_limit(CHUNK);
    the_measuring_pass_gives_the_cpu_counts_and_histograms(&gpu).await;
}

/// Every scheme's measuring pass on `gpu` (NF4 also with double quantization), part by part,
/// against the CPU's summaries and bytes.
async fn the_measuring_pass_gives_the_cpu_counts_and_histograms(gpu: &Gpu) {
    use bitbudget_math::quant::lab::{summarize, CpuBackend, Overview, PartBackend, SchemeRun};
    let x = weights();
    let overview = Overview::new(&x);
    let cases = Scheme::ALL
        .into_iter()
        .map(|s| (s, false))
        .chain([(Scheme::Nf4, true)]);
    for (s, double_quant) in cases {
        let mut run = SchemeRun::new(s, &x, s.default_block(), double_quant, &overview, 512);
        while let Some(range) = run.next_part() {
            let setup = run.measure_setup();
            let padded = run.padded_part();
            let part = &x[range.clone()];
            let (bytes, summary) =
                bitbudget_gpu::measure_part(gpu, run.quantizer(), &setup, part, &padded)
                    .await
                    .unwrap_or_else(|e| panic!("{s} dq={double_quant}: {e}"));
            let cpu = CpuBackend.produce(run.quantizer(), &padded).unwrap();
            assert!(
                bytes == cpu.bytes,
                "{s} dq={double_quant} part {range:?}: bytes"
            );
            let reference = summarize(&setup, part, &cpu.values[..part.len()]);
            bitbudget_gpu::summary_within_tolerance(&summary, &reference, &setup)
                .unwrap_or_else(|e| panic!("{s} dq={double_quant} part {range:?}: {e}"));
            run.measure_summary(&bytes, &summary).unwrap();
        }
    }
}

/// The tbody of the metrics table as text: every scheme's numbers.
fn table_text(root: &web_sys::HtmlElement) -> String {
    root.query_selector("[data-testid='quant-table'] tbody")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap_or_default()
}

/// Waits (up to about a minute: SwiftShader emulates the GPU on the CPU) until the text of
/// `data-testid=id` starts with `prefix`.
async fn until_text_starts(root: &web_sys::HtmlElement, id: &str, prefix: &str) {
    for _ in 0..5000 {
        if present(root, id) && text(root, id).starts_with(prefix) {
            return;
        }
        settle().await;
    }
    panic!(
        "{id} never read {prefix:?}: {:?} (GPU status: {:?})",
        text(root, id),
        text(root, "gpu-status")
    );
}

/// The lab for `url`'s query in a fresh element, once the page has found its GPU. The CPU side
/// runs on the page's thread: the test runner serves no worker script, and a worker that fails
/// to start makes the lab fall back to the page's thread while the GPU is being chosen.
async fn mount_with_gpu(url: &str) -> (web_sys::HtmlElement, impl Sized) {
    set_lab_workers(false);
    let q = parse_query(url).quant;
    let (root, app) = mount_fresh(move || view! { <QuantPage initial=q /> });
    until_text_starts(&root, "gpu-status", "GPU: ").await;
    (root, app)
}

#[wasm_bindgen_test]
async fn the_gpu_switch_names_the_adapter_and_gives_the_cpu_table() {
    let (root, _app) =
        mount_with_gpu("?tab=quant&scheme=q4_0&tensor=laplace&seed=4&schemes=q4_0,q8_0,nf4").await;
    until_text_starts(&root, "ran-on", "Computed on the CPU").await;
    let on_cpu = table_text(&root);
    let gpu_radio: web_sys::HtmlInputElement = by_testid(&root, "device-gpu").unchecked_into();
    assert!(!gpu_radio.disabled(), "the GPU can be chosen once found");
    gpu_radio.click();
    settle().await;
    assert!(gpu_radio.checked(), "the GPU is chosen");
    until_text_starts(&root, "ran-on", "Computed on the GPU").await;
    assert_eq!(
        table_text(&root),
        on_cpu,
        "the same numbers on both devices"
    );
    assert!(
        parse_query("?tab=quant&device=gpu").notes.is_empty(),
        "device=gpu is a URL parameter"
    );
}

#[wasm_bindgen_test]
async fn the_benchmark_measures_cpu_and_gpu_and_gives_its_numbers_as_json() {
    let (root, _app) = mount_with_gpu("?tab=quant&scheme=q8_0&tensor=normal").await;
    choose(&root, "bench-largest", "1048576");
    by_testid(&root, "bench-run").click();
    // On SwiftShader beside the release build the runs outlasted 5000 settles once: wait by the
    // clock, up to 10 minutes, and say so if that was not enough.
    let start = js_sys::Date::now();
    while !present(&root, "bench-json") || present(&root, "bench-progress") {
        assert!(
            js_sys::Date::now() - start < 600_000.0,
            "the benchmark did not finish in 10 minutes"
        );
        settle().await;
    }
    let cells = root
        .query_selector_all("[data-testid='bench-rate']")
        .unwrap();
    let rates: Vec<f64> = (0..cells.length())
        .map(|i| {
            let t = cells.item(i).unwrap().text_content().unwrap_or_default();
            t.parse().unwrap_or_else(|_| panic!("a rate, not {t:?}"))
        })
        .collect();
    assert_eq!(
        rates.len(),
        4,
        "CPU and GPU, quantize and whole lab, at 1M values"
    );
    assert!(rates.iter().all(|r| *r > 0.0), "{rates:?}");
    let json = text(&root, "bench-json");
    for task in [
        "cpu-quantize",
        "gpu-quantize",
        "cpu-lab",
        "gpu-lab",
        "\"scheme\": \"q8_0\"",
        "\"upload_ms\"",
        "\"compute_ms\"",
        "\"readback_ms\"",
        "\"compute_clock\"",
    ] {
        assert_has(&json, task);
    }
    let phases = root
        .query_selector_all("[data-testid='bench-phases']")
        .unwrap();
    let with_phases: Vec<String> = (0..phases.length())
        .filter_map(|i| phases.item(i).unwrap().text_content())
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(
        with_phases.len(),
        1,
        "GPU quantize alone is split into phases: {with_phases:?}"
    );
    assert!(
        with_phases[0].ends_with("(timestamp queries)")
            || with_phases[0].ends_with("(host timing around separate submissions)"),
        "{with_phases:?}"
    );
    assert!(present(&root, "bench-chart"));
}
