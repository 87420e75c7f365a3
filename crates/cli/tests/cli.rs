//! End-to-end tests of the `bitbudget` binary: exit codes, messages and JSON contracts.

use bitbudget_math::memory::Part;
use bitbudget_math::quant::scheme::Scheme;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The `memory` command line for the Memory page's setup behind the fixtures
/// `memory_llama3_8b_zero3.json` and `memory_llama3_8b_zero3_bar.svg`: Llama 3 8B trained in bf16
/// with AdamW, ZeRO-3 over 8 GPUs, 4096 tokens, selective recomputation, on H100 80GB.
const LLAMA3_8B_ZERO3: &[&str] = &[
    "memory",
    "--model",
    "llama-3-8b",
    "--mode",
    "train",
    "--dtype",
    "bf16",
    "--optimizer",
    "adamw",
    "--zero",
    "3",
    "--dp",
    "8",
    "--tp",
    "1",
    "--pp",
    "1",
    "--batch",
    "1",
    "--seq",
    "4096",
    "--recompute",
    "selective",
    "--gpu",
    "h100-80gb",
];

fn bitbudget(args: &[&str], stdin: &[u8]) -> Output {
    bitbudget_env(args, stdin, &[])
}

/// Asserts that two little-endian f32 arrays (GPU, CPU) are equal bit for bit, except that a NaN
/// only has to be a NaN (its payload is unspecified); `what` names the case.
fn assert_same_f32s(from_gpu: &[u8], from_cpu: &[u8], what: &str) {
    for (i, (g, c)) in from_gpu.chunks(4).zip(from_cpu.chunks(4)).enumerate() {
        let (g, c) = (
            f32::from_le_bytes(g.try_into().unwrap()),
            f32::from_le_bytes(c.try_into().unwrap()),
        );
        assert!(
            g.to_bits() == c.to_bits() || (g.is_nan() && c.is_nan()),
            "{what}: dequantized weight {i}: GPU {g:e}, CPU {c:e}"
        );
    }
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = bitbudget(args, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fails_with(args: &[&str], stdin: &[u8], message: &str) {
    let out = bitbudget(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(message),
        "{args:?}: expected '{message}' in: {err}"
    );
}

#[test]
fn cast_f32_to_bf16_through_pipes() {
    let input: Vec<u8> = [0.1f32, 1.0, -2.0, f32::MAX]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let out = bitbudget(&["cast", "--from", "f32", "--to", "bf16", "-", "-"], &input);
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        vec![0xCD, 0x3D, 0x80, 0x3F, 0x00, 0xC0, 0x80, 0x7F]
    );
    let e4m3 = bitbudget(
        &["cast", "--from", "f32", "--to", "f8e4m3", "-", "-"],
        &1000f32.to_le_bytes(),
    );
    assert_eq!(e4m3.stdout, vec![0x7F], "E4M3 overflow is NaN");
    let sat = bitbudget(
        &[
            "cast",
            "--saturate",
            "--from",
            "f32",
            "--to",
            "f8e4m3",
            "-",
            "-",
        ],
        &1000f32.to_le_bytes(),
    );
    assert_eq!(sat.stdout, vec![0x7E]);
}

#[test]
fn cast_rejects_ragged_input_and_unknown_formats() {
    fails_with(
        &["cast", "--from", "f32", "--to", "f16", "-", "-"],
        &[0; 6],
        "not a whole number of f32 elements",
    );
    fails_with(
        &["cast", "--from", "f33", "--to", "f16", "-", "-"],
        &[],
        "f33",
    );
    fails_with(
        &["cast", "--from", "f32", "--to", "f16", "/no/such/file", "-"],
        &[],
        "/no/such/file",
    );
}

#[test]
fn bits_prints_fields_stored_value_and_error() {
    let out = bitbudget(&["bits", "--format", "bf16", "0.1"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("exponent  01111011"), "{text}");
    assert!(text.contains("stored    0.10009765625"));
    assert!(text.contains("(-1)^0 × 2^(123-127) × 1.6015625"));
    fails_with(&["bits", "--format", "bf16", "zebra"], b"", "not a number");
}

/// The ZeRO paper's Figure 1 through the CLI: 7.5B parameters on 64 GPUs.
#[test]
fn memory_json_reproduces_zero_figure_1() {
    for (stage, gb) in [("0", 120.0), ("1", 31.4), ("2", 16.6), ("3", 1.9)] {
        let v = json(&[
            "memory", "--params", "7.5e9", "--dp", "64", "--zero", stage, "--json",
        ]);
        assert_eq!(v["params"], 7_500_000_000u64);
        let states = v["per_gpu"]["model_states"].as_u64().unwrap();
        assert_eq!((states as f64 / 1e8).round() / 10.0, gb, "ZeRO-{stage}");
        assert_eq!(v["per_gpu"]["activations"], 0);
        for key in Part::ALL.iter().map(|p| p.key()).chain(["total"]) {
            assert!(v["per_gpu"][key].is_u64(), "{key} is an integer");
        }
    }
}

#[test]
fn memory_json_for_a_preset_adds_up_and_judges_the_gpu() {
    let v = json(&[LLAMA3_8B_ZERO3, &["--json"]].concat());
    assert_eq!(v["params"], 8_030_261_248u64);
    let g = &v["per_gpu"];
    let sum: u64 = bitbudget_math::memory::Part::ALL
        .iter()
        .map(|p| g[p.key()].as_u64().unwrap())
        .sum();
    assert_eq!(g["total"].as_u64().unwrap(), sum);
    assert_eq!(v["gpu"]["capacity_bytes"], 81559u64 << 20);
    assert_eq!(
        v["fits"],
        serde_json::Value::Bool(g["total"].as_u64().unwrap() <= 81559u64 << 20)
    );
    assert_eq!(
        v["conventions"].as_array().unwrap().len(),
        bitbudget_math::memory::Convention::ALL.len()
    );
}

/// Kwon et al. 2023 (vLLM): OPT-13B's KV cache is 800 KB per token.
#[test]
fn serve_kv_cache_of_opt_13b() {
    let v = json(&["serve", "--model", "opt-13b", "--json"]);
    assert_eq!(v["kv_bytes_per_token"], 819_200);
}

/// Serving asked of `memory` is answered by `serve`: the error gives the command, with what the
/// job carries that the engines serve.
#[test]
fn memory_sends_serving_to_serve_with_the_command() {
    let out = bitbudget(
        &[
            "memory",
            "--model",
            "llama-3-70b",
            "--mode",
            "inference",
            "--gpu",
            "a100-80gb",
            "--tp",
            "2",
            "--seq",
            "8192",
            "--batch",
            "16",
            "--dtype",
            "fp32",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let command = "bitbudget serve --model llama-3-70b --gpu a100-80gb --tp 2 --max-model-len 8192 --concurrency 16";
    assert!(err.contains(command), "{err}");
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let text = String::from_utf8_lossy(&bitbudget(&args, b"").stdout).to_string();
    assert!(text.starts_with("Fits on 2 × NVIDIA A100 80GB"), "{text}");
    let params = bitbudget(&["memory", "--params", "7e9", "--mode", "inference"], b"");
    let err = String::from_utf8_lossy(&params.stderr);
    assert!(
        err.contains("--model mistral-7b")
            && err.contains("mistral-7b is the preset nearest 7.00B parameters"),
        "{err}"
    );
    // A sequence shorter than the default prompt is the prompt, so that the request fits.
    let short = bitbudget(
        &[
            "memory",
            "--model",
            "llama-3-8b",
            "--mode",
            "inference",
            "--seq",
            "512",
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&short.stderr);
    let command = err.split('`').nth(1).unwrap();
    assert!(
        command.ends_with("--max-model-len 512 --concurrency 1 --prompt-tokens 512"),
        "{err}"
    );
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    assert!(bitbudget(&args, b"").status.success(), "{command}");
}

#[test]
fn memory_rejects_bad_input_by_name() {
    let cases: [(&[&str], &str); 11] = [
        (&["memory", "--model", "lama-3-8b"], "closest: llama-3-8b"),
        (
            &["memory", "--model", "gpt2", "--dp", "0"],
            "--dp: data-parallel degree is 0: at least one GPU is needed",
        ),
        (&["memory", "--params", "-5"], "must be a finite number"),
        (&["memory", "--params", "NaN"], "must be a finite number"),
        (
            &["memory", "--model", "llama-3-8b", "--tp", "3"],
            "does not divide",
        ),
        (
            &["memory", "--model", "gpt2", "--gpu", "h100"],
            "closest: h100-nvl, h100-80gb",
        ),
        (&["memory"], "give a model preset, a parameter count"),
        (
            &["memory", "--layers", "0", "--hidden", "64", "--heads", "4"],
            "--layers: number of layers must be at least 1",
        ),
        (
            &["memory", "--model", "gpt2", "--params", "1e9"],
            "not both",
        ),
        (
            &["memory", "--model", "gpt2", "--dtype", "int4"],
            "--dtype: full training in int4 is not possible: choose QLoRA or inference",
        ),
        (
            &["memory", "--model", "gpt2", "--lora-targets", "q,x"],
            "--lora-targets",
        ),
    ];
    for (args, message) in cases {
        fails_with(args, b"", message);
    }
}

#[test]
fn custom_architecture_defaults_to_gelu_with_4x_ffn() {
    let v = json(&[
        "memory", "--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "100", "--json",
    ]);
    // Per layer 4·64² attention + 2·64·256 MLP + 2·64 RMSNorm; embeddings and head 2·100·64; final norm 64.
    assert_eq!(
        v["params"],
        2 * (4 * 64 * 64 + 2 * 64 * 256 + 128) + 2 * 100 * 64 + 64
    );
}

/// `--model custom` takes the custom numbers, as the page's `model=custom` does; the options only
/// the CLI had before (`--lora-targets`, `--convention`, `--gpus-per-node`) reach the estimate.
#[test]
fn memory_accepts_model_custom_and_every_table_option() {
    let custom = json(&[
        "memory", "--model", "custom", "--layers", "4", "--hidden", "256", "--heads", "4", "--json",
    ]);
    assert_eq!(custom["model"], "custom");
    assert_eq!(custom["setup"]["layers"], "4");
    assert_eq!(custom["setup"]["vocab"], "50304");
    let lora = |targets: &str| {
        json(&[
            "memory",
            "--model",
            "gpt2",
            "--mode",
            "lora",
            "--lora-targets",
            targets,
            "--json",
        ])["trainable_params"]
            .as_u64()
            .unwrap()
    };
    assert!(lora("q,k,v,o,mlp") > lora("q,v"));
    let ds = json(&[
        "memory",
        "--model",
        "gpt2",
        "--zero",
        "3",
        "--dp",
        "16",
        "--convention",
        "deepspeed",
        "--gpus-per-node",
        "4",
        "--flash-attention",
        "--json",
    ]);
    assert_eq!(ds["setup"]["convention"], "deepspeed");
    assert_eq!(ds["setup"]["flash-attention"], "1");
    assert!(ds["cpu_offload_per_gpu"].as_u64().unwrap() > 0);
}

#[test]
fn presets_list_and_closed_pipes_are_quiet() {
    let out = bitbudget(&["models", "--json"], b"");
    let models: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(models.as_array().unwrap().len() >= 15);
    let gpus = bitbudget(&["gpus"], b"");
    assert!(String::from_utf8_lossy(&gpus.stdout).contains("h100-80gb"));
}

/// The browser test `memory_page::numbers_match_the_cli_json` compares the page with this fixture;
/// this test keeps the fixture equal to what the CLI prints today. Run it with
/// `BITBUDGET_UPDATE_FIXTURES=1` to rewrite the fixture from the CLI's output.
#[test]
fn memory_fixture_is_what_the_cli_prints() {
    let v = json(&[LLAMA3_8B_ZERO3, &["--json"]].concat());
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/memory_llama3_8b_zero3.json"
    );
    if std::env::var_os("BITBUDGET_UPDATE_FIXTURES").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
    }
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(
        v, fixture,
        "regenerate tests/fixtures/memory_llama3_8b_zero3.json with the command above"
    );
}

/// The CLI writes llama.cpp's Q4_0 bytes: the same fixture the math crate checks against the
/// `gguf` package's reference quantizer.
#[test]
fn quantize_writes_reference_ggml_bytes_and_dequantize_reverses_them() {
    let input = include_bytes!("../../math/tests/fixtures/ggml/input.f32");
    let out = bitbudget(&["quantize", "--scheme", "q4_0", "-", "-"], input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        out.stdout,
        include_bytes!("../../math/tests/fixtures/ggml/q4_0.bin")
    );
    let back = bitbudget(&["dequantize", "--scheme", "q4_0", "-", "-"], &out.stdout);
    assert_eq!(back.stdout.len(), input.len());
}

/// Every scheme the K-quant work added goes through `quantize` and `dequantize` as the math
/// crate's bytes and values; the llama.cpp formats are also llama.cpp's own fixture bytes.
#[test]
fn the_k_quants_iq4_nl_nvfp4_and_mx_formats_round_trip_through_the_cli() {
    use bitbudget_math::quant::codec;
    use bitbudget_math::quant::scheme::Scheme;
    let input = include_bytes!("../../math/tests/fixtures/ggml/kquant_input.f32");
    let x: Vec<f32> = input
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let llama: [(&str, &[u8]); 7] = [
        (
            "q2_k",
            include_bytes!("../../math/tests/fixtures/ggml/q2_k.bin"),
        ),
        (
            "q3_k",
            include_bytes!("../../math/tests/fixtures/ggml/q3_k.bin"),
        ),
        (
            "q4_k",
            include_bytes!("../../math/tests/fixtures/ggml/q4_k.bin"),
        ),
        (
            "q5_k",
            include_bytes!("../../math/tests/fixtures/ggml/q5_k.bin"),
        ),
        (
            "q6_k",
            include_bytes!("../../math/tests/fixtures/ggml/q6_k.bin"),
        ),
        (
            "iq4_nl",
            include_bytes!("../../math/tests/fixtures/ggml/iq4_nl.bin"),
        ),
        (
            "nvfp4",
            include_bytes!("../../math/tests/fixtures/ggml/nvfp4.bin"),
        ),
    ];
    let names = llama.iter().map(|(n, _)| *n).chain([
        "mxfp6-e2m3",
        "mxfp6-e3m2",
        "mxfp8-e4m3",
        "mxfp8-e5m2",
    ]);
    for name in names {
        let s: Scheme = name.parse().unwrap();
        let out = bitbudget(&["quantize", "--scheme", name, "-", "-"], input);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let block = s.default_block();
        assert_eq!(out.stdout, codec::quantize(s, &x, block).unwrap(), "{name}");
        if let Some((_, reference)) = llama.iter().find(|(n, _)| *n == name) {
            assert_eq!(&out.stdout[..], *reference, "{name}: llama.cpp's bytes");
        }
        let back = bitbudget(&["dequantize", "--scheme", name, "-", "-"], &out.stdout);
        assert!(
            back.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&back.stderr)
        );
        let want: Vec<u8> = codec::dequantize(s, &out.stdout, block)
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(back.stdout, want, "{name}: dequantized values");
        let report = bitbudget(&["quantize", "--scheme", name, "--report", "-"], input);
        let report: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
        assert_eq!(report["scheme"], name);
        assert_eq!(report["block"], block);
    }
}

#[test]
fn absmax_int8_layout_is_scale_then_codes() {
    let x: Vec<u8> = [1.0f32, -0.5, 0.25, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let out = bitbudget(
        &[
            "quantize",
            "--scheme",
            "absmax-int8",
            "--block",
            "4",
            "-",
            "-",
        ],
        &x,
    );
    assert_eq!(&out.stdout[..4], &(1.0f32 / 127.0).to_le_bytes());
    assert_eq!(&out.stdout[4..], &[127u8, (-64i8) as u8, 32, 0]);
}

#[test]
fn quantize_report_prints_metrics() {
    let input = include_bytes!("../../math/tests/fixtures/ggml/input.f32");
    let out = bitbudget(&["quantize", "--scheme", "q8_0", "--report", "-"], input);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bits_per_weight"], 8.5);
    assert!(v["sqnr_db"].as_f64().unwrap() > 30.0);
    assert!(v["cosine"].as_f64().unwrap() > 0.999);
    assert_eq!(v["skipped_non_finite_inputs"], 0);
}

#[test]
fn quantize_report_counts_non_finite_values_instead_of_hiding_them() {
    // One infinity makes llama.cpp's Q8_0 scale infinite, so the other 31 come back NaN.
    let mut x = [0.5f32; 32];
    x[0] = f32::INFINITY;
    let input: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let out = bitbudget(&["quantize", "--scheme", "q8_0", "--report", "-"], &input);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["skipped_non_finite_inputs"], 1);
    assert_eq!(v["lost_to_non_finite_outputs"], 31);
    assert_eq!(
        (v["mse"].as_str(), v["sqnr_db"].as_str()),
        (Some("inf"), Some("-inf"))
    );
    assert_eq!(v["cosine"], "nan");
    // A NaN input is skipped; the rest quantize exactly.
    x[0] = f32::NAN;
    let input: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let out = bitbudget(&["quantize", "--scheme", "q4_0", "--report", "-"], &input);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["skipped_non_finite_inputs"].as_u64(), v["mse"].as_f64()),
        (Some(1), Some(0.0))
    );
}

