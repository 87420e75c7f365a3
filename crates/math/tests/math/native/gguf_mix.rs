//! llama.cpp file types sized tensor by tensor ([`gguf_mix`]): the per-tensor choices of
//! `llama_tensor_get_type` on four architectures (llama dense, llama MoE, qwen2, falcon), and
//! totals against published GGUF file sizes. A file is its tensors plus a header (metadata with
//! the tokenizer, a few megabytes), so a published size must lie between our total and our total
//! plus [`HEADER_MAX`], give or take the rounding of the published figure.

use bitbudget_math::gguf::TensorType;
use bitbudget_math::memory::states::gguf_mix::{typed_tensors, weight_bytes, TypedTensor};
use bitbudget_math::memory::states::gguf_tensors::GgufArch;
use bitbudget_math::memory::{find_model, Dtype};

/// The most a header with a 150k-token tokenizer takes (Llama 3's is 7,835,936 bytes below).
const HEADER_MAX: u64 = 10_000_000;

fn typed(id: &str, d: Dtype) -> Vec<TypedTensor> {
    let m = find_model(id).unwrap();
    typed_tensors(&m.arch, GgufArch::of_model(id), d).unwrap()
}

fn total(id: &str, d: Dtype) -> u64 {
    let m = find_model(id).unwrap();
    weight_bytes(&m.arch, GgufArch::of_model(id), d).unwrap()
}

/// The types of the tensors whose name contains `part`, in file order.
fn types_of(list: &[TypedTensor], part: &str) -> Vec<TensorType> {
    list.iter()
        .filter(|t| t.name.contains(part))
        .map(|t| t.ty)
        .collect()
}

/// The type of the tensor named exactly `name`.
fn type_of(list: &[TypedTensor], name: &str) -> Option<TensorType> {
    list.iter().find(|t| t.name == name).map(|t| t.ty)
}

fn count(types: &[TensorType], ty: TensorType) -> usize {
    types.iter().filter(|t| **t == ty).count()
}

/// Checks `published` (in GB of 10^9 bytes, rounded to `decimals`) against our total for each
/// (file type, size) pair.
fn matches_published(id: &str, decimals: i32, sizes: &[(Dtype, f64)]) {
    let half_unit = 0.5 * 10f64.powi(-decimals) * 1e9;
    for (d, gb) in sizes {
        let ours = total(id, *d) as f64;
        let published = gb * 1e9;
        assert!(
            ours <= published + half_unit && ours + HEADER_MAX as f64 >= published - half_unit,
            "{id} {d}: ours {ours} bytes, published {gb} GB"
        );
    }
}

#[test]
fn llama_3_8b_q4_k_m_gives_half_of_attention_v_and_ffn_down_q6_k() {
    let t = typed("llama-3-8b", Dtype::Q4KM);
    let v = types_of(&t, "attn_v.weight");
    let down = types_of(&t, "ffn_down.weight");
    assert_eq!(
        (count(&v, TensorType::Q6_K), count(&v, TensorType::Q4_K)),
        (16, 16)
    );
    assert_eq!(
        (
            count(&down, TensorType::Q6_K),
            count(&down, TensorType::Q4_K)
        ),
        (16, 16)
    );
    // use_more_bits: blocks 0-3, 28-31 and every third between (6, 9, ..., 27).
    assert_eq!(v[5], TensorType::Q4_K);
    assert_eq!(v[6], TensorType::Q6_K);
    assert_eq!(type_of(&t, "output.weight"), Some(TensorType::Q6_K));
    assert_eq!(types_of(&t, "token_embd"), vec![TensorType::Q4_K]);
    assert!(types_of(&t, "norm").iter().all(|t| *t == TensorType::F32));
    assert_eq!(count(&types_of(&t, "attn_q.weight"), TensorType::Q4_K), 32);
}

#[test]
fn llama_3_8b_matches_file_sizes_to_the_byte_up_to_one_header() {
    // Exact sizes of Meta-Llama-3-8B-Instruct GGUFs quantized from BF16 by llama.cpp (June 2024),
    // `ls -l` in https://huggingface.co/ddh0/UnquantizedEmbeddingTesting/blob/main/sizes.txt.
    let published = [
        (Dtype::Q2K, 3_179_131_168u64),
        (Dtype::Q3KS, 3_664_498_976),
        (Dtype::Q3KM, 4_018_917_664),
        (Dtype::Q3KL, 4_321_956_128),
    ];
    let headers: Vec<u64> = published
        .iter()
        .map(|(d, bytes)| bytes - total("llama-3-8b", *d))
        .collect();
    // Every file has the same metadata, so the same header: our tensor bytes are exact.
    assert!(headers.iter().all(|h| *h == headers[0]), "{headers:?}");
    assert_eq!(headers[0], 7_835_936);
}

