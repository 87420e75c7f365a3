//! The Quantize lab in real Web Workers (headless Chromium), started from the worker that
//! `scripts/browser_tests.sh` builds into target/lab-worker/ (the test runner serves the
//! repository's files): the workers' results are bit for bit those of the page's own thread, a
//! newer computation cancels an older one, an upload (or another of its tensors) is read in a
//! worker exactly as on the page's thread, and a worker script that cannot load leaves the lab on the page's thread with a
//! sentence saying so.

use super::common::*;
use bitbudget_app::ui::pages::quant::lab_upload::{pick_off_thread, read_off_thread};
use bitbudget_app::ui::pages::quant::lab_workers::{
    analyse, set_lab_workers, use_worker_script, Analysed,
};
use bitbudget_app::ui::pages::quant::query::QuantQuery;
use bitbudget_app::ui::pages::quant::state::CHUNK_VALUES;
use bitbudget_app::ui::pages::quant::QuantPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::Overview;
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::{read_safetensors, Tensor};
use bitbudget_worker::{encode, read_upload, run_scheme};
use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen_test::*;

/// Where scripts/browser_tests.sh puts the worker.
const WORKER: &str = "/target/lab-worker/lab-worker.js";

fn tensor(seed: u64, n: usize) -> Arc<Tensor> {
    let mut values = generate(Distribution::Laplace, 1, n, 0.05, seed);
    // NaN and ±inf make NaN and infinite metrics and lost blocks: they must come back exactly.
    values[5] = f32::NAN;
    values[n / 2] = f32::NEG_INFINITY;
    Arc::new(Tensor {
        name: "laplace".into(),
        shape: vec![n],
        values,
    })
}

/// Every scheme's row and detail on the page's own thread, as postcard bytes (NaN's bits included).
fn in_thread(t: &Tensor, q: &QuantQuery) -> Vec<(Vec<u8>, Vec<u8>)> {
    let overview = Overview::new(&t.values);
    Scheme::ALL
        .into_iter()
        .map(|s| {
            let (row, detail) = run_scheme(
                s,
                &t.values,
                q.block_for(s, &t.shape).unwrap(),
                q.double_quant,
                &overview,
                CHUNK_VALUES,
                q.fp4,
            )
            .unwrap();
            (encode(&row), encode(&detail))
        })
        .collect()
}

fn as_bytes(a: &Analysed) -> Vec<(Vec<u8>, Vec<u8>)> {
    a.rows
        .iter()
        .zip(&a.details)
        .map(|(r, d)| (encode(r), encode(d)))
        .collect()
}

#[wasm_bindgen_test]
async fn the_workers_give_exactly_the_results_of_the_page_s_own_thread() {
    use_worker_script(WORKER);
    // NVFP4 and MXFP4 with both FP4 options: the workers get the seeds and apply them as the
    // page's thread does (SR drawing by tensor index across parts).
    let q = QuantQuery {
        double_quant: true,
        fp4: bitbudget_math::quant::fp4_options::Fp4Options {
            rht: Some(3),
            sr: Some(4),
        },
        ..QuantQuery::default()
    };
    let t = tensor(4, 300_000);
    let done = analyse(&t, &q, 1, CHUNK_VALUES, || false, |_| ())
        .await
        .expect("the workers started")
        .expect("not cancelled");
    assert!(done.workers >= 1);
    assert_eq!(done.overview, Overview::new(&t.values));
    let got = as_bytes(&done);
    for ((s, got), want) in Scheme::ALL.iter().zip(&got).zip(in_thread(&t, &q)) {
        assert!(
            *got == want,
            "{s}: the worker's results differ from the page's"
        );
    }
}

#[wasm_bindgen_test]
async fn a_newer_computation_cancels_the_older_one_at_once() {
    use_worker_script(WORKER);
    let q = QuantQuery::default();
    let (old, new) = (tensor(1, 2_000_000), tensor(2, 200_000));
    let generation = Rc::new(Cell::new(1u64));
    let older = {
        let (g, old, q) = (generation.clone(), old.clone(), q.clone());
        async move { analyse(&old, &q, 1, CHUNK_VALUES, move || g.get() != 1, |_| ()).await }
    };
    let newer = {
        let (g, new, q) = (generation.clone(), new.clone(), q.clone());
        async move {
            settle().await;
            g.set(2);
            analyse(&new, &q, 2, CHUNK_VALUES, move || g.get() != 2, |_| ()).await
        }
    };
    let (older, newer) = futures_util::future::join(older, newer).await;
    assert!(
        matches!(older, Ok(None)),
        "the older computation was not cancelled"
    );
    let newer = newer.expect("the workers started").expect("not cancelled");
    assert!(
        as_bytes(&newer) == in_thread(&new, &q),
        "results of the newer tensor"
    );
}

