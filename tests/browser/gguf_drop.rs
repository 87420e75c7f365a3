//! Browser tests of GGUF on the Memory page: llama.cpp file types as the weights dtype, and "Drop
//! a .gguf file": a small GGUF file built in the test is given to the file input (through a
//! DataTransfer, as a drop would) and to the drop zone; the page reads its header in slices, shows
//! the model, its weights, the KV cache and the fit on the page's GPU, and a bad file gets a
//! message while the last good summary stays.

use super::common::*;
use bitbudget_app::ui::pages::memory::MemoryPage;
use bitbudget_app::ui::url_state::parse_query;
use bitbudget_math::gguf::{GgufWriter, TensorType};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// A two-block llama-style model with a 150,000-token vocabulary list (a header of about 1.6 MB,
/// more than the first 1 MiB read) and 3 MB of tensor data.
fn small_model() -> Vec<u8> {
    let tokens: Vec<String> = (0..150_000).map(|i| format!("token{i}")).collect();
    let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let mut w = GgufWriter::new()
        .string("general.architecture", "llama")
        .string("general.name", "Tiny Test")
        .u32("llama.block_count", 2)
        .u32("llama.context_length", 4096)
        .u32("llama.embedding_length", 512)
        .u32("llama.attention.head_count", 8)
        .u32("llama.attention.head_count_kv", 2)
        .strings("tokenizer.ggml.tokens", &refs)
        .tensor("token_embd.weight", &[512, 2048], TensorType::Q4_K);
    for b in 0..2 {
        w = w
            .tensor(
                &format!("blk.{b}.attn_q.weight"),
                &[512, 512],
                TensorType::Q8_0,
            )
            .tensor(
                &format!("blk.{b}.ffn_down.weight"),
                &[1024, 512],
                TensorType::Q6_K,
            );
    }
    w.tensor("output.weight", &[512, 2048], TensorType::Q6_K)
        .file()
}

/// Drops `f` on the drop zone.
fn drop_on(root: &web_sys::HtmlElement, f: &web_sys::File) {
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(f).unwrap();
    // new DragEvent("drop", { bubbles: true, dataTransfer }) through JS: web-sys's DragEventInit
    // is not among the app's enabled features.
    let init = js_sys::Object::new();
    js_sys::Reflect::set(&init, &"bubbles".into(), &true.into()).unwrap();
    js_sys::Reflect::set(&init, &"dataTransfer".into(), &dt).unwrap();
    let ctor: js_sys::Function = js_sys::Reflect::get(&js_sys::global(), &"DragEvent".into())
        .unwrap()
        .unchecked_into();
    let ev = js_sys::Reflect::construct(&ctor, &js_sys::Array::of2(&"drop".into(), &init)).unwrap();
    by_testid(root, "gguf-drop")
        .dispatch_event(ev.unchecked_ref())
        .unwrap();
}

async fn until_text(root: &web_sys::HtmlElement, id: &str, wanted: &str) -> String {
    for _ in 0..100 {
        if present(root, id) && text(root, id).contains(wanted) {
            break;
        }
        settle().await;
    }
    text(root, id)
}