#[test]
fn llama_3_1_8b_matches_its_published_sizes() {
    // second-state/Meta-Llama-3.1-8B-GGUF model card (llama.cpp b3613), sizes in GB; Llama 3.1
    // 8B has Llama 3 8B's shapes (plus a 256-byte rope_freqs tensor).
    matches_published(
        "llama-3-8b",
        2,
        &[
            (Dtype::Q40, 4.66),
            (Dtype::Q4KS, 4.69),
            (Dtype::Q4KM, 4.92),
            (Dtype::Q50, 5.60),
            (Dtype::Q5KS, 5.60),
            (Dtype::Q5KM, 5.73),
            (Dtype::Q6K, 6.60),
            (Dtype::Q80, 8.54),
        ],
    );
}

#[test]
fn mixtral_keeps_attention_k_and_v_in_q8_0_and_its_router_in_f32() {
    let t = typed("mixtral-8x7b", Dtype::Q4KM);
    assert!(types_of(&t, "attn_v.weight")
        .iter()
        .all(|t| *t == TensorType::Q8_0));
    assert!(types_of(&t, "attn_k.weight")
        .iter()
        .all(|t| *t == TensorType::Q8_0));
    assert!(types_of(&t, "attn_output")
        .iter()
        .all(|t| *t == TensorType::Q5_K));
    assert!(types_of(&t, "ffn_gate_inp")
        .iter()
        .all(|t| *t == TensorType::F32));
    assert_eq!(count(&types_of(&t, "ffn_down_exps"), TensorType::Q6_K), 16);
    // mradermacher/Mixtral-8x7B-v0.1-GGUF file list (GB, three significant figures), and
    // MaziyarPanahi/Mixtral-8x7B-v0.1-GGUF for Q6_K and Q8_0.
    matches_published(
        "mixtral-8x7b",
        1,
        &[
            (Dtype::Q2K, 17.3),
            (Dtype::Q3KS, 20.4),
            (Dtype::Q3KM, 22.5),
            (Dtype::Q3KL, 24.2),
            (Dtype::Q4KS, 26.7),
            (Dtype::Q4KM, 28.4),
            (Dtype::Q5KS, 32.2),
            (Dtype::Q5KM, 33.2),
            (Dtype::Q6K, 38.4),
            (Dtype::Q80, 49.6),
        ],
    );
}

#[test]
fn qwen2_7b_matches_its_published_sizes() {
    // RichardErkhov/Qwen_-_Qwen2-7B-Instruct-gguf file list (GB); Qwen2-7B has Qwen2.5-7B's
    // shapes (28 blocks, hidden 3584, 28/4 heads, FFN 18944, vocabulary 152064, untied).
    matches_published(
        "qwen2.5-7b",
        2,
        &[
            (Dtype::Q2K, 3.02),
            (Dtype::Q3KS, 3.49),
            (Dtype::Q3KM, 3.81),
            (Dtype::Q3KL, 4.09),
            (Dtype::Q40, 4.43),
            (Dtype::Q41, 4.87),
            (Dtype::Q4KS, 4.46),
            (Dtype::Q4KM, 4.68),
            (Dtype::Q50, 5.32),
            (Dtype::Iq4Nl, 4.46),
            (Dtype::Iq4Xs, 4.25),
        ],
    );
}

#[test]
fn qwen2_5_72b_ffn_down_rows_fall_back_to_32_value_blocks() {
    // 29568 is not a multiple of 256: Q4_K falls back to Q5_0 and Q6_K to Q8_0.
    let t = typed("qwen2.5-72b", Dtype::Q4KM);
    let down = types_of(&t, "ffn_down.weight");
    assert_eq!(
        count(&down, TensorType::Q5_0) + count(&down, TensorType::Q8_0),
        80
    );
    assert!(count(&down, TensorType::Q8_0) > 0);
    // An 80-block qwen2 is llama.cpp's "70B": attention V is never below Q5_K.
    let v = types_of(&typed("qwen2.5-72b", Dtype::Q4KS), "attn_v.weight");
    assert!(v.iter().all(|t| *t == TensorType::Q5_K), "{v:?}");
}

