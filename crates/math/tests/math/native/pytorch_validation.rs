//! bitbudget against PyTorch itself: every setup in validation/results.json (measured by
//! validation/harness.py with real Transformers models under fake tensors) is recomputed from its
//! config.json and compared part by part, through `memory::report::validation` (the same numbers the
//! Memory page's "checked against PyTorch" panel shows).
//!
//! What is compared: each part's largest size over the measured phases (weights, gradients,
//! optimizer states, activations + temporaries, KV cache) against bitbudget's line for it (for
//! activations, the largest over bitbudget's own phases, as PyTorch's are measured), and the
//! measured peak total (the largest phase) against bitbudget's total without overhead (fake tensors
//! see no CUDA context, caching allocator or fragmentation). bitbudget's total is its largest
//! phase too (forward, backward, optimizer step); the test prints both peak phases.
//!
//! Bounds: total within 10 %, each part within 15 %. Where today's model cannot meet a
//! bound, the pair is listed in KNOWN_GAPS with the reason; the test fails if a listed gap has
//! closed (so the list cannot go stale) and if any unlisted pair is out of bounds.

use bitbudget_math::memory::report::validation::{validation, PARTS, PART_BOUND, TOTAL_BOUND};
/// Parts smaller than this (bytes) in both estimate and measurement are not compared: a scalar
/// step counter or a last-token logit row is not a memory question.
const NEGLIGIBLE_BYTES: f64 = 16e6;

/// (substring of the setup name or "*", part, why the model misses the bound). Every other pair is
/// within bounds with the framework-faithful options (precision recipe, optimizer implementation,
/// attention kernel, per-layer checkpointing, adapter dtype and dropout as Transformers and peft
/// apply them).
const KNOWN_GAPS: &[(&str, &str, &str)] = &[
    // GPT-2 with SDPA: a CPU-only kernel choice (GPT-2 eager, with gelu_new's ops and the dropout
    // masks counted, is within 7 %).
    ("gpt2-autocast-fused-sdpa", "activations", "GPT-2 trains with attention dropout (attn_pdrop 0.1); PyTorch's CPU SDPA has no fused kernel with dropout and falls back to the math path (torch._fused_sdp_choice: FLASH_ATTENTION at dropout 0, MATH at 0.1), which stores the s×s scores, their softmax and a dropout mask per head. On a GPU, FlashAttention and the memory-efficient kernel regenerate the dropout mask from the RNG state and store none of them, which is what bitbudget counts"),
    ("gpt2-autocast-fused-sdpa", "total", "activation-dominated: see activations"),
    ("gpt2-bf16-foreach-sdpa", "activations", "as gpt2-autocast-fused-sdpa: the CPU SDPA math path with dropout stores s×s tensors a GPU kernel does not"),
    ("gpt2-bf16-foreach-sdpa", "total", "activation-dominated: see activations"),
    // Sliding window: bitbudget bounds the cache by the window (what Transformers' cache keeps
    // while decoding: checked below); the prefill's peak still holds the whole prompt.
    ("mistral-7b-infer", "kv_cache", "Transformers' DynamicSlidingWindowLayer.update (cache_utils.py) keeps `full_key_states[:, :, -sliding_window + 1:, :]`, a view, so each layer's whole 8k-token prompt stays allocated until its first decode step; from then on the cache holds the 4k window, as bitbudget says"),
    ("gemma-3-1b-infer", "kv_cache", "as mistral-7b-infer: each sliding layer's cache is a view of the whole 32k-token prompt until its first decode step; after the decode steps it holds the 512-token window, bitbudget's number (checked below)"),
    ("gemma-3-1b-infer", "total", "the prompt-long views of the sliding layers' cache (see kv_cache) are the whole difference"),
    ("gpt-oss-20b-infer", "kv_cache", "as mistral-7b-infer: the 12 sliding layers keep a view of the whole 8k-token prompt until their first decode step, then the 128-token window, bitbudget's number (checked below)"),
    // CPU kernels that a GPU does not run.
    ("deepseek-v2-lite-infer", "activations", "MLA's query/key heads are 192 wide and its value heads 128; PyTorch's CPU flash kernel needs equal head sizes, so CPU SDPA falls back to the math path, which upcasts q, k and v to FP32 and materialises the FP32 s×s scores and their softmax per head. On a GPU the memory-efficient kernel takes unequal value heads and stores no s×s tensor, which is what bitbudget counts"),
    ("deepseek-v2-lite-infer", "total", "activation-dominated: see activations"),
    ("llama-3.2-1b-qlora-all-dropout-4k", "activations", "peft's lora_dropout on the CPU: at::dropout uses the fused native_dropout (a one-byte boolean mask, what bitbudget counts) only on CUDA-like devices; the CPU path multiplies by a noise tensor of the input's dtype, FP32 for peft's adapters, 4 bytes per element instead of 1 (measured at the backward pass's peak: 109 FP32 `empty_like` masks, 5.27 GB, where a GPU keeps 1.32 GB of boolean masks: 3.95 GB of the 4.25 GB difference). The other dropout rows (fewer adapted layers, or checkpointed) are within the bound"),
    ("llama-3.2-1b-qlora-all-dropout-4k", "total", "activation-dominated: see activations (the CPU dropout masks)"),
    // Two moments of the backward pass within 1 % of each other.
    ("llama-3.2-1b-fp32-foreach-sdpa-ckpt", "activations", "both peaks are the optimizer step (total to the byte). The backward pass has two moments of almost the same size: its start (saved layer inputs, the FP32 log-softmax and its 8·v gradients: bitbudget's backward phase, 6.9 GB of activations) and its end (every FP32 gradient plus the tied embedding's two v×h FP32 partial gradients, 2.1 GB, 0.1 GB larger), which PyTorch's phase peak takes, with no activations left; the measured part is then the forward pass's 4.8 GB"),
];