#[wasm_bindgen_test]
async fn a_dropped_gguf_shows_its_model_and_fit_and_a_bad_one_keeps_the_page() {
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=inference&seq=4096&gpu=rtx-4090");
    let (root, _app) = mount_fresh(move || view! { <MemoryPage initial=q.memory /> });
    settle().await;
    let bytes = small_model();
    pick_file(&root, &gguf_file(&bytes, "tiny.gguf"));
    let read = until_text(&root, "gguf-read", "tiny.gguf").await;
    // Slices of 1, 2 and 4 MiB as the parser asks for more: the header, never the whole file.
    assert!(
        read.contains("(3 reads)") && read.contains("read the first 4.2 MB of"),
        "{read}"
    );
    let attr = |name: &str| -> u64 {
        by_testid(&root, "gguf-read")
            .get_attribute(name)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(attr("data-size"), bytes.len() as u64);
    assert!(attr("data-read") < attr("data-size"));
    assert!(
        text(&root, "gguf-model").starts_with("Tiny Test (llama) · 2 blocks · 6 tensors · weights"),
        "{}",
        text(&root, "gguf-model")
    );
    // 2 blocks × 2 KV heads × (64 + 64) × 2 bytes = 1 KiB per token.
    let kv = text(&root, "gguf-kv");
    assert!(
        kv.starts_with("KV cache (bf16): 1.0 KB per token,")
            && kv.ends_with("for 4096 tokens (trained context 4096)"),
        "{kv}"
    );
    assert!(text(&root, "gguf-verdict").starts_with("Fits on one NVIDIA RTX 4090 24GB"));
    assert_eq!(
        by_testid(&root, "gguf-tensors")
            .query_selector_all("tbody tr")
            .unwrap()
            .length(),
        6
    );
    // One model at a time: the GGUF's verdict is the page's, the preset's results are gone.
    assert!(
        !present(&root, "verdict"),
        "the preset's headline is not shown beside the GGUF's"
    );
    assert!(!present(&root, "memory-bar"));
    assert_text_has(&root, "gguf-back", "Back to Llama 3 8B");
    // The page's context control drives the summary.
    type_into(&root, "input-seq", "8192");
    let kv = until_text(&root, "gguf-kv", "8192 tokens").await;
    assert!(kv.contains("for 8192 tokens"), "{kv}");
    let notes = text(&root, "gguf-notes");
    assert!(
        notes.contains("longer than the 4096 the model was trained for"),
        "{notes}"
    );
    // A zip file dropped on the zone: a message, and the summary of tiny.gguf stays.
    drop_on(&root, &gguf_file(b"PK\x03\x04 not a model", "weights.zip"));
    let err = until_text(&root, "gguf-error", "weights.zip").await;
    assert!(err.contains("weights.zip: not a GGUF file"), "{err}");
    assert!(text(&root, "gguf-read").contains("tiny.gguf"));
    // A truncated copy: the header needs more than the file has.
    pick_file(&root, &gguf_file(&bytes[..1_200_000], "cut.gguf"));
    let err = until_text(&root, "gguf-error", "cut.gguf").await;
    assert!(
        err.contains("cut.gguf: truncated GGUF file: it ends after 1200000 bytes"),
        "{err}"
    );
    assert!(text(&root, "gguf-model").starts_with("Tiny Test"));
    // Back to the preset in one click; picking another model does the same.
    by_testid(&root, "gguf-back").click();
    settle().await;
    assert!(present(&root, "verdict") && !present(&root, "gguf-summary"));
    pick_file(&root, &gguf_file(&bytes, "tiny.gguf"));
    until_text(&root, "gguf-read", "tiny.gguf").await;
    choose(&root, "input-model", "gpt2");
    settle().await;
    assert!(present(&root, "verdict") && !present(&root, "gguf-summary"));
}

#[wasm_bindgen_test]
async fn a_llama_cpp_file_type_from_the_url_sizes_the_weights_tensor_by_tensor() {
    use bitbudget_math::memory::states::gguf_mix::weight_bytes;
    use bitbudget_math::memory::states::gguf_tensors::GgufArch;
    use bitbudget_math::memory::{find_model, Dtype};
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=inference&dtype=q4_k_m");
    assert!(q.notes.is_empty(), "{:?}", q.notes);
    let (root, _app) = mount_fresh(move || view! { <MemoryPage initial=q.memory /> });
    settle().await;
    let m = find_model("llama-3-8b").unwrap();
    let exact = weight_bytes(&m.arch, GgufArch::Llama, Dtype::Q4KM).unwrap();
    let shown: u64 = by_testid(&root, "bytes-weights")
        .get_attribute("data-bytes")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(shown, exact);
    // A link that trains a llama.cpp file type falls back to BF16 and says why.
    let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&dtype=q6_k");
    let (root, _app2) = mount_fresh(move || view! { <MemoryPage initial=q.memory /> });
    settle().await;
    let note = text(&root, "settled-note");
    assert!(
        note.contains("q6_k is a llama.cpp file type for serving"),
        "{note}"
    );
}
