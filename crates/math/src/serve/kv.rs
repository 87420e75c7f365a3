//! The KV cache as the engines allocate it: bytes per token on one GPU (GQA heads split over
//! tensor parallelism and replicated when fewer than its degree, MLA's latent on every GPU,
//! sliding-window layers holding only their window), its element type, and blocks.

use crate::memory::model::arch::ModelArch;
use crate::memory::serving::kv_cache::KvCache;
use crate::named::named_enum;

named_enum! {
    /// The KV cache's element type (`--kv-cache-dtype`, `-ctk/-ctv`).
    KvDtype {
        /// The model's 16-bit type (vLLM's `auto` for a BF16 or FP16 model, llama.cpp's `f16`).
        Bf16 = "bf16",
        /// FP8 E4M3 with a per-tensor scale (vLLM, SGLang, TensorRT-LLM `fp8`).
        Fp8 = "fp8",
        /// llama.cpp's Q8_0: 34 bytes per 32 values (8.5 bits).
        Q80 = "q8_0",
        /// llama.cpp's Q4_0: 18 bytes per 32 values (4.5 bits).
        Q40 = "q4_0",
    }
}

impl KvDtype {
    /// Bytes per 32 values: 64, 32, 34, 18.
    pub const fn bytes_per_32(self) -> u64 {
        match self {
            KvDtype::Bf16 => 64,
            KvDtype::Fp8 => 32,
            KvDtype::Q80 => 34,
            KvDtype::Q40 => 18,
        }
    }

    /// Whether only llama.cpp stores this type.
    pub const fn llama_cpp_only(self) -> bool {
        matches!(self, KvDtype::Q80 | KvDtype::Q40)
    }
}

/// One GPU's KV cache of `arch` over a tensor-parallel degree `tp` in `dtype`.
#[derive(Clone, Copy, Debug)]
pub struct KvLayout<'a> {
    /// The model.
    pub arch: &'a ModelArch,
    /// Tensor-parallel degree (1 for llama.cpp, whose layer split keeps whole heads).
    pub tp: u64,
    /// Element type.
    pub dtype: KvDtype,
    /// Layers on this GPU (all of them but under llama.cpp's partial offload).
    pub layers: u64,
}

impl KvLayout<'_> {
    /// Elements of `tokens` tokens of one sequence on this GPU, every layer counted with its
    /// window (a sliding-window layer holds at most its window).
    fn elements(&self, tokens: u64) -> u128 {
        let kv = KvCache {
            arch: self.arch,
            seq: tokens,
            batch: 1,
            kv_bits: 8,
            tp: self.tp,
            pp: 1,
        };
        // kv_bits 8: one byte per element, so bytes() is the element count.
        kv.bytes() * self.layers as u128 / self.arch.layers.max(1) as u128
    }

    fn bytes_of(&self, elements: u128) -> u64 {
        (elements * self.dtype.bytes_per_32() as u128).div_ceil(32) as u64
    }

    /// Bytes one token costs when every layer on this GPU holds it (no window): what the engines
    /// print per token and what a full-attention pool is divided by.
    pub fn bytes_per_token(&self) -> u64 {
        let full = ModelArch {
            sliding_window: 0,
            sliding_layers: 0,
            ..self.arch.clone()
        };
        let layout = KvLayout {
            arch: &full,
            ..*self
        };
        layout.bytes_of(layout.elements(1))
    }

    /// Bytes one sequence of `tokens` tokens holds on this GPU, windows applied.
    pub fn sequence_bytes(&self, tokens: u64) -> u64 {
        self.bytes_of(self.elements(tokens))
    }

    /// KV heads each GPU holds: `max(1, kv_heads / tp)`, or 1 latent for MLA.
    pub fn heads_per_gpu(&self) -> u64 {
        match self.arch.mla {
            Some(_) => 1,
            None => (self.arch.kv_heads / self.tp).max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::find_model;

    #[test]
    fn llama_3_8b_holds_128_kib_a_token_in_bf16_and_half_in_fp8() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let kv = KvLayout {
            arch: &a,
            tp: 1,
            dtype: KvDtype::Bf16,
            layers: a.layers,
        };
        // 32 layers × 8 heads × 128 × 2 (K, V) × 2 bytes.
        assert_eq!(kv.bytes_per_token(), 131_072);
        let fp8 = KvLayout {
            dtype: KvDtype::Fp8,
            ..kv
        };
        assert_eq!(fp8.bytes_per_token(), 65_536);
        assert_eq!(kv.sequence_bytes(8192), 8192 * 131_072);
    }

    #[test]
    fn heads_are_replicated_when_tp_exceeds_them() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let kv = KvLayout {
            arch: &a,
            tp: 16,
            dtype: KvDtype::Bf16,
            layers: a.layers,
        };
        assert_eq!(kv.heads_per_gpu(), 1);
        assert_eq!(kv.bytes_per_token(), 131_072 / 8);
    }

    #[test]
    fn q8_0_costs_8_5_bits() {
        let a = find_model("llama-2-7b").unwrap().arch;
        let kv = KvLayout {
            arch: &a,
            tp: 1,
            dtype: KvDtype::Q80,
            layers: a.layers,
        };
        // 32 layers × 4096 × 2 values × 34/32 bytes.
        assert_eq!(kv.bytes_per_token(), 32 * 4096 * 2 * 34 / 32);
    }
}