/// fp8-128x128 takes the tensor's columns from `--cols`: its bytes are the codec's, they read
/// back through `dequantize`, and a missing, zero, ragged, huge or non-numeric count, `--block`,
/// and `--cols` on another scheme are errors that say why.
#[test]
fn fp8_128x128_takes_the_columns_from_cols() {
    let dir = std::env::temp_dir().join(format!("bitbudget-cols-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = include_bytes!("../../math/tests/fixtures/ggml/input.f32");
    let x: Vec<f32> = input
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let cols = (1..=x.len())
        .rev()
        .find(|c| x.len() % c == 0 && *c < x.len() && *c > 128);
    let cols = cols.unwrap_or(x.len());
    let (raw, q, back) = (dir.join("w.f32"), dir.join("w.q"), dir.join("back.f32"));
    std::fs::write(&raw, input).unwrap();
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let c = cols.to_string();
    let out = bitbudget(
        &[
            "quantize",
            "--scheme",
            "fp8-128x128",
            "--cols",
            &c,
            &path(&raw),
            &path(&q),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = bitbudget_math::quant::codec::quantize(Scheme::Fp8Block, &x, cols).unwrap();
    assert_eq!(std::fs::read(&q).unwrap(), want);
    let out = bitbudget(
        &[
            "dequantize",
            "--scheme",
            "fp8-128x128",
            "--cols",
            &c,
            &path(&q),
            &path(&back),
        ],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = bitbudget_math::quant::codec::dequantize(Scheme::Fp8Block, &want, cols).unwrap();
    let y: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(std::fs::read(&back).unwrap(), y);
    let report = json(&[
        "quantize",
        "--scheme",
        "fp8-128x128",
        "--cols",
        &c,
        "--report",
        &path(&raw),
    ]);
    assert_eq!(report["cols"], cols);
    assert_eq!(report["bytes"], want.len());
    let fp8 = ["quantize", "--scheme", "fp8-128x128"];
    fn with<'a>(fp8: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [fp8, extra, &["-", "-"]].concat()
    }
    fails_with(&with(&fp8, &[]), input, "needs the tensor's column count");
    fails_with(&with(&fp8, &["--cols", "0"]), input, "0 columns");
    fails_with(
        &with(&fp8, &["--cols", "1e15"]),
        input,
        "between 1 and 16777216",
    );
    fails_with(&with(&fp8, &["--cols", "abc"]), input, "not a number");
    let ragged = (x.len() + 1).to_string();
    fails_with(
        &with(&fp8, &["--cols", &ragged]),
        input,
        "not a whole number of rows",
    );
    fails_with(
        &with(&fp8, &["--cols", &c, "--block", "64"]),
        input,
        "--block does not apply",
    );
    fails_with(
        &["quantize", "--scheme", "q8_0", "--cols", "64", "-", "-"],
        input,
        "--cols applies to fp8-1x128 and fp8-128x128 only",
    );
    fails_with(
        &[
            "quantize",
            "--scheme",
            "fp8-1x128",
            "--cols",
            "200",
            "-",
            "-",
        ],
        input,
        "must be a positive multiple of 128",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn quantize_rejects_partial_blocks_and_bad_schemes() {
    fails_with(
        &["quantize", "--scheme", "q8_0", "-", "-"],
        &[0; 12],
        "not a whole number of 32-weight blocks",
    );
    fails_with(
        &["quantize", "--scheme", "q8_0", "-", "-"],
        &[0; 13],
        "not a whole number of f32 values",
    );
    fails_with(
        &["quantize", "--scheme", "q7_k", "-", "-"],
        &[],
        "unknown scheme",
    );
    fails_with(
        &["quantize", "--scheme", "q4_0", "--block", "64", "-", "-"],
        &[],
        "fixed block of 32",
    );
    fails_with(
        &["dequantize", "--scheme", "q8_0", "-", "-"],
        &[0; 35],
        "not a whole number of 34-byte",
    );
}

#[test]
fn nf4_double_quant_reports_4_127_bits() {
    let input = include_bytes!("../../math/tests/fixtures/ggml/input.f32");
    let out = bitbudget(
        &[
            "quantize",
            "--scheme",
            "nf4",
            "--double-quant",
            "--report",
            "-",
        ],
        input,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        (v["bits_per_weight"].as_f64().unwrap() - 4.127).abs() < 0.001,
        "{v}"
    );
    fails_with(
        &["quantize", "--scheme", "q4_0", "--double-quant", "-", "-"],
        input,
        "nf4 only",
    );
}

/// The browser test `svg_downloads::bits_download_is_the_cli_svg` compares the Bits page's SVG
/// download with this fixture; this test keeps the fixture equal to what the CLI writes today.
#[test]
fn bits_svg_fixture_is_what_the_cli_writes() {
    let out = bitbudget(&["bits", "--format", "bf16", "0.1", "--svg", "-"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        include_str!("../../../tests/fixtures/bits_bf16_0.1.svg"),
        "regenerate with: bitbudget bits --format bf16 0.1 --svg tests/fixtures/bits_bf16_0.1.svg"
    );
}

#[test]
fn bits_svg_to_a_file_still_prints_the_text() {
    let path = std::env::temp_dir().join(format!("bitbudget-bits-{}.svg", std::process::id()));
    let p = path.to_str().unwrap();
    let out = bitbudget(&["bits", "--format", "f8e4m3", "300", "--svg", p], b"");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("FP8 E4M3"));
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("0x79 = 288"),
        "the title names the stored pattern and value"
    );
}

#[test]
fn svg_to_stdout_and_json_to_stdout_is_refused() {
    fails_with(
        &["bits", "--format", "bf16", "1", "--svg", "-", "--json"],
        b"",
        "both write to stdout",
    );
}

#[test]
fn svg_to_an_unwritable_path_names_the_path() {
    fails_with(
        &[
            "bits",
            "--format",
            "bf16",
            "1",
            "--svg",
            "/nonexistent/dir/x.svg",
        ],
        b"",
        "cannot write /nonexistent/dir/x.svg",
    );
}

#[test]
fn quantize_report_svg_holds_the_four_lab_charts() {
    let input = include_bytes!("../../math/tests/fixtures/ggml/input.f32");
    let out = bitbudget(
        &[
            "quantize", "--scheme", "q4_0", "--report", "--svg", "-", "-",
        ],
        input,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(
        svg.starts_with("<svg width=\"1440\" height=\"520\""),
        "{}",
        &svg[..80]
    );
    for title in [
        "Values: original (bars)",
        "Error (dequantized − original)",
        "Error map (RMSE per 32-value block",
        "Accuracy vs storage",
    ] {
        assert!(svg.contains(title), "missing chart '{title}'");
    }
    assert!(
        !svg.contains("xlink:href") && !svg.contains("@font-face"),
        "self-contained"
    );
}

#[test]
fn quantize_svg_needs_report_and_values() {
    fails_with(
        &["quantize", "--scheme", "q8_0", "--svg", "-", "-", "-"],
        b"",
        "--report",
    );
    fails_with(
        &[
            "quantize", "--scheme", "q8_0", "--report", "--svg", "-", "-",
        ],
        b"",
        "the input is empty",
    );
}

/// `memory --svg - --chart bar` writes the Memory page's SVG download for the same state, byte for
/// byte (the browser test `tests/svg_downloads.rs` checks the page's side against the same file).
#[test]
fn memory_svg_is_the_pages_download() {
    let out = bitbudget(
        &[LLAMA3_8B_ZERO3, &["--svg", "-", "--chart", "bar"]].concat(),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fixture = include_str!("../../../tests/fixtures/memory_llama3_8b_zero3_bar.svg");
    assert_eq!(String::from_utf8_lossy(&out.stdout), fixture);
}

#[test]
fn memory_svg_names_a_bad_chart_and_refuses_two_stdout_writers() {
    fails_with(
        &["memory", "--model", "gpt2", "--svg", "-", "--chart", "pie"],
        b"",
        "bar, strategies, scaling, layout",
    );
    let out = bitbudget(&["memory", "--model", "gpt2", "--svg", "-", "--json"], b"");
    assert_eq!(out.status.code(), Some(2));
    for chart in ["strategies", "scaling"] {
        let out = bitbudget(
            &[
                "memory", "--model", "gpt2", "--gpu", "t4", "--svg", "-", "--chart", chart,
            ],
            b"",
        );
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("<svg"));
    }
}

#[test]
fn memory_svg_draws_the_parallel_layout_and_refuses_a_layout_that_cannot_run() {
    let args = [
        "memory",
        "--model",
        "mixtral-8x7b",
        "--dp",
        "8",
        "--ep",
        "4",
        "--pp",
        "2",
        "--svg",
        "-",
        "--chart",
        "layout",
    ];
    let out = bitbudget(&args, b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8_lossy(&out.stdout);
    for words in [
        "Where each GPU sits in the parallel groups: Mixtral 8x7B",
        "EP 4: the routed experts divided over 4 GPUs · 4 groups",
        "DP 8: model replicas on 8 GPUs · 2 groups",
        "PP 2: consecutive layers on 2 GPUs · 8 groups",
        "dp 8 × tp 1 × pp 2; experts: ep 4 × etp 1",
    ] {
        assert!(svg.contains(words), "{words}");
    }
    fails_with(
        &[
            "memory",
            "--model",
            "mixtral-8x7b",
            "--dp",
            "6",
            "--ep",
            "3",
            "--svg",
            "-",
            "--chart",
            "layout",
        ],
        b"",
        "expert-parallel degree 3 does not divide the 8 routed experts",
    );
}

/// Runs the binary with extra environment variables.
fn bitbudget_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitbudget"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    // A command that refuses its arguments exits without reading its input: a broken pipe
    // then is the expected outcome, not a failure of the test.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

/// Whether `--device gpu` found an adapter; prints SKIPPED loudly when not (a failure with
/// `BITBUDGET_REQUIRE_GPU=1`).
fn gpu_available() -> bool {
    let out = bitbudget(
        &["quantize", "--device", "gpu", "--scheme", "bf16", "-", "-"],
        &1f32.to_le_bytes(),
    );
    if out.status.success() {
        return true;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no GPU adapter"), "unexpected failure: {err}");
    if std::env::var("BITBUDGET_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!("BITBUDGET_REQUIRE_GPU=1 but {err}");
    }
    // Straight to stderr: the test harness captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED: --device gpu CLI test: {} ***\n",
        err.trim()
    );
    false
}

/// `n` values spread over ±0.3 in a scrambled order, then NaN, ±∞, −0 and a subnormal, as
/// little-endian f32 bytes.
fn gpu_test_input(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| ((i * 7919 % n) as f32 / (n / 2) as f32 - 1.0) * 0.3)
        .chain(
            [f32::NAN, f32::INFINITY, -0.0, 1e-40]
                .into_iter()
                .cycle()
                .take(64),
        )
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

#[test]
fn quantize_and_dequantize_on_the_gpu_write_the_cpu_bytes() {
    if !gpu_available() {
        return;
    }
    // 4096 values: whole K-quant super-blocks.
    let input = gpu_test_input(4096 - 64);
    // The route is the same for every scheme (crates/gpu's tests hold each scheme's kernels to
    // the CPU's bytes): one scheme of each kind of block, each CLI run costing a device and its
    // pipelines' compilation (seconds on a CPU Vulkan driver).
    let one_of_each = ["q8_0", "q4_k", "nf4", "fp8-128x128", "nvfp4", "f8e4m3"];
    let schemes: Vec<_> = bitbudget_math::quant::scheme::Scheme::ALL
        .into_iter()
        .filter(|s| one_of_each.contains(&s.name()))
        .collect();
    assert_eq!(schemes.len(), one_of_each.len(), "a scheme was renamed");
    for scheme in schemes {
        // 4032 values: 63 rows of 64 columns for fp8-128x128.
        let cols: &[&str] = match scheme.needs_columns() {
            true => &["--cols", "64"],
            false => &[],
        };
        let scheme = scheme.name();
        let on = |device| {
            let args = [
                &["quantize", "--device", device, "--scheme", scheme][..],
                cols,
                &["-", "-"],
            ];
            let out = bitbudget(&args.concat(), &input);
            assert!(
                out.status.success(),
                "{scheme} {device}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        let cpu = on("cpu");
        assert_eq!(on("gpu"), cpu, "{scheme}: quantize bytes differ");
        let back = |device| {
            bitbudget(
                &[
                    &["dequantize", "--device", device, "--scheme", scheme][..],
                    cols,
                    &["-", "-"],
                ]
                .concat(),
                &cpu,
            )
            .stdout
        };
        let (from_cpu, from_gpu) = (back("cpu"), back("gpu"));
        assert_eq!(from_gpu.len(), from_cpu.len(), "{scheme}");
        assert_same_f32s(&from_gpu, &from_cpu, scheme);
    }
    let dq = |device| {
        bitbudget(
            &[
                "quantize",
                "--device",
                device,
                "--scheme",
                "nf4",
                "--double-quant",
                "-",
                "-",
            ],
            &input,
        )
        .stdout
    };
    assert_eq!(dq("gpu"), dq("cpu"), "nf4 --double-quant bytes differ");
}

#[test]
fn device_gpu_without_an_adapter_exits_2_naming_what_was_tried() {
    // Metal is not compiled into the Linux build, so asking for it alone finds no adapter.
    let out = bitbudget_env(
        &["quantize", "--device", "gpu", "--scheme", "q8_0", "-", "-"],
        &[0; 128],
        &[("WGPU_BACKEND", "metal")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no GPU adapter") && err.contains("METAL"),
        "{err}"
    );
    fails_with(
        &["quantize", "--device", "tpu", "--scheme", "q8_0", "-", "-"],
        b"",
        "invalid value 'tpu'",
    );
}

/// The issue's two cases end to end. Llama 3 70B QLoRA on 2 × A100 80GB (dp 2, FlashAttention,
/// sequence 4096): recomputation fits on the same GPUs and on one, and neither QLoRA nor
/// FlashAttention, already on, is suggested. 70B inference: tensor parallel 2 fits. The text and
/// the JSON carry the same advice.
#[test]
fn memory_advice_tries_recomputation_and_tensor_parallel_and_never_what_is_on() {
    let qlora = [
        "memory",
        "--model",
        "llama-3-70b",
        "--mode",
        "qlora",
        "--gpu",
        "a100-80gb",
        "--dp",
        "2",
        "--flash-attention",
        "--seq",
        "4096",
    ];
    let out = bitbudget(&qlora, b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "On the same 2 GPUs: full recomputation (gradient checkpointing) makes it fit"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Fewest GPUs: 1 × NVIDIA A100 80GB with data parallel 1 and full recomputation"
        ),
        "{text}"
    );
    assert!(
        !text.contains("try LoRA") && !text.contains("FlashAttention and"),
        "{text}"
    );
    let v = json(&[&qlora[..], &["--json"]].concat());
    let same = &v["advice"]["same_gpus"];
    assert_eq!(same["changes"][0]["option"], "recompute");
    assert_eq!(same["changes"][0]["value"], "full");
    let total = same["total"].as_u64().unwrap();
    assert!(total <= v["gpu"]["capacity_bytes"].as_u64().unwrap());
    assert!((45e9..55e9).contains(&(total as f64)), "{total}");
}

/// `--config` sizes the model a Hugging Face config.json describes: Llama 3 8B's published
/// config gives its 8,030,261,248 parameters (the sum of the safetensors tensor sizes), from a
/// file and from stdin alike, and the other options still apply.
#[test]
fn memory_reads_a_hugging_face_config_from_a_file_or_stdin() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../validation/configs/llama-3-8b.json"
    );
    let from_file = json(&["memory", "--config", path, "--mode", "lora", "--json"]);
    assert_eq!(from_file["params"], 8_030_261_248u64);
    assert_eq!(from_file["model"], "config.json (llama)");
    assert_eq!(from_file["peak_phase"], "forward");
    let text = std::fs::read(path).unwrap();
    let out = bitbudget(
        &["memory", "--config", "-", "--mode", "lora", "--json"],
        &text,
    );
    assert!(out.status.success());
    let from_stdin: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(from_stdin, from_file);
}

#[test]
fn a_bad_config_exits_2_naming_the_missing_field() {
    fails_with(
        &["memory", "--config", "-"],
        br#"{"model_type": "llama", "hidden_size": 4096}"#,
        "is missing the field \"num_hidden_layers\"",
    );
    fails_with(
        &["memory", "--config", "-"],
        b"{not json",
        "config.json is not valid JSON",
    );
    fails_with(
        &["memory", "--config", "-"],
        br#"{"model_type": "bert"}"#,
        "unknown model_type \"bert\"",
    );
}

/// `memory --json` carries a `step` section computed by the step model: the FLOPs, the seconds and
/// tokens per second at the utilisation asked for, the bytes communicated by kind, and the bubble.
#[test]
fn memory_json_has_a_step_section_that_follows_the_step_knobs() {
    let base = [
        "memory",
        "--model",
        "llama-3-8b",
        "--dp",
        "8",
        "--zero",
        "3",
        "--gpu",
        "h100-80gb",
        "--json",
    ];
    let at40 = json(&base);
    let step = &at40["step"];
    let tokens = step["tokens_per_step"].as_f64().unwrap();
    assert_eq!(tokens, 8.0 * 2048.0);
    let flops = step["model_flops"].as_f64().unwrap();
    // Per token at least the 6N rule for 8.03B parameters (attention adds a little).
    assert!(flops / tokens > 6.0 * 8.0e9, "{flops}");
    let timing = &step["timing"];
    let dp = &timing["comm"][0];
    assert_eq!(dp["kind"], "data-parallel");
    assert!(dp["bytes"].as_f64().unwrap() > 0.0);
    assert_eq!(step["bubble_fraction"], 0.0);
    assert_eq!(at40["setup"]["utilisation"], "40");
    // Twice the utilisation halves the compute; four micro-batches do four times the work.
    let at80 = json(&[&base[..], &["--utilisation", "80", "--grad-accum", "4"]].concat());
    let compute = |v: &serde_json::Value| v["step"]["timing"]["compute_s"].as_f64().unwrap();
    let ratio = compute(&at80) / compute(&at40);
    assert!((ratio - 2.0).abs() < 1e-9, "{ratio}");
    assert_eq!(at80["step"]["micro_batches"], 4);
    assert_eq!(at80["setup"]["grad-accum"], "4");
    fails_with(
        &[&base[..], &["--utilisation", "0"]].concat(),
        b"",
        "--utilisation",
    );
}

#[test]
fn memory_text_report_has_a_step_line() {
    let out = bitbudget(&["memory", "--model", "gpt2", "--gpu", "h100-80gb"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.trim_start().starts_with("step:"));
    let line = line.unwrap_or_else(|| panic!("no step line in:\n{text}"));
    assert!(
        line.contains("per step") && line.contains("tokens/s"),
        "{line}"
    );
}

/// The report's metrics as `ErrorMetrics` (`"inf"`, `"-inf"` and `"nan"` are the JSON strings
/// of those values).
fn report_metrics(v: &serde_json::Value) -> bitbudget_math::quant::metrics::ErrorMetrics {
    let f = |key: &str| match &v[key] {
        serde_json::Value::String(s) => s.parse::<f64>().unwrap_or_else(|_| panic!("{key}: {s}")),
        n => n.as_f64().unwrap_or_else(|| panic!("{key}: {n}")),
    };
    let count = |key: &str| v[key].as_u64().unwrap_or_else(|| panic!("{key}")) as usize;
    bitbudget_math::quant::metrics::ErrorMetrics {
        mse: f("mse"),
        rmse: f("rmse"),
        max_abs_error: f("max_abs_error"),
        sqnr_db: f("sqnr_db"),
        cosine: f("cosine"),
        mean_error: f("mean_error"),
        skipped: count("skipped_non_finite_inputs"),
        lost: count("lost_to_non_finite_outputs"),
    }
}

#[test]
fn the_report_measured_on_the_gpu_is_the_cpus_within_the_stated_tolerance() {
    if !gpu_available() {
        return;
    }
    let input = gpu_test_input(8192);
    let schemes = [
        "q8_0",
        "q4_1",
        "mxfp4",
        "nf4",
        "zeropoint-int4",
        "f8e5m2",
        "bf16",
    ];
    for scheme in schemes {
        let report = |device: &str, extra: &[&str]| {
            let mut args = vec![
                "quantize", "--report", "--device", device, "--scheme", scheme,
            ];
            args.extend(extra);
            args.push("-");
            let out = bitbudget(&args, &input);
            assert!(
                out.status.success(),
                "{scheme} {device}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
        };
        let dq: &[&[&str]] = if scheme == "nf4" {
            &[&[], &["--double-quant"]]
        } else {
            &[&[]]
        };
        for extra in dq {
            let (cpu, gpu) = (report("cpu", extra), report("gpu", extra));
            for key in ["scheme", "block", "weights", "bytes", "bits_per_weight"] {
                assert_eq!(gpu[key], cpu[key], "{scheme} {extra:?}: {key}");
            }
            let (c, g) = (report_metrics(&cpu), report_metrics(&gpu));
            bitbudget_gpu::metrics_within_tolerance(&c, &g)
                .unwrap_or_else(|e| panic!("{scheme} {extra:?}: {e}"));
            assert!(
                c.skipped > 0,
                "{scheme}: the input has non-finite values to count"
            );
        }
    }
}

/// The text and the JSON say how the nearest measured setup compares with PyTorch, part by part,
/// as the Memory page's panel does; an FP8 recipe's notes are printed too.
#[test]
fn memory_reports_the_pytorch_check_by_part_and_the_recipes_notes() {
    let out = bitbudget(
        &[
            "memory",
            "--model",
            "llama-3-8b",
            "--precision",
            "mxfp8",
            "--gpu",
            "h100-80gb",
        ],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("checked against PyTorch")
            && text.contains("activations ")
            && text.contains("total "),
        "{text}"
    );
    assert!(
        text.contains("note: the mxfp8 recipe needs Blackwell"),
        "{text}"
    );
    let v = json(&["memory", "--model", "llama-3-8b", "--json"]);
    let parts = v["checked_against_pytorch"]["parts"].as_array().unwrap();
    assert_eq!(parts.last().unwrap()["part"], "total");
    assert!(parts.iter().all(|p| p["pytorch"].as_f64().is_some()));
}

/// `serve` takes the engines' parallel flags: data-parallel replicas and expert parallelism
/// (GPUs in all, replicas in the JSON), pipeline stages; impossible ones exit 2 with the reason.
#[test]
fn serve_splits_a_model_with_the_engines_parallel_flags() {
    let v = json(&[
        "serve",
        "--model",
        "qwen3-30b-a3b",
        "--tp",
        "2",
        "--data-parallel-size",
        "4",
        "--enable-expert-parallel",
        "--pp",
        "2",
        "--json",
    ]);
    assert_eq!(
        (v["gpus"].as_u64(), v["replicas"].as_u64()),
        (Some(16), Some(4))
    );
    assert!(v["verdict"]
        .as_str()
        .unwrap()
        .contains("on each of 4 replicas"));
    for (args, says) in [
        (
            vec!["--pp", "0"],
            "pipeline parallel (at most one stage per layer) must be at least 1",
        ),
        (
            vec!["--dp", "2", "--engine", "llama.cpp", "--dtype", "q4_k_m"],
            "data parallel is for vLLM",
        ),
        (
            vec!["--model", "llama-3.1-8b", "--enable-expert-parallel"],
            "needs routed experts",
        ),
    ] {
        let base = if args.contains(&"--model") {
            vec!["serve"]
        } else {
            vec!["serve", "--model", "qwen3-30b-a3b"]
        };
        let out = bitbudget(&[&base[..], &args[..]].concat(), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() == Some(2) && err.contains(says),
            "{args:?}: {err}"
        );
    }
}

/// `scaling` runs Transformer Engine's delayed scaling over a sequence against current scaling:
/// files in order (a tensor that quadruples saturates under the scale of the step before) or a
/// synthetic drift; bad recipes and sequences exit 2 with the reason.
#[test]
fn scaling_shows_what_delayed_scaling_saturates_and_flushes() {
    let dir = std::env::temp_dir().join(format!("bitbudget-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<String> = (0..3)
        .map(|t| {
            let k = 4f32.powi(t);
            let values: Vec<u8> = (0..256)
                .flat_map(|i| ((i as f32 - 128.0) / 32.0 * k).to_le_bytes())
                .collect();
            let path = dir.join(format!("step{t}.f32"));
            std::fs::write(&path, values).unwrap();
            path.to_str().unwrap().to_string()
        })
        .collect();
    let args: Vec<&str> = ["scaling"]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .chain(["--json"])
        .collect();
    let v = json(&args);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[0]["amax"], 4.0);
    assert_eq!(
        steps[1]["delayed"]["scale"], 112.0,
        "448 / the step before's amax 4"
    );
    assert!(steps[1]["delayed"]["saturated"].as_u64().unwrap() > 0);
    assert_eq!(steps[1]["current"]["saturated"], 0);
    let recent = json(&[
        "scaling",
        "--growth",
        "0.0625",
        "--amax-compute-algo",
        "most-recent",
        "--json",
    ]);
    let max = json(&["scaling", "--growth", "0.0625", "--json"]);
    let flushed = |v: &serde_json::Value| v["steps"][7]["delayed"]["flushed"].as_u64().unwrap();
    assert!(flushed(&max) > flushed(&recent));
    for (args, says) in [
        (vec!["scaling", "--format", "bf16"], "not an FP8 format"),
        (vec!["scaling", "--amax-history-len", "0"], "1 to 65536"),
        (vec!["scaling", "--growth", "NaN"], "--growth NaN must be"),
        (vec!["scaling", "--steps", "0"], "--steps takes 1 to 1000"),
        (
            vec!["scaling", "--steps", "1000", "--values", "16777216"],
            "at most 16777216 values in all",
        ),
        (
            vec![
                "scaling", "--growth", "2", "--steps", "200", "--values", "64",
            ],
            "leaves f32's range",
        ),
        (
            vec!["scaling", "--amax-compute-algo", "mean"],
            "max or most-recent",
        ),
    ] {
        let out = bitbudget(&args, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code() == Some(2) && err.contains(says),
            "{args:?}: {err}"
        );
    }
    std::fs::write(dir.join("odd.f32"), [0u8; 6]).unwrap();
    let out = bitbudget(&["scaling", dir.join("odd.f32").to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--rht` and `--sr` write the math crate's bytes, `dequantize` with the same seeds returns its
/// values (in the original basis), and `--report` names the seeds and the bias.
#[test]
fn rht_and_sr_write_the_math_crates_bytes_and_report_their_seeds() {
    use bitbudget_math::quant::fp4_options::{self, Fp4Options};
    let x: Vec<f32> = (0..256)
        .map(|i| ((i * 29 % 97) as f32 - 48.0) * 0.01)
        .collect();
    let input: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
    let opts = Fp4Options {
        rht: Some(7),
        sr: Some(3),
    };
    for name in ["nvfp4", "mxfp4"] {
        let scheme: Scheme = name.parse().unwrap();
        let seeds = ["--rht", "7", "--sr", "3"];
        let args = [&["quantize", "--scheme", name][..], &seeds, &["-", "-"]].concat();
        let out = bitbudget(&args, &input);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let want = fp4_options::quantize(scheme, &x, opts, 0).unwrap();
        assert_eq!(out.stdout, want, "{name}");
        let plain = bitbudget(&["quantize", "--scheme", name, "-", "-"], &input);
        assert_ne!(plain.stdout, want, "{name}: the options changed nothing");
        let args = [&["dequantize", "--scheme", name][..], &seeds, &["-", "-"]].concat();
        let back = bitbudget(&args, &out.stdout);
        assert!(
            back.status.success(),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
        let y = fp4_options::dequantize(scheme, &want, opts).unwrap();
        let want_f32: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(back.stdout, want_f32, "{name}");
        let args = [
            &["quantize", "--scheme", name, "--report"][..],
            &seeds,
            &["-"],
        ]
        .concat();
        let report = bitbudget(&args, &input);
        let r: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
        assert_eq!(
            (r["rht"].as_u64(), r["sr"].as_u64()),
            (Some(7), Some(3)),
            "{r}"
        );
        // serde_json reads a printed f64 back to within an ulp or so.
        let close = |key: &str, want: f64| {
            let got = r[key].as_f64().unwrap();
            assert!((got - want).abs() <= 1e-12 * want.abs(), "{key}: {r}");
        };
        close("mean_error", fp4_options::mean_error(&x, &y));
        close(
            "sqnr_db",
            bitbudget_math::quant::metrics::error_metrics(&x, &y).sqnr_db,
        );
    }
    let plain = bitbudget(&["quantize", "--scheme", "q8_0", "--report", "-"], &input);
    let r: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(r["rht"].is_null() && r["sr"].is_null(), "{r}");
}

/// `--device gpu` with `--rht` and `--sr` (each alone and both) writes the CPU's bytes and reads
/// back the CPU's values, and `--report` names the same seeds with the same metrics.
#[test]
fn rht_and_sr_on_the_gpu_write_the_cpu_bytes() {
    if !gpu_available() {
        return;
    }
    let input = gpu_test_input(4096 - 64);
    let options: [&[&str]; 3] = [
        &["--rht", "7"],
        &["--sr", "3"],
        &["--rht", "9", "--sr", "11"],
    ];
    for scheme in ["nvfp4", "mxfp4"] {
        for opts in options {
            let run = |verb, device, extra: &[&str], stdin: &[u8]| {
                let args = [
                    &[verb, "--device", device, "--scheme", scheme][..],
                    opts,
                    extra,
                ]
                .concat();
                let out = bitbudget(&args, stdin);
                assert!(
                    out.status.success(),
                    "{scheme} {opts:?} {device}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                out.stdout
            };
            let cpu = run("quantize", "cpu", &["-", "-"], &input);
            let plain = bitbudget(&["quantize", "--scheme", scheme, "-", "-"], &input).stdout;
            assert_ne!(cpu, plain, "{scheme} {opts:?}: the options changed nothing");
            assert_eq!(
                run("quantize", "gpu", &["-", "-"], &input),
                cpu,
                "{scheme} {opts:?}: quantize bytes differ"
            );
            let (from_cpu, from_gpu) = (
                run("dequantize", "cpu", &["-", "-"], &cpu),
                run("dequantize", "gpu", &["-", "-"], &cpu),
            );
            assert_eq!(from_gpu.len(), from_cpu.len(), "{scheme} {opts:?}");
            assert_same_f32s(&from_gpu, &from_cpu, &format!("{scheme} {opts:?}"));
            let report = |device| -> serde_json::Value {
                serde_json::from_slice(&run("quantize", device, &["--report", "-"], &input))
                    .unwrap()
            };
            let (r_cpu, r_gpu) = (report("cpu"), report("gpu"));
            for key in [
                "rht",
                "sr",
                "skipped_non_finite_inputs",
                "lost_to_non_finite_outputs",
            ] {
                assert_eq!(r_gpu[key], r_cpu[key], "{scheme} {opts:?} {key}");
            }
            for key in ["mse", "sqnr_db", "mean_error"] {
                let (g, c) = (r_gpu[key].as_f64().unwrap(), r_cpu[key].as_f64().unwrap());
                assert!(
                    (g - c).abs() <= 1e-5 * c.abs().max(1e-12),
                    "{scheme} {opts:?} {key}: GPU {g}, CPU {c}"
                );
            }
        }
    }
}

#[test]
fn rht_and_sr_refuse_other_schemes_and_bad_seeds() {
    let input = [0u8; 256 * 4];
    let q = |extra: &[&'static str]| {
        [&["quantize", "--scheme", "nvfp4"][..], extra, &["-", "-"]].concat()
    };
    fails_with(
        &["quantize", "--scheme", "q4_0", "--rht", "1", "-", "-"],
        &input,
        "--rht applies to nvfp4 and mxfp4 only, not q4_0",
    );
    fails_with(
        &["dequantize", "--scheme", "nf4", "--sr", "1", "-", "-"],
        &[],
        "--sr applies to nvfp4 and mxfp4 only, not nf4",
    );
    fails_with(&q(&["--sr", "-1"]), &input, "'-1' is negative");
    fails_with(&q(&["--rht", "1.5"]), &input, "'1.5' is not a whole number");
    fails_with(
        &q(&["--rht", "18446744073709551616"]),
        &input,
        "is above the largest seed 18446744073709551615",
    );
}