/// The lab's table text and where it says it ran, for `url`, once computed.
async fn table_and_ran_on(url: &str, ran_on_starts: &str) -> (String, String) {
    let q = parse_query(url);
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    for _ in 0..400 {
        if present(&root, "ran-on") && text(&root, "ran-on").starts_with(ran_on_starts) {
            let table = by_testid(&root, "quant-table").inner_text();
            return (table, text(&root, "ran-on"));
        }
        settle().await;
    }
    panic!("the lab did not finish with “{ran_on_starts}…”");
}

#[wasm_bindgen_test]
async fn the_page_computes_in_workers_and_its_table_equals_the_in_thread_one() {
    let url = "?tab=quant&tensor=laplace&seed=3&block=128";
    use_worker_script(WORKER);
    let (workers, ran_on) = table_and_ran_on(url, "Computed on the CPU (WebAssembly), in ").await;
    assert!(
        ran_on.ends_with("Web Workers.") || ran_on.ends_with("Web Worker."),
        "{ran_on}"
    );
    set_lab_workers(false);
    let (here, ran_on) = table_and_ran_on(
        url,
        "Computed on the CPU (WebAssembly), on the page's own thread",
    )
    .await;
    assert_eq!(
        ran_on,
        "Computed on the CPU (WebAssembly), on the page's own thread: Web Workers are turned off for this page."
    );
    assert_eq!(workers, here);
}

#[wasm_bindgen_test]
async fn a_worker_script_that_cannot_load_leaves_the_lab_on_the_page_s_thread_and_says_so() {
    use_worker_script("/target/lab-worker/no-such-worker.js");
    let (table, ran_on) = table_and_ran_on(
        "?tab=quant&tensor=normal&seed=5",
        "Computed on the CPU (WebAssembly), on the page's own thread",
    )
    .await;
    // One sentence that says why: the browser's words where it gives them (the test runner's
    // wrapper does), else ours.
    let why = ran_on
        .strip_prefix("Computed on the CPU (WebAssembly), on the page's own thread: Web Workers could not start (")
        .and_then(|r| r.strip_suffix(")."))
        .unwrap_or_else(|| panic!("{ran_on}"));
    assert!(
        why == "its script did not load or was blocked" || why.contains("no-such-worker.js"),
        "{ran_on}"
    );
    assert!(table.contains("q8_0") && table.contains("q4_k"), "{table}");
    // Back on for the other tests of this file.
    use_worker_script(WORKER);
}

/// The address of a worker script (a `blob:` URL) that answers only `Ready` from another build.
fn worker_from_another_build() -> String {
    let ready = encode(&bitbudget_worker::Response::Ready {
        protocol: bitbudget_worker::PROTOCOL ^ 1,
    });
    let bytes: Vec<String> = ready.iter().map(u8::to_string).collect();
    let script = format!("postMessage([new Uint8Array([{}])]);", bytes.join(","));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let parts = js_sys::Array::of1(&script.into());
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).unwrap();
    web_sys::Url::create_object_url_with_blob(&blob).unwrap()
}

#[wasm_bindgen_test]
async fn workers_from_another_build_are_not_used_and_the_page_says_so() {
    let stale = worker_from_another_build();
    use_worker_script(&stale);
    let (table, ran_on) = table_and_ran_on(
        "?tab=quant&tensor=normal&seed=6",
        "Computed on the CPU (WebAssembly), on the page's own thread",
    )
    .await;
    assert_eq!(
        ran_on,
        "Computed on the CPU (WebAssembly), on the page's own thread: Web Workers could not start \
         (their files are from another build of bitbudget: reload the page)."
    );
    assert!(table.contains("q8_0") && table.contains("q4_k"), "{table}");
    // An upload is then read on the page's thread too, not misread by such a worker.
    use_worker_script(&stale);
    let npy = bitbudget_math::quant::tensor_io::npy_file("<f4", &[2], &[0; 8]);
    assert!(read_off_thread("s.npy", &blob(&npy))
        .await
        .unwrap()
        .is_none());
    use_worker_script(WORKER);
}

