//! Browser tests of a GGUF file on the Serve page: llama.cpp serves the file's own tensors as
//! `serve --gguf` does, `-ot` and `--n-cpu-moe` move them, flash attention off grows the compute
//! buffer, another engine is refused with the reason, and a preset brings the page back.

use super::common::*;
use bitbudget_app::ui::pages::serve::query::ServeQuery;
use bitbudget_app::ui::pages::serve::ServePage;
use bitbudget_math::gguf::{parse, GgufWriter, TensorType};
use bitbudget_math::memory::find_gpu;
use bitbudget_math::numbers::{format_bytes, Units};
use bitbudget_math::serve::tensor_placement::ModelFile;
use bitbudget_math::serve::{serve, verdict, Engine, ServeSetup};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

/// A four-block mixture of four experts, two active, in Q4_K and Q6_K (about 9 MB of data).
fn small_moe() -> GgufWriter {
    let mut w = GgufWriter::new()
        .string("general.architecture", "llama")
        .string("general.name", "Tiny MoE")
        .u32("llama.block_count", 4)
        .u32("llama.context_length", 16384)
        .u32("llama.embedding_length", 512)
        .u32("llama.feed_forward_length", 1024)
        .u32("llama.attention.head_count", 8)
        .u32("llama.attention.head_count_kv", 2)
        .u32("llama.expert_count", 4)
        .u32("llama.expert_used_count", 2)
        .tensor("token_embd.weight", &[512, 4096], TensorType::Q4_K);
    for b in 0..4 {
        let t = |n: &str| format!("blk.{b}.{n}");
        w = w
            .tensor(&t("attn_norm.weight"), &[512], TensorType::F32)
            .tensor(&t("attn_q.weight"), &[512, 512], TensorType::Q4_K)
            .tensor(&t("attn_k.weight"), &[512, 128], TensorType::Q4_K)
            .tensor(&t("attn_v.weight"), &[512, 128], TensorType::Q6_K)
            .tensor(&t("attn_output.weight"), &[512, 512], TensorType::Q4_K)
            .tensor(&t("ffn_norm.weight"), &[512], TensorType::F32)
            .tensor(&t("ffn_gate_inp.weight"), &[512, 4], TensorType::F32)
            .tensor(
                &t("ffn_gate_exps.weight"),
                &[512, 1024, 4],
                TensorType::Q4_K,
            )
            .tensor(&t("ffn_up_exps.weight"), &[512, 1024, 4], TensorType::Q4_K)
            .tensor(
                &t("ffn_down_exps.weight"),
                &[1024, 512, 4],
                TensorType::Q6_K,
            );
    }
    w.tensor("output_norm.weight", &[512], TensorType::F32)
        .tensor("output.weight", &[512, 4096], TensorType::Q6_K)
}

/// The setup the page should answer: the file on llama.cpp, the page's default GPU and length.
fn expected(bytes: &[u8], change: impl Fn(&mut ServeSetup)) -> ServeSetup {
    let g = parse(bytes, Some(bytes.len() as u64)).unwrap();
    let (file, arch, _) = ModelFile::from_gguf("tiny-moe.gguf", &g).unwrap();
    let mut s = ServeSetup::new(
        Engine::LlamaCpp,
        "Tiny MoE",
        arch,
        find_gpu("h100-80gb").unwrap(),
    );
    s.model_file = Some(file);
    s.max_model_len = Some(8192);
    change(&mut s);
    s
}

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
        .u32("llama.feed_forward_length", 1024)
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

async fn until_present_text(root: &web_sys::HtmlElement, id: &str) {
    for _ in 0..100 {
        if present(root, id) {
            return;
        }
        settle().await;
    }
    panic!("{id} never appeared");
}

