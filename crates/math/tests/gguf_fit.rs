//! "Will this GGUF fit?" on headers written for model presets: the facts read back, the KV cache
//! per token from the metadata, and partial offload.

use bitbudget_math::gguf::{parse, GgufWriter, TensorType};
use bitbudget_math::memory::report::gguf_fit::{gguf_report, preset_writer, GgufReport};
use bitbudget_math::memory::states::gguf_mix::weight_bytes;
use bitbudget_math::memory::states::gguf_tensors::GgufArch;
use bitbudget_math::memory::{find_model, Dtype, Job};

fn report_for(w: &GgufWriter, pairs: &[(&str, &str)]) -> GgufReport {
    let (header, len) = w.header();
    let g = parse(&header, Some(len)).unwrap();
    let mut job = Job::default();
    for (k, v) in pairs {
        job.apply(k, v).unwrap().unwrap();
    }
    gguf_report(&g, &job)
}

#[test]
fn llama_3_8b_q4_k_m_reads_back_its_weights_and_kv_cache() {
    let r = report_for(
        &preset_writer("llama-3-8b", Dtype::Q4KM).unwrap(),
        &[("seq", "8192"), ("gpu", "rtx-4090")],
    );
    let m = find_model("llama-3-8b").unwrap();
    assert_eq!(r.model.architecture, "llama");
    assert_eq!(r.model.blocks, 32);
    assert_eq!(r.model.tensors.len(), 291);
    assert_eq!(
        Some(r.model.weight_bytes),
        weight_bytes(&m.arch, GgufArch::Llama, Dtype::Q4KM)
    );
    // 32 blocks × 8 KV heads × (128 + 128) × 2 bytes (BF16 cache) = 128 KiB per token.
    assert_eq!(r.kv_bytes_per_token, 131_072);
    let fit = r.fit.unwrap();
    assert!(fit.fits && fit.gpu_layers == 32, "{fit:?}");
    assert_eq!(fit.kv_bytes, 8192 * 131_072);
    assert!(r
        .verdict
        .unwrap()
        .starts_with("Fits on one NVIDIA RTX 4090 24GB"));
    assert!(r.model.mix.starts_with("q4_K"), "{}", r.model.mix);
}

#[test]
fn llama_3_70b_q4_k_m_on_a_24_gb_card_offloads_part_of_its_blocks() {
    let r = report_for(
        &preset_writer("llama-3-70b", Dtype::Q4KM).unwrap(),
        &[("seq", "8192"), ("gpu", "rtx-4090")],
    );
    let fit = r.fit.unwrap();
    assert!(!fit.fits);
    assert!(
        fit.gpu_layers > 20 && fit.gpu_layers < 80,
        "{}",
        fit.gpu_layers
    );
    assert!(fit.on_gpu_bytes <= fit.gpu_bytes);
    // One more block would not fit: the blocks are about 0.5 GB each, plus 32 MiB of KV cache.
    assert!(fit.on_gpu_bytes + 500_000_000 > fit.gpu_bytes, "{fit:?}");
    assert_eq!(
        fit.on_gpu_bytes - 1_073_741_824 + fit.on_cpu_bytes,
        r.model.weight_bytes + fit.kv_bytes
    );
    let v = r.verdict.unwrap();
    assert!(
        v.contains(&format!(
            "{} of 80 blocks fit on the GPU (llama.cpp --n-gpu-layers {})",
            fit.gpu_layers, fit.gpu_layers
        )),
        "{v}"
    );
}

#[test]
fn per_block_kv_heads_mla_and_missing_metadata_are_read_as_llama_cpp_does() {
    let base = |arch: &str| {
        GgufWriter::new()
            .string("general.architecture", arch)
            .u32(&format!("{arch}.block_count"), 2)
            .tensor("blk.0.attn_q.weight", &[256, 256], TensorType::Q8_0)
            .tensor("blk.1.attn_q.weight", &[256, 256], TensorType::Q8_0)
    };
    // Head counts per block, lengths from embedding_length / head_count (64 / 4 = 16).
    let per_block = base("x")
        .u32("x.embedding_length", 64)
        .u32("x.attention.head_count", 4)
        .i32s("x.attention.head_count_kv", &[1, 3]);
    assert_eq!(
        report_for(&per_block, &[]).kv_bytes_per_token,
        (1 + 3) * (16 + 16) * 2
    );
    let mla = base("deepseek2")
        .u32("deepseek2.attention.kv_lora_rank", 512)
        .u32("deepseek2.rope.dimension_count", 64);
    assert_eq!(report_for(&mla, &[]).kv_bytes_per_token, 2 * (512 + 64) * 2);
    // An absurd block count (a corrupt header) is not looped over: the names give 2 blocks.
    let absurd = GgufWriter::new()
        .string("general.architecture", "y")
        .u64("y.block_count", 1 << 60)
        .tensor("blk.0.attn_q.weight", &[256, 256], TensorType::Q8_0)
        .tensor("blk.1.attn_q.weight", &[256, 256], TensorType::Q8_0);
    let r = report_for(&absurd, &[("gpu", "rtx-4090")]);
    assert_eq!(r.model.blocks, 2);
    assert_eq!(r.model.block_bytes, vec![256 * 8 * 34; 2]);
    assert!(
        r.notes[0].contains("above llama.cpp's limit of 512"),
        "{:?}",
        r.notes
    );
    let bare = report_for(&base("mystery"), &[("seq", "1e6")]);
    assert_eq!(bare.kv_bytes_per_token, 0);
    assert!(bare.notes[0].contains("no attention sizes for 'mystery'"));
    assert!(bare.fit.is_none() && bare.verdict.is_none());
}

#[test]
fn a_context_beyond_the_trained_one_gets_a_note() {
    let r = report_for(
        &preset_writer("llama-2-7b", Dtype::Q80).unwrap(),
        &[("seq", "16384")],
    );
    assert!(
        r.notes.iter().any(|n| n.contains("longer than the 4096")),
        "{:?}",
        r.notes
    );
}