/// `bytes` in a `Blob`, as the browser hands over a chosen file.
fn blob(bytes: &[u8]) -> web_sys::Blob {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    web_sys::Blob::new_with_u8_array_sequence(&parts).expect("a blob")
}

#[wasm_bindgen_test]
async fn an_upload_is_read_in_a_worker_exactly_as_on_the_page_s_thread() {
    use_worker_script(WORKER);
    let values = tensor(8, 100_000).values.clone();
    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let npy = bitbudget_math::quant::tensor_io::npy_file("<f4", &[250, 400], &data);
    let (index, t, bytes) = read_off_thread("w.npy", &blob(&npy))
        .await
        .expect("a good file")
        .expect("a worker read it");
    let (want_index, want) = read_upload("w.npy", &npy).unwrap();
    assert_eq!(
        (index, &t.name, &t.shape),
        (want_index, &want.name, &want.shape)
    );
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(bits(&t.values) == bits(&want.values), "the values differ");
    assert!(bytes.is_empty(), "a .npy's bytes are not kept");
    // A bad file: the worker's sentence is the page's.
    let bad = &npy[..npy.len() - 3];
    let err = read_off_thread("w.npy", &blob(bad)).await.unwrap_err();
    assert_eq!(err, read_upload("w.npy", bad).unwrap_err());
}

#[wasm_bindgen_test]
async fn without_workers_an_upload_is_left_to_the_page_s_thread() {
    set_lab_workers(false);
    let npy = bitbudget_math::quant::tensor_io::npy_file("<f4", &[1], &1f32.to_le_bytes());
    let kept = blob(&npy);
    assert_eq!(read_off_thread("one.npy", &kept).await, Ok(None));
    assert_eq!(kept.size() as usize, npy.len(), "the file is still here");
    use_worker_script(WORKER);
}

#[wasm_bindgen_test]
async fn another_tensor_of_a_kept_safetensors_file_is_read_in_a_worker() {
    use_worker_script(WORKER);
    // Two tensors, F32 then BF16, as a safetensors file writes them.
    let header = r#"{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"b":{"dtype":"BF16","shape":[4],"data_offsets":[24,32]}}"#;
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    for v in [0.5f32, -1.0, 2.0, 3.5, -0.25, 8.0] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    for v in [1.0f32, -2.0, 0.5, 4.0] {
        file.extend_from_slice(&((v.to_bits() >> 16) as u16).to_le_bytes());
    }
    // Chosen, the file is read in a worker and its bytes are kept on the page, read in slices.
    let (index, first, kept) = read_off_thread("two.safetensors", &blob(&file))
        .await
        .expect("a good file")
        .expect("a worker read it");
    assert_eq!(
        (index, first),
        read_upload("two.safetensors", &file).unwrap()
    );
    assert_eq!(*kept, file, "the kept bytes are the file's");
    let picked = pick_off_thread(&file, "b")
        .await
        .expect("a good tensor")
        .expect("a worker read it");
    assert_eq!(picked, read_safetensors(&file, "b").unwrap());
    let err = pick_off_thread(&file, "c").await.unwrap_err();
    assert_eq!(err, read_safetensors(&file, "c").unwrap_err().to_string());
}

#[wasm_bindgen_test]
async fn of_two_files_chosen_one_after_the_other_the_later_one_is_used() {
    use_worker_script(WORKER);
    let q = parse_query("?tab=quant&tensor=normal");
    let (root, _app) = mount_fresh(move || view! { <QuantPage initial=q.quant /> });
    settle().await;
    // The first file is far larger, so its read ends last: it must not replace the second.
    let npy = |n: usize| {
        let data: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
        bitbudget_math::quant::tensor_io::npy_file("<f4", &[n], &data)
    };
    upload(&root, "big.npy", &npy(4_000_000));
    upload(&root, "small.npy", &npy(1000));
    for _ in 0..400 {
        settle().await;
    }
    assert_text_starts(&root, "tensor-status", "small.npy");
}