/// bitbudget's KV cache against what Transformers' cache holds once decoding runs: with a sliding
/// window the window (not the prompt's transient view at the end of the prefill), without one
/// every token.
#[test]
fn the_kv_cache_matches_what_transformers_keeps_while_decoding() {
    let v = validation().expect("the committed results.json and configs are read");
    let mut checked = 0;
    for row in &v.rows {
        let (Some(after), Some(&(_, est, _))) = (
            row.measured_kv_after_decode,
            row.parts.iter().find(|(p, _, _)| *p == "kv_cache"),
        ) else {
            continue;
        };
        let err = est / after - 1.0;
        println!(
            "{:<44} kv after decode {:>8.3}G {:>+7.1}%",
            row.name,
            after / 1e9,
            err * 100.0
        );
        assert!(
            err.abs() <= PART_BOUND,
            "{}: {:+.1}%",
            row.name,
            err * 100.0
        );
        checked += 1;
    }
    assert!(
        v.rows
            .iter()
            .any(|r| r.name.contains("window") && r.measured_kv_after_decode.is_some()),
        "the sliding-window setup records its cache after decoding"
    );
    assert!(checked > 0);
}

fn gap_reason(name: &str, part: &str) -> Option<&'static str> {
    KNOWN_GAPS
        .iter()
        .find(|(pattern, p, _)| *p == part && matches(pattern, name))
        .map(|(_, _, why)| *why)
}

/// A gap's pattern is "*" (every setup) or a substring of the setup name.
fn matches(pattern: &str, name: &str) -> bool {
    pattern == "*" || name.contains(pattern)
}

#[test]
fn bitbudget_stays_within_the_bounds_against_pytorch_or_names_the_gap() {
    let v = validation().expect("the committed results.json and configs are read");
    assert!(
        v.rows.len() >= 20,
        "the harness measured {} setups",
        v.rows.len()
    );
    println!("PyTorch {} · Transformers {}", v.torch, v.transformers);
    println!(
        "{:<44} {:<11} {:>9} {:>9} {:>8}  note",
        "setup", "part", "bitbudget", "PyTorch", "error"
    );
    let mut failures = Vec::new();
    let mut out_of_bound = Vec::new();
    let mut within = 0;
    let mut compared = 0;
    for row in &v.rows {
        let name = row.name.as_str();
        assert_eq!(
            row.estimate.params, row.measured_params,
            "{name}: parameter count from config.json vs the built model"
        );
        for (part, est, got) in row.parts.iter().copied() {
            if est < NEGLIGIBLE_BYTES && got < NEGLIGIBLE_BYTES {
                continue;
            }
            compared += 1;
            let err = row.error(part).unwrap_or(f64::INFINITY);
            let bound = if part == "total" {
                TOTAL_BOUND
            } else {
                PART_BOUND
            };
            let ok = err.abs() <= bound;
            within += ok as u32;
            if !ok {
                out_of_bound.push((name, part));
            }
            let note = match (ok, gap_reason(name, part)) {
                (true, _) => String::new(),
                (false, Some(why)) => format!("known gap: {why}"),
                (false, None) => {
                    failures.push(format!("{name} {part}: {:+.1}%", err * 100.0));
                    format!("OUT OF BOUND (±{:.0}%)", bound * 100.0)
                }
            };
            println!(
                "{name:<44} {part:<11} {:>8.3}G {:>8.3}G {:>+7.1}%  {note}",
                est / 1e9,
                got / 1e9,
                err * 100.0
            );
        }
        println!(
            "{name:<44} peak phase: bitbudget {}, PyTorch {}",
            row.estimate.peak_phase.label(),
            row.measured_peak_phase
        );
    }
    assert_eq!(PARTS.len(), 6);
    println!("{within} of {compared} comparisons within bounds");
    assert!(
        failures.is_empty(),
        "out of bounds and not a known gap: {failures:#?}"
    );
    // A listed gap that no setup misses any more has closed: take it off the list.
    let closed: Vec<_> = KNOWN_GAPS
        .iter()
        .filter(|(pattern, part, _)| {
            !out_of_bound
                .iter()
                .any(|(name, p)| p == part && matches(pattern, name))
        })
        .collect();
    assert!(
        closed.is_empty(),
        "known gaps that no longer miss the bound: {closed:#?}"
    );
}
