//! Hugging Face config.json → architecture: exact parameter counts of published checkpoints, typed
//! errors that name the field, and no panic on random or truncated input.
//!
//! The fixtures in tests/fixtures/hf_configs/ are copies of each model's published config.json
//! (fields that do not affect shapes kept as published where practical).

use bitbudget_math::memory::model::hf_config::{parse_config, ConfigError};
use bitbudget_math::memory::{find_model, ModelArch};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/hf_configs/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn arch(name: &str) -> ModelArch {
    parse_config(&fixture(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .arch
}

/// Exact parameter counts: the sum of the tensor sizes in each published checkpoint (the
/// Hugging Face API's `safetensors.total`, or `metadata.total_size` of the index over the dtype
/// size), except Falcon-7B (see its line).
#[test]
fn parameter_counts_equal_the_published_checkpoints() {
    let expected: &[(&str, u64, &str)] = &[
        // openai-community/gpt2: model.safetensors holds 124,439,808 parameters (tied head).
        ("gpt2", 124_439_808, "gpt2 model.safetensors"),
        // facebook/opt-125m: 125,239,296 parameters (tied head; 2,050 position rows).
        ("opt-125m", 125_239_296, "facebook/opt-125m checkpoint"),
        // EleutherAI/pythia-160m: 162,322,944 parameters (untied embed_in / embed_out).
        (
            "pythia-160m",
            162_322_944,
            "EleutherAI/pythia-160m model.safetensors",
        ),
        // Qwen/Qwen2.5-0.5B: model.safetensors 494,032,768 parameters (BF16, 988,065,536 bytes).
        (
            "qwen2.5-0.5b",
            494_032_768,
            "Qwen/Qwen2.5-0.5B model.safetensors",
        ),
        // Qwen/Qwen3-0.6B: 596,049,920 parameters (q_norm/k_norm per layer, tied head).
        (
            "qwen3-0.6b",
            596_049_920,
            "Qwen/Qwen3-0.6B model.safetensors",
        ),
        // meta-llama/Llama-3.2-1B: model.safetensors 1,235,814,400 parameters (tied head).
        (
            "llama-3.2-1b",
            1_235_814_400,
            "meta-llama/Llama-3.2-1B model.safetensors",
        ),
        // google/gemma-2b: index total_size 5,012,344,832 B / 2 (BF16) = 2,506,172,416 (tied head).
        (
            "gemma-2b",
            2_506_172_416,
            "google/gemma-2b model.safetensors.index.json",
        ),
        // google/gemma-2-2b: 2,614,341,888 parameters (4 norms per block, tied head).
        (
            "gemma-2-2b",
            2_614_341_888,
            "google/gemma-2-2b model.safetensors.index.json",
        ),
        // google/gemma-3-1b-pt: 999,885,952 parameters.
        (
            "gemma-3-1b",
            999_885_952,
            "google/gemma-3-1b-pt model.safetensors",
        ),
        // microsoft/Phi-3-mini-4k-instruct: index total_size 7,642,159,104 B / 2 = 3,821,079,552.
        (
            "phi-3-mini-4k",
            3_821_079_552,
            "microsoft/Phi-3-mini-4k-instruct index",
        ),
        // tiiuae/falcon-7b: 6,921,720,704 = Transformers' num_parameters() with the head tied to
        // the embedding (multi-query, one LayerNorm per block); no published exact figure found.
        (
            "falcon-7b",
            6_921_720_704,
            "FalconForCausalLM num_parameters()",
        ),
        // mistralai/Mistral-7B-v0.1: index total_size 14,483,464,192 B / 2 = 7,241,732,096.
        (
            "mistral-7b",
            7_241_732_096,
            "mistralai/Mistral-7B-v0.1 index",
        ),
        // meta-llama/Meta-Llama-3-8B: index total_size 16,060,522,496 B / 2 = 8,030,261,248.
        (
            "llama-3-8b",
            8_030_261_248,
            "meta-llama/Meta-Llama-3-8B index",
        ),
        // deepseek-ai/DeepSeek-V2-Lite: index total_size 31,412,968,448 B / 2 = 15,706,484,224.
        (
            "deepseek-v2-lite",
            15_706_484_224,
            "deepseek-ai/DeepSeek-V2-Lite index",
        ),
        // mistralai/Mixtral-8x7B-v0.1: index total_size 93,405,585,408 B / 2 = 46,702,792,704.
        (
            "mixtral-8x7b",
            46_702_792_704,
            "mistralai/Mixtral-8x7B-v0.1 index",
        ),
        // meta-llama/Meta-Llama-3-70B: index total_size 141,107,412,992 B / 2 = 70,553,706,496.
        (
            "llama-3-70b",
            70_553_706_496,
            "meta-llama/Meta-Llama-3-70B index",
        ),
        // openai/gpt-oss-20b: the model card's 20,914,757,184 (experts, biases and sinks).
        (
            "gpt-oss-20b",
            20_914_757_184,
            "openai/gpt-oss-20b model card",
        ),
    ];
    for (name, params, source) in expected {
        assert_eq!(arch(name).params(), *params, "{name} ({source})");
    }
}

/// DeepSeek-V3 technical report (Liu et al. 2024), abstract: 671B total parameters, 37B activated
/// per token. The published checkpoint's 685B adds the 14B multi-token-prediction module, which
/// Transformers does not build; the report rounds, so the tolerance is half a billion.
#[test]
fn deepseek_v3_has_671b_parameters_and_37b_active() {
    let a = arch("deepseek-v3");
    let total = a.params() as f64 / 1e9;
    let active = a.active_params() as f64 / 1e9;
    assert!((total - 671.0).abs() < 0.5, "{total}");
    assert!((active - 37.0).abs() < 0.6, "{active}");
}

#[test]
fn configs_and_presets_agree_on_the_shared_models() {
    for (fixture_name, preset) in [
        ("gpt2", "gpt2"),
        ("llama-3-8b", "llama-3-8b"),
        ("llama-3-70b", "llama-3-70b"),
        ("mixtral-8x7b", "mixtral-8x7b"),
        ("gpt-oss-20b", "gpt-oss-20b"),
    ] {
        let p = find_model(preset).unwrap().arch;
        assert_eq!(arch(fixture_name).params(), p.params(), "{fixture_name}");
        let training_ops = |a: &ModelArch| (a.gelu_ops, a.attention_dropout, a.residual_dropout);
        assert_eq!(
            training_ops(&arch(fixture_name)),
            training_ops(&p),
            "{fixture_name}"
        );
        assert_eq!(
            arch(fixture_name).active_params(),
            p.active_params(),
            "{fixture_name}"
        );
    }
}

/// GPT-2's `gelu_new` and 0.1 dropouts are read from its config; OPT-125m's `dropout` 0.1 applies
/// to the residual branch and its `attention_dropout` is 0; Llama has neither.
#[test]
fn gelu_ops_and_dropouts_are_read_from_the_config() {
    let flags = |name: &str| {
        let a = arch(name);
        (a.gelu_ops, a.attention_dropout, a.residual_dropout)
    };
    assert_eq!(flags("gpt2"), (true, true, true));
    assert_eq!(flags("opt-125m"), (false, false, true));
    assert_eq!(flags("llama-3-8b"), (false, false, false));
}

#[test]
fn sliding_windows_follow_each_familys_layer_rule() {
    let mistral = arch("mistral-7b");
    assert_eq!((mistral.sliding_window, mistral.sliding_layers), (4096, 32));
    let gemma2 = arch("gemma-2-2b");
    assert_eq!((gemma2.sliding_window, gemma2.sliding_layers), (4096, 13));
    // Gemma 3: five local layers for every global one; 26 layers → 22 local.
    let gemma3 = arch("gemma-3-1b");
    assert_eq!((gemma3.sliding_window, gemma3.sliding_layers), (512, 22));
    // Qwen2.5 ships a window but use_sliding_window false; Mixtral's window is null.
    assert_eq!(arch("qwen2.5-0.5b").sliding_layers, 0);
    assert_eq!(arch("mixtral-8x7b").sliding_window, 0);
}

/// gpt-oss-20b's config.json (tests/fixtures/hf_configs/gpt-oss-20b.json, written from the
/// transcript in docs/research/presets.md with its 24 `layer_types` spelled out) reads as the
/// preset; with the 120b's 36 layers and 128 experts it reads as that preset. Without
/// `layer_types` the even-numbered layers slide, as GptOssConfig's default; the sinks, which no
/// config field names, are said in a note.
#[test]
fn gpt_oss_reads_as_its_presets() {
    let text = fixture("gpt-oss-20b");
    let m = parse_config(&text).unwrap();
    assert_eq!(m.model_type, "gpt_oss");
    assert_eq!(m.arch, find_model("gpt-oss-20b").unwrap().arch);
    assert_eq!((m.arch.sliding_window, m.arch.sliding_layers), (128, 12));
    assert!(m.notes.iter().any(|n| n.contains("sinks")), "{:?}", m.notes);
    assert!(
        m.notes.iter().any(|n| n.contains("12 of 24 layers")),
        "{:?}",
        m.notes
    );

    let alternating = |layers: usize| {
        let types: Vec<&str> = (0..layers)
            .map(|i| {
                if i % 2 == 0 {
                    "\"sliding_attention\""
                } else {
                    "\"full_attention\""
                }
            })
            .collect();
        format!("\"layer_types\": [{}],", types.join(", "))
    };
    let layer_types = text
        .lines()
        .find(|l| l.contains("\"layer_types\""))
        .unwrap()
        .trim();
    assert_eq!(layer_types, alternating(24));
    let big = text
        .replace(layer_types, &alternating(36))
        .replace("\"num_hidden_layers\": 24", "\"num_hidden_layers\": 36")
        .replace("\"num_local_experts\": 32", "\"num_local_experts\": 128");
    assert_eq!(
        parse_config(&big).unwrap().arch,
        find_model("gpt-oss-120b").unwrap().arch
    );

    // No layer_types (and no experts_per_token): the same architecture, with the rule noted.
    let bare = text
        .replace(layer_types, "")
        .replace("\"experts_per_token\": 4,", "");
    let m = parse_config(&bare).unwrap();
    assert_eq!(m.arch, find_model("gpt-oss-20b").unwrap().arch);
    assert!(
        m.notes.iter().any(|n| n.contains("even-numbered")),
        "{:?}",
        m.notes
    );

    let missing = text.replace("\"num_local_experts\": 32,", "");
    let msg = parse_config(&missing).unwrap_err().to_string();
    assert!(msg.contains("num_local_experts"), "{msg}");
}

#[test]
fn deepseek_reads_mla_shared_experts_and_dense_layers() {
    let a = arch("deepseek-v2-lite");
    let m = a.mla.expect("MLA");
    assert_eq!((m.q_lora_rank, m.kv_lora_rank), (0, 512));
    assert_eq!((a.experts, a.active_experts, a.shared_experts), (64, 6, 2));
    assert_eq!((a.dense_layers, a.dense_ffn, a.ffn), (1, 10944, 1408));
    assert_eq!(a.kv_elements_per_token_layer(), 512 + 64);
}

#[test]
fn a_missing_field_is_named_in_the_error() {
    let text = fixture("llama-3-8b").replace("\"hidden_size\": 4096,", "");
    let err = parse_config(&text).unwrap_err();
    assert_eq!(
        err,
        ConfigError::MissingField {
            model_type: "llama".into(),
            field: "hidden_size".into()
        }
    );
    assert!(err.to_string().contains("\"hidden_size\""), "{err}");
    let text = fixture("deepseek-v3").replace("\"kv_lora_rank\": 512,", "");
    assert!(parse_config(&text)
        .unwrap_err()
        .to_string()
        .contains("kv_lora_rank"));
}

#[test]
fn an_unknown_model_type_names_itself_and_the_supported_ones() {
    let text = fixture("llama-3-8b").replace("\"llama\"", "\"mamba\"");
    let msg = parse_config(&text).unwrap_err().to_string();
    assert!(
        msg.contains("\"mamba\"") && msg.contains("deepseek_v3"),
        "{msg}"
    );
    let msg = parse_config("{\"hidden_size\": 1}")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("model_type"), "{msg}");
}

#[test]
fn malformed_values_are_rejected_with_the_field_name() {
    for (from, to, field) in [
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": -1",
            "hidden_size",
        ),
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": \"big\"",
            "hidden_size",
        ),
        (
            "\"hidden_size\": 4096",
            "\"hidden_size\": 1e300",
            "hidden_size",
        ),
        ("\"hidden_size\": 4096", "\"hidden_size\": 0", "hidden_size"),
        (
            "\"num_key_value_heads\": 8",
            "\"num_key_value_heads\": 7",
            "num_key_value_heads",
        ),
        (
            "\"tie_word_embeddings\": false",
            "\"tie_word_embeddings\": 3",
            "tie_word_embeddings",
        ),
        (
            "\"num_hidden_layers\": 32",
            "\"num_hidden_layers\": 4000000000",
            "num_hidden_layers",
        ),
    ] {
        let text = fixture("llama-3-8b").replace(from, to);
        assert_ne!(text, fixture("llama-3-8b"), "{from}");
        let msg = parse_config(&text).unwrap_err().to_string();
        assert!(msg.contains(field), "{to}: {msg}");
    }
    let msg = parse_config("[1, 2]").unwrap_err().to_string();
    assert!(msg.contains("object"), "{msg}");
    let msg = parse_config("{\"model_type\": \"llama\",")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("line 1"), "{msg}");
}

