//! `bitbudget serve --gguf FILE` on synthetic GGUF files: a header written for a preset in a
//! sparse file of the model's full length (tens of gigabytes on paper, a few kilobytes on disk),
//! and truncated, corrupt and non-GGUF files.

use bitbudget_math::memory::states::gguf_mix::weight_bytes;
use bitbudget_math::memory::states::gguf_preset::preset_writer;
use bitbudget_math::memory::states::gguf_tensors::GgufArch;
use bitbudget_math::memory::{find_model, Dtype};
use std::path::PathBuf;
use std::process::{Command, Output};

/// A file under the temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, bytes: &[u8], len: u64) -> TempFile {
        // Tests run in parallel and may write the same preset: a counter keeps their files apart.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("bitbudget-{}-{n}-{name}", std::process::id()));
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
fn a_70b_q4_k_m_file_on_a_24_gb_card_is_offloaded_in_part() {
    let f = preset_file("llama-3-70b", Dtype::Q4KM);
    let sent = run(&[
        "memory",
        "--gguf",
        f.path(),
        "--seq",
        "8192",
        "--gpu",
        "rtx-4090",
        "--kv-dtype",
        "int8",
    ]);
    assert_eq!(sent.status.code(), Some(2));
    let err = String::from_utf8_lossy(&sent.stderr);
    let command = format!(
        "bitbudget serve --engine llama.cpp --gguf {} --gpu rtx-4090 --kv-dtype q8_0 --max-model-len 8192",
        f.path()
    );
    assert!(err.contains(&command), "{err}");
    let v = json_of(&[
        "serve",
        "--gguf",
        f.path(),
        "--max-model-len",
        "8192",
        "--gpu",
        "rtx-4090",
        "--json",
    ]);
    let exact = weight_bytes(&models_arch("llama-3-70b"), GgufArch::Llama, Dtype::Q4KM).unwrap();
    let p = &v["placement"];
    let gpu_layers = p["gpu_layers"].as_u64().unwrap();
    assert!((1..80).contains(&gpu_layers), "{gpu_layers} of 80 blocks");
    assert_eq!(
        p["gpu_weights"].as_u64().unwrap() + p["host_weights"].as_u64().unwrap(),
        exact
    );
    // llama.cpp's F16 cache on the GPU: its blocks × 8 KV heads × 128 × (K and V) × 2 bytes.
    assert_eq!(v["kv_bytes_per_token"], gpu_layers * 8 * 128 * 2 * 2);
    let tensors = p["tensors"].as_array().unwrap();
    assert_eq!(tensors.len(), 723);
    let device = |name: &str| {
        tensors
            .iter()
            .find(|t| t["name"] == name)
            .map(|t| t["device"].clone())
    };
    // The last blocks go to the GPU, the first stay on the host.
    assert_ne!(device("blk.79.ffn_down.weight"), Some("host".into()));
    assert_eq!(device("blk.0.ffn_down.weight"), Some("host".into()));
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
    let err = String::from_utf8_lossy(&serving.stderr);
    let command = err.split('`').nth(1).unwrap_or_default();
    assert!(
        command.starts_with("bitbudget serve --engine llama.cpp --model llama-3-8b --dtype q4_k_m"),
        "{err}"
    );
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let served = run(&args);
    assert!(
        served.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&served.stderr)
    );
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
        let out = run(&["serve", "--gguf", path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{path}: {err}");
        assert!(err.contains(message) && err.contains(path), "{path}: {err}");
    }
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `serve --gguf` places the file's own tensors: a file written for Mixtral in Q4_K_M is served
/// exactly as the preset in that type (the same tensors, the same header shapes), on llama.cpp
/// without naming it.
#[test]
fn serve_reads_a_gguf_file_as_llama_cpp_loads_it() {
    let f = preset_file("mixtral-8x7b", Dtype::Q4KM);
    let knobs = ["--gpu", "rtx-4090", "--json"];
    let from_file = json_of(&[&["serve", "--gguf", f.path()], &knobs[..]].concat());
    let preset = json_of(
        &[
            &[
                "serve",
                "--model",
                "mixtral-8x7b",
                "--engine",
                "llama.cpp",
                "--dtype",
                "q4_k_m",
            ],
            &knobs[..],
        ]
        .concat(),
    );
    assert_eq!(from_file["engine"], "llama.cpp");
    assert_eq!(from_file["per_gpu"], preset["per_gpu"]);
    assert_eq!(
        from_file["kv_bytes_per_token"],
        preset["kv_bytes_per_token"]
    );
    let a = &models_arch("mixtral-8x7b");
    let total = weight_bytes(a, GgufArch::Llama, Dtype::Q4KM).unwrap();
    let p = &from_file["placement"];
    assert_eq!(
        p["gpu_weights"].as_u64().unwrap() + p["host_weights"].as_u64().unwrap(),
        total
    );
    let tensors = p["tensors"].as_array().unwrap();
    assert!(tensors
        .iter()
        .any(|t| t["name"] == "token_embd.weight" && t["device"] == "host"));
    let text =
        String::from_utf8_lossy(&run(&["serve", "--gguf", f.path(), "--gpu", "rtx-4090"]).stdout)
            .to_string();
    assert!(
        text.contains("as stored in") && text.contains("q4_K"),
        "{text}"
    );
}

fn models_arch(id: &str) -> bitbudget_math::memory::model::arch::ModelArch {
    find_model(id).unwrap().arch
}

/// `--override-tensor exps=CPU` keeps every routed expert on the host and the rest of each block
/// on the GPU, first match winning; `--n-cpu-moe` does it for the first blocks; flash attention
/// off grows the compute buffer by every head's scores against the context.
#[test]
fn serve_moves_tensors_as_override_tensor_and_n_cpu_moe_say() {
    let f = preset_file("mixtral-8x7b", Dtype::Q4KM);
    let base = ["serve", "--gguf", f.path(), "--gpu", "rtx-4090", "--json"];
    let ot = json_of(&[&base[..], &["--override-tensor", "exps=CPU"]].concat());
    let p = &ot["placement"];
    let experts: u64 = p["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().contains("_exps"))
        .map(|t| {
            assert_eq!(t["device"], "host", "{t}");
            assert_eq!(t["rule"]["override"], 0, "{t}");
            t["bytes"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(p["host_expert_weights"].as_u64().unwrap(), experts);
    assert_eq!(p["gpu_layers"], 32);
    assert_eq!(p["output_on_gpu"], true);
    let first = json_of(
        &[
            &base[..],
            &["--ot", r"blk\.0\.=CUDA0,exps=CPU", "--n-gpu-layers", "99"],
        ]
        .concat(),
    );
    let on_gpu = |v: &serde_json::Value, name: &str| {
        v["placement"]["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["device"]
            == "gpu"
    };
    assert!(on_gpu(&first, "blk.0.ffn_up_exps.weight"));
    assert!(!on_gpu(&first, "blk.1.ffn_up_exps.weight"));
    let moe = json_of(&[&base[..], &["--n-cpu-moe", "4", "--n-gpu-layers", "99"]].concat());
    assert!(!on_gpu(&moe, "blk.3.ffn_down_exps.weight"));
    assert!(on_gpu(&moe, "blk.4.ffn_down_exps.weight"));
    // Q4_K_M gives the first blocks' expert matrices more bits: sum their own bytes.
    let first_four: u64 = moe["placement"]["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["block"].as_u64().is_some_and(|b| b < 4))
        .filter(|t| t["name"].as_str().unwrap().contains("_exps"))
        .map(|t| t["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(
        moe["placement"]["host_expert_weights"].as_u64().unwrap(),
        first_four
    );
    assert!(first_four * 8 > experts, "the first blocks are the heavier");

    let fa = |on: &str| {
        json_of(&[&base[..], &["--max-model-len", "8192", "--flash-attn", on]].concat())["per_gpu"]
            ["activations"]
            .as_u64()
            .unwrap()
    };
    let a = models_arch("mixtral-8x7b");
    // 512 tokens × 4 bytes × (32 heads × 8192 cells in place of the 32,000-wide logits)
    assert_eq!(fa("off") - fa("on"), 512 * 4 * (a.heads * 8192 - a.vocab));
}

#[test]
fn serve_refuses_what_llama_cpp_would_with_the_reason() {
    let f = preset_file("llama-3-8b", Dtype::Q80);
    for (args, says) in [
        (vec!["--engine", "sglang"], "GGUF file is llama.cpp's"),
        (vec!["--ot", "exps"], "no '=BUFFER'"),
        (vec!["--ot", "(exps=CPU"], "never closed"),
        (vec!["--ot", "exps=CUDA1"], "CUDA1"),
        (
            vec!["--flash-attn", "off", "--kv-dtype", "q4_0"],
            "only with flash attention on",
        ),
    ] {
        let out = run(&[&["serve", "--gguf", f.path()], &args[..]].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{args:?}: {err}"
        );
    }
    let out = run(&["serve", "--model", "llama-3-8b", "--flash-attn", "off"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("fused attention"));
    let empty = bitbudget_math::gguf::GgufWriter::new().string("general.architecture", "llama");
    let (header, len) = empty.header();
    let none = TempFile::new("empty.gguf", &header, len);
    let out = run(&["serve", "--gguf", none.path()]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("holds no tensors"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