#[wasm_bindgen_test]
async fn a_gguf_file_is_served_from_its_own_tensors_and_its_overrides_move_them() {
    let (root, _app) = mount_fresh(move || view! { <ServePage initial=ServeQuery::default() /> });
    settle().await;
    let preset = text(&root, "serve-verdict");
    let bytes = small_moe().file();
    pick_file(&root, &gguf_file(&bytes, "tiny-moe.gguf"));
    until_present_text(&root, "serve-gguf-in-use").await;
    assert_text_has(
        &root,
        "serve-gguf-in-use",
        "Serving Tiny MoE from tiny-moe.gguf on llama.cpp",
    );
    let engine: web_sys::HtmlSelectElement =
        wasm_bindgen::JsCast::unchecked_into(by_testid(&root, "input-engine"));
    assert_eq!(engine.value(), "llama.cpp");
    let s = expected(&bytes, |_| {});
    let r = serve(&s).unwrap();
    assert_text_is(&root, "serve-verdict", &verdict(&s, &r));
    assert_eq!(
        r.placement.as_ref().unwrap().gpu_weights + r.placement.as_ref().unwrap().host_weights,
        ModelFile::from_gguf("x", &parse(&bytes, None).unwrap())
            .unwrap()
            .0
            .bytes(),
        "every tensor of the file is placed once (its head is its own, not tied)"
    );
    assert_text_has(
        &root,
        "serve-tensors",
        "Where llama.cpp puts each of the 43 tensors",
    );

    // -ot: every routed expert to the host.
    type_into(&root, "input-ot", "exps=CPU");
    settle().await;
    let ot = expected(&bytes, |s| s.tensor_overrides = "exps=CPU".into());
    let r_ot = serve(&ot).unwrap();
    assert_text_is(&root, "serve-verdict", &verdict(&ot, &r_ot));
    let host = r_ot.placement.as_ref().unwrap().host_expert_weights;
    assert!(host > 0);
    assert_text_has(&root, "serve-tensors", "-ot entry 1");
    assert_text_has(&root, "serve-tensors", &format_bytes(host, Units::Gib));
    type_into(&root, "input-ot", "(exps=CPU");
    settle().await;
    assert!(
        root.inner_text().contains("has a '(' that is never closed"),
        "a bad pattern is named where it is typed"
    );
    assert_text_is(&root, "serve-verdict", &verdict(&ot, &r_ot));

    // Flash attention off: the compute buffer holds every head's scores.
    set_checked(&root, "input-fa", false);
    settle().await;
    let no_fa = expected(&bytes, |s| {
        s.tensor_overrides = "exps=CPU".into();
        s.flash_attention = false;
    });
    let r_fa = serve(&no_fa).unwrap();
    assert!(r_fa.per_gpu.activations > r_ot.per_gpu.activations);
    assert_text_has(
        &root,
        "serve-activations",
        &format_bytes(r_fa.per_gpu.activations, Units::Gib),
    );

    // Another engine cannot load the file: the reason, and the last good figures stay.
    choose(&root, "input-engine", "vllm");
    settle().await;
    assert_text_has(&root, "serve-verdict", "a GGUF file is llama.cpp's");
    assert_text_has(
        &root,
        "serve-activations",
        &format_bytes(r_fa.per_gpu.activations, Units::Gib),
    );
    // Back to the preset.
    by_testid(&root, "serve-gguf-clear").click();
    settle().await;
    assert!(!present(&root, "serve-gguf-in-use"));
    assert_text_is(&root, "serve-verdict", &preset);

    // A file with no tensors is refused by name; the page stays.
    let empty = GgufWriter::new()
        .string("general.architecture", "llama")
        .file();
    pick_file(&root, &gguf_file(&empty, "empty.gguf"));
    until_present_text(&root, "gguf-error").await;
    assert_text_has(&root, "gguf-error", "empty.gguf holds no tensors");
    assert_text_is(&root, "serve-verdict", &preset);
}

/// The file is read in slices that grow as the parser asks (1, 2 and 4 MiB for a header of
/// 1.6 MB), never whole; a file that is not GGUF, or one cut short, gets a message naming it and
/// the file being served stays.
#[wasm_bindgen_test]
async fn a_gguf_header_is_read_in_slices_and_a_bad_file_keeps_the_served_one() {
    let (root, _app) = mount_fresh(move || view! { <ServePage initial=ServeQuery::default() /> });
    settle().await;
    let bytes = small_model();
    pick_file(&root, &gguf_file(&bytes, "tiny.gguf"));
    let read = until_text(&root, "serve-gguf-in-use", "tiny.gguf").await;
    assert!(
        read.contains("read the first 4.2 MB of") && read.contains("(3 reads)"),
        "{read}"
    );
    assert_text_has(
        &root,
        "serve-gguf-in-use",
        "Serving Tiny Test from tiny.gguf",
    );
    drop_on(&root, &gguf_file(b"PK\x03\x04 not a model", "weights.zip"));
    let err = until_text(&root, "gguf-error", "weights.zip").await;
    assert!(err.contains("weights.zip: not a GGUF file"), "{err}");
    assert_text_has(&root, "serve-gguf-in-use", "tiny.gguf");
    pick_file(&root, &gguf_file(&bytes[..1_200_000], "cut.gguf"));
    let err = until_text(&root, "gguf-error", "cut.gguf").await;
    assert!(
        err.contains("cut.gguf: truncated GGUF file: it ends after 1200000 bytes"),
        "{err}"
    );
    assert_text_has(&root, "serve-gguf-in-use", "tiny.gguf");
}