/// A fixed-seed xorshift, so the fuzz cases are the same every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Truncations at every byte, random byte edits and random values in every numeric field: each
/// parse returns (Ok, or an error with a message) and never panics, and every Ok has a countable
/// architecture.
#[test]
fn random_and_truncated_configs_never_panic() {
    let names = [
        "gpt2",
        "opt-125m",
        "pythia-160m",
        "falcon-7b",
        "gemma-3-1b",
        "deepseek-v3",
        "mixtral-8x7b",
        "gpt-oss-20b",
    ];
    let values = [
        "0",
        "1",
        "-3",
        "2.5",
        "1e19",
        "18446744073709551615",
        "null",
        "true",
        "\"x\"",
        "[]",
        "{}",
        "4294967295",
        "65536",
    ];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut oks = 0;
    for name in names {
        let text = fixture(name);
        for cut in 0..text.len() {
            if text.is_char_boundary(cut) {
                check(&text[..cut], &mut oks);
            }
        }
        let bytes = text.as_bytes();
        for _ in 0..300 {
            let mut edited = bytes.to_vec();
            for _ in 0..1 + rng.next() % 4 {
                let at = (rng.next() % edited.len() as u64) as usize;
                let alphabet = b" {}[]\":,0123456789-.eE";
                edited[at] = alphabet[(rng.next() % alphabet.len() as u64) as usize];
            }
            check(&String::from_utf8_lossy(&edited), &mut oks);
        }
        // Replace one numeric field's value at a time.
        let fields: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(':'))
            .filter(|l| {
                let v = l
                    .split(':')
                    .nth(1)
                    .unwrap_or("")
                    .trim()
                    .trim_end_matches(',');
                v.parse::<f64>().is_ok()
            })
            .collect();
        for line in fields {
            let key = line.split(':').next().unwrap();
            let comma = if line.trim_end().ends_with(',') {
                ","
            } else {
                ""
            };
            for v in values {
                let replaced = text.replace(line, &format!("{key}: {v}{comma}"));
                check(&replaced, &mut oks);
            }
        }
    }
    assert!(
        oks > 50,
        "too few valid variants ({oks}) to have exercised the counts"
    );
}

fn check(text: &str, oks: &mut u32) {
    match parse_config(text) {
        Ok(m) => {
            *oks += 1;
            let _ = m.arch.params();
            let _ = m.arch.active_params();
            let _ = m.arch.block_linear_params();
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Every published config is a valid setup: the validation's size checks (which keep the
/// parameter arithmetic from overflowing) never refuse a real model.
#[test]
fn every_published_config_sizes_without_error() {
    use bitbudget_math::memory::{estimate, ModelSpec, Setup};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/hf_configs");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(name) = name.strip_suffix(".json") else {
            continue;
        };
        let setup = Setup::new(ModelSpec::Arch {
            name: name.into(),
            arch: Box::new(arch(name)),
        });
        assert!(
            estimate(&setup).is_ok(),
            "{name}: {:?}",
            estimate(&setup).err()
        );
        seen += 1;
    }
    assert!(seen >= 16, "{seen} configs");
}
