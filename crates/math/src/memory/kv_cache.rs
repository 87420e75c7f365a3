//! KV-cache size: 2 (K and V) × layers × KV heads × head dim × sequence × batch × bytes per element.

use super::arch::ModelArch;

/// KV-cache bytes on one GPU: layers split over `pp`, KV heads over `tp` (replicated when tp
/// exceeds the KV heads, as Megatron and vLLM do), element size `kv_bits` (4 for INT4), rounded up
/// to whole bytes.
pub fn kv_cache_bytes(
    arch: &ModelArch,
    seq: u64,
    batch: u64,
    kv_bits: u64,
    tp: u64,
    pp: u64,
) -> u128 {
    let layers = arch.layers.div_ceil(pp) as u128;
    let kv_heads = arch.kv_heads.div_ceil(tp) as u128;
    let bits = 2
        * layers
        * kv_heads
        * arch.head_dim as u128
        * seq as u128
        * batch as u128
        * kv_bits as u128;
    bits.div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::models::find_model;

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
}
