//! `bitbudget memory --gguf FILE` on synthetic GGUF files: a header written for a preset in a
//! sparse file of the model's full length (tens of gigabytes on paper, a few kilobytes on disk),
//! and truncated, corrupt and non-GGUF files.

use bitbudget_math::memory::report::gguf_fit::preset_writer;
use bitbudget_math::memory::states::gguf_mix::weight_bytes;
use bitbudget_math::memory::states::gguf_tensors::GgufArch;
use bitbudget_math::memory::{find_model, Dtype};
use std::path::PathBuf;
use std::process::{Command, Output};

/// A file under the temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8], len: u64) -> TempFile {
        let path = std::env::temp_dir().join(format!("bitbudget-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        // Sparse: the tensor data takes no disk space.
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(len)
            .unwrap();
        TempFile(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bitbudget"))
        .args(args)
        .output()
        .expect("runs")
}

fn preset_file(id: &str, d: Dtype) -> TempFile {
    let (header, len) = preset_writer(id, d).unwrap().header();
    TempFile::new(&format!("{id}-{d}.gguf"), &header, len)
}

#[test]
fn a_70b_q4_k_m_file_on_a_24_gb_card_reports_partial_offload() {
    let f = preset_file("llama-3-70b", Dtype::Q4KM);
    let out = run(&[
        "memory",
        "--gguf",
        f.path(),
        "--seq",
        "8192",
        "--gpu",
        "rtx-4090",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("Llama 3 70B (llama) · 80 blocks · 723 tensors · weights 42.51 GB"),
        "{text}"
    );
    assert!(
        text.contains(
            "KV cache (bf16): 327.7 KB per token, 2.68 GB for 8192 tokens (trained context 8192)"
        ),
        "{text}"
    );
    assert!(
        text.contains("of 80 blocks fit on the GPU (llama.cpp --n-gpu-layers"),
        "{text}"
    );
    assert!(text.contains("blk.79.ffn_down.weight"), "{text}");
}

#[test]
fn the_json_report_lists_every_tensor_and_the_exact_weight_bytes() {
    let f = preset_file("llama-3-8b", Dtype::Q4KM);
    let out = run(&["memory", "--gguf", f.path(), "--gpu", "rtx-4090", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = find_model("llama-3-8b").unwrap();
    let exact = weight_bytes(&m.arch, GgufArch::Llama, Dtype::Q4KM).unwrap();
    assert_eq!(v["model"]["weight_bytes"], exact);
    assert_eq!(v["model"]["tensors"].as_array().unwrap().len(), 291);
    assert_eq!(v["model"]["tensors"][0]["type"], "q4_K");
    assert_eq!(v["kv_bytes_per_token"], 131_072);
    assert_eq!(v["fit"]["fits"], true);
    assert_eq!(v["file"], f.path());
}

#[test]
fn the_dtype_option_takes_llama_cpp_file_types_for_serving_only() {
    let with_mode = |mode: &str| {
        let args = [
            "memory",
            "--model",
            "llama-3-8b",
            "--dtype",
            "q4_k_m",
            "--mode",
            mode,
        ];
        run(&args)
    };
    let serving = with_mode("inference");
    let text = String::from_utf8_lossy(&serving.stdout);
    assert!(text.contains("llama.cpp q4_k_m: 291 tensors"), "{text}");
    let training = with_mode("train");
    assert_eq!(training.status.code(), Some(2));
    let err = String::from_utf8_lossy(&training.stderr);
    assert!(
        err.contains("q4_k_m is a llama.cpp file type for serving"),
        "{err}"
    );
}

#[test]
fn bad_files_exit_2_with_a_clear_message() {
    let (header, len) = preset_writer("llama-3-8b", Dtype::Q80).unwrap().header();
    let truncated = TempFile::new(
        "truncated.gguf",
        &header[..header.len() / 2],
        (header.len() / 2) as u64,
    );
    let short = TempFile::new("short.gguf", &header, len - 1000);
    let zip = TempFile::new("model.zip", b"PK\x03\x04not a model", 18);
    let mut bad = header.clone();
    bad[4] = 9;
    let version = TempFile::new("v9.gguf", &bad, len);
    let missing = std::env::temp_dir().join("bitbudget-no-such-file.gguf");
    let cases: [(&str, &str); 5] = [
        (truncated.path(), "truncated GGUF file: it ends after"),
        (short.path(), "tensor 'output.weight' ends at byte"),
        (zip.path(), "not a GGUF file"),
        (version.path(), "GGUF version 9 is not supported"),
        (missing.to_str().unwrap(), "cannot read"),
    ];
    for (path, message) in cases {
        let out = run(&["memory", "--gguf", path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert!(err.contains(message) && err.contains(path), "{path}: {err}");
    }
    let out = run(&["memory", "--gguf", zip.path(), "--model", "llama-3-8b"]);
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--gguf reads the model from the file: drop --model"));
}
