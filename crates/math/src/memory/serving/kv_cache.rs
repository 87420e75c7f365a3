//! KV-cache size: 2 (K and V) × layers × KV heads × head dim × sequence × batch × bytes per element.
//! Multi-head latent attention caches its latent and rotary key instead of K and V; layers with a
//! sliding window keep at most `sliding_window` tokens.

use crate::memory::model::arch::ModelArch;

/// KV-cache bytes on one GPU: layers split over `pp`, KV heads over `tp` (replicated when tp
/// exceeds the KV heads, as Megatron and vLLM do; MLA's latent is replicated on every tp rank),
/// element size `kv_bits` (4 for INT4), rounded up to whole bytes. Sliding-window layers hold
/// min(seq, window) tokens; with pp > 1 and a window, the layer-tokens are split evenly (rounded up).
pub fn kv_cache_bytes(
    arch: &ModelArch,
    seq: u64,
    batch: u64,
    kv_bits: u64,
    tp: u64,
    pp: u64,
) -> u128 {
    let per_token_layer = match arch.mla {
        Some(_) => arch.kv_elements_per_token_layer() as u128,
        None => 2 * arch.kv_heads.div_ceil(tp) as u128 * arch.head_dim as u128,
    };
    let layer_tokens = if arch.sliding_window == 0 || arch.sliding_layers == 0 {
        arch.layers.div_ceil(pp) as u128 * seq as u128
    } else {
        let windowed = arch.sliding_layers.min(arch.layers) as u128;
        let global = arch.layers as u128 - windowed;
        (global * seq as u128 + windowed * seq.min(arch.sliding_window) as u128)
            .div_ceil(pp as u128)
    };
    let bits = per_token_layer * layer_tokens * batch as u128 * kv_bits as u128;
    bits.div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::find_model;

    /// Kwon et al. 2023 (vLLM, "Efficient Memory Management for Large Language Model Serving with
    /// PagedAttention"), section 3: OPT-13B needs 2 × 5120 × 40 × 2 B = 800 KB of KV cache per token.
    #[test]
    fn opt_13b_needs_800_kb_per_token() {
        let opt = find_model("opt-13b").unwrap().arch;
        assert_eq!(kv_cache_bytes(&opt, 1, 1, 16, 1, 1), 819_200);
        assert_eq!(kv_cache_bytes(&opt, 1, 1, 16, 1, 1), 800 * 1024);
    }

    #[test]
    fn gqa_shrinks_and_tensor_parallel_splits_kv() {
        let llama = find_model("llama-3-8b").unwrap().arch;
        // 2 × 32 layers × 8 KV heads × 128 × 2 B = 128 KiB per token.
        assert_eq!(kv_cache_bytes(&llama, 1, 1, 16, 1, 1), 131_072);
        assert_eq!(
            kv_cache_bytes(&llama, 8192, 1, 16, 8, 1),
            131_072 * 8192 / 8
        );
        // tp 16 > 8 KV heads: each GPU still holds one head.
        assert_eq!(kv_cache_bytes(&llama, 1, 1, 16, 16, 1), 131_072 / 8);
        assert_eq!(kv_cache_bytes(&llama, 1, 1, 4, 1, 1), 131_072 / 4);
    }

    #[test]
    fn a_sliding_window_caps_the_cached_tokens_of_its_layers() {
        let mut mistral = find_model("mistral-7b").unwrap().arch.clone();
        (mistral.sliding_window, mistral.sliding_layers) = (4096, 32);
        // 2 × 8 KV heads × 128 × 2 B = 4 KiB per token and layer; 32 layers × 4096 tokens.
        assert_eq!(
            kv_cache_bytes(&mistral, 4096, 1, 16, 1, 1),
            4096 * 32 * 4096
        );
        assert_eq!(
            kv_cache_bytes(&mistral, 32768, 1, 16, 1, 1),
            4096 * 32 * 4096
        );
        let half = ModelArch {
            sliding_layers: 16,
            ..mistral
        };
        assert_eq!(
            kv_cache_bytes(&half, 8192, 1, 16, 1, 1),
            4096 * (16 * 8192 + 16 * 4096)
        );
    }

    /// DeepSeek-V2 (Liu et al. 2024), Table 1: MLA caches (d_c + d_h^R) = 512 + 64 elements per
    /// token and layer, not 2 × heads × head dim.
    #[test]
    fn mla_caches_the_latent_and_the_rotary_key() {
        let v2 = ModelArch {
            layers: 60,
            hidden: 5120,
            heads: 128,
            kv_heads: 128,
            head_dim: 192,
            mla: Some(crate::memory::model::arch::Mla {
                q_lora_rank: 1536,
                kv_lora_rank: 512,
                qk_nope_head_dim: 128,
                qk_rope_head_dim: 64,
                v_head_dim: 128,
            }),
            ..ModelArch::DENSE_EXTRAS
        };
        assert_eq!(kv_cache_bytes(&v2, 1, 1, 16, 1, 1), 60 * 576 * 2);
        // The latent is not split by tensor parallelism.
        assert_eq!(kv_cache_bytes(&v2, 1, 1, 16, 8, 1), 60 * 576 * 2);
    }
}