#[test]
fn llama_3_70b_lifts_attention_v_and_falcon_keeps_its_head_in_q8_0() {
    let v = types_of(&typed("llama-3-70b", Dtype::Q3KS), "attn_v.weight");
    assert!(v.iter().all(|t| *t == TensorType::Q5_K));
    let f = typed("falcon-40b", Dtype::Q4KM);
    // Falcon-40B ties its head to the embedding: the tied matrix takes the head's type.
    assert_eq!(type_of(&f, "output.weight"), None);
    assert_eq!(type_of(&f, "token_embd.weight"), Some(TensorType::Q8_0));
    assert_eq!(
        type_of(&typed("llama-3-8b", Dtype::Q4KM), "token_embd.weight"),
        Some(TensorType::Q4_K)
    );
    // Falcon's Q4_K_M FFN down: Q6_K in the first sixteenth, then Q5_K or Q4_K.
    let down = types_of(&f, "ffn_down.weight");
    assert_eq!(
        &down[..3],
        &[TensorType::Q6_K, TensorType::Q6_K, TensorType::Q6_K]
    );
    assert!(down.contains(&TensorType::Q5_K) && down.contains(&TensorType::Q4_K));
}

#[test]
fn plain_dtypes_are_not_file_types() {
    let m = find_model("llama-3-8b").unwrap();
    assert_eq!(weight_bytes(&m.arch, GgufArch::Llama, Dtype::Bf16), None);
    assert_eq!(Dtype::Q4KM.bits(), 5);
    assert_eq!(Dtype::Q80.bits(), 9);
    assert!(Dtype::Q6K.is_gguf() && !Dtype::Int4.is_gguf());
}

#[test]
fn a_file_type_dtype_sizes_serving_weights_tensor_by_tensor() {
    use bitbudget_math::memory::{estimate, Job};
    let job = Job::from_pairs([
        ("model", "llama-3-8b"),
        ("mode", "inference"),
        ("dtype", "q4_k_m"),
    ])
    .unwrap();
    let b = estimate(&job.to_setup()).unwrap();
    assert_eq!(b.weights.bytes, total("llama-3-8b", Dtype::Q4KM));
    assert!(
        b.weights.formula.contains("llama.cpp q4_k_m: 291 tensors"),
        "{}",
        b.weights.formula
    );
    // Two-way tensor parallelism halves them (rounded up).
    let tp = Job::from_pairs([
        ("model", "llama-3-8b"),
        ("mode", "inference"),
        ("dtype", "q8_0"),
        ("tp", "2"),
    ])
    .unwrap();
    assert_eq!(
        estimate(&tp.to_setup()).unwrap().weights.bytes,
        total("llama-3-8b", Dtype::Q80).div_ceil(2)
    );
    // A bare parameter count: the main type's bytes per weight.
    let params =
        Job::from_pairs([("params", "8e9"), ("mode", "inference"), ("dtype", "q8_0")]).unwrap();
    assert_eq!(
        estimate(&params.to_setup()).unwrap().weights.bytes,
        8_000_000_000 / 32 * 34
    );
}

#[test]
fn training_with_a_file_type_is_refused_in_words() {
    use bitbudget_math::memory::job::dtype_refused;
    use bitbudget_math::memory::{estimate, Job, Mode};
    let job = Job::from_pairs([
        ("model", "llama-3-8b"),
        ("mode", "train"),
        ("dtype", "q4_k_m"),
    ])
    .unwrap();
    let err = estimate(&job.to_setup()).unwrap_err().to_string();
    assert!(
        err.contains("q4_k_m is a llama.cpp file type for serving"),
        "{err}"
    );
    assert!(dtype_refused(Mode::Lora, Dtype::Q6K).is_some());
    assert_eq!(dtype_refused(Mode::Inference, Dtype::Q6K), None);
    let mut settled = job.clone();
    let said = settled.settle().unwrap();
    assert!(said.contains("q4_k_m is a llama.cpp file type"), "{said}");
    assert_eq!(settled.dtype, Dtype::Bf16);
    // The KV cache takes plain number types only.
    assert!(Job::from_pairs([("model", "llama-3-8b"), ("kv-dtype", "q4_k_m")]).is_err());
}
