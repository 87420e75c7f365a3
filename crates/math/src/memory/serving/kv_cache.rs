//! KV-cache size: 2 (K and V) × layers × KV heads × head dim × sequence × batch × bytes per element.
//! Multi-head latent attention caches its latent and rotary key instead of K and V; layers with a
//! sliding window keep at most `sliding_window` tokens.

use crate::memory::model::arch::ModelArch;

/// A KV cache on one GPU: the model, the tokens it holds, and how it is split.
#[derive(Clone, Copy, Debug)]
pub struct KvCache<'a> {
    /// The model.
    pub arch: &'a ModelArch,
    /// Tokens per sequence.
    pub seq: u64,
    /// Sequences.
    pub batch: u64,
    /// Bits per element (4 for INT4).
    pub kv_bits: u64,
    /// Tensor-parallel degree: KV heads split over it.
    pub tp: u64,
    /// Pipeline stages: layers split over them.
    pub pp: u64,
}

impl KvCache<'_> {
    /// Elements per token and layer on this GPU: K and V of each KV head (KV heads split over tp,
    /// replicated when tp exceeds them, as Megatron and vLLM do), or MLA's latent and rotary key
    /// (replicated on every tp rank).
    fn per_token_layer(&self) -> u128 {
        match self.arch.mla {
            Some(_) => self.arch.kv_elements_per_token_layer() as u128,
            None => 2 * self.arch.kv_heads.div_ceil(self.tp) as u128 * self.arch.head_dim as u128,
        }
    }

    /// Layers × tokens on this stage: sliding-window layers hold min(seq, window) tokens; with
    /// pp > 1 and a window, the layer-tokens are split evenly (rounded up).
    fn layer_tokens(&self) -> u128 {
        let (arch, seq) = (self.arch, self.seq as u128);
        if arch.sliding_window == 0 || arch.sliding_layers == 0 {
            arch.layers.div_ceil(self.pp) as u128 * seq
        } else {
            let windowed = arch.sliding_layers.min(arch.layers) as u128;
            let global = arch.layers as u128 - windowed;
            (global * seq + windowed * seq.min(arch.sliding_window as u128))
                .div_ceil(self.pp as u128)
        }
    }

    /// Bytes on one GPU, rounded up to whole bytes.
    pub fn bytes(&self) -> u128 {
        let bits = self.per_token_layer()
            * self.layer_tokens()
            * self.batch as u128
            * self.kv_bits as u128;
        bits.div_ceil(8)
    }

    /// [`KvCache::bytes`]' arithmetic in words, every factor a number the reader can multiply out
    /// to the bits it gives (before rounding up to whole bytes).
    pub fn formula(&self) -> String {
        let arch = self.arch;
        let per_token_layer = match arch.mla {
            Some(m) => format!(
                "({} latent + {} rotary key)",
                m.kv_lora_rank, m.qk_rope_head_dim
            ),
            None => {
                let split = if self.tp > 1 { ", split over tp" } else { "" };
                format!(
                    "2 × {} KV heads{split} × {} head dim",
                    arch.kv_heads.div_ceil(self.tp),
                    arch.head_dim
                )
            }
        };
        let seq = self.seq;
        let layer_tokens = if arch.sliding_window == 0 || arch.sliding_layers == 0 {
            format!("{} layers × {seq} tokens", arch.layers.div_ceil(self.pp))
        } else {
            let windowed = arch.sliding_layers.min(arch.layers);
            let stages = if self.pp > 1 {
                format!(" ÷ {} stages", self.pp)
            } else {
                String::new()
            };
            format!(
                "({} full layers × {seq} tokens + {windowed} windowed layers × {} tokens){stages}",
                arch.layers - windowed,
                seq.min(arch.sliding_window)
            )
        };
        format!(
            "{per_token_layer} × {layer_tokens} × {} seqs × {} bits ÷ 8",
            self.batch, self.kv_bits
        )
    }
}

/// [`KvCache::bytes`] of `arch` holding `batch` sequences of `seq` tokens at `kv_bits` per
/// element, split over `tp` and `pp`.
pub fn kv_cache_bytes(
    arch: &ModelArch,
    seq: u64,
    batch: u64,
    kv_bits: u64,
    tp: u64,
    pp: u64,
) -> u128 {
    KvCache {
        arch,
        seq,
        batch,
        kv_bits,
        tp,
        pp,
    }
    .bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::find_model;
    use crate::memory::Mla;

    /// Evaluates a formula's arithmetic: numbers, ×, ÷, + and parentheses; words are labels.
    fn evaluate(text: &str) -> f64 {
        let tokens: Vec<String> = text
            .replace('(', " ( ")
            .replace(')', " ) ")
            .replace(',', " ")
            .split_whitespace()
            .filter(|t| ["(", ")", "×", "÷", "+"].contains(t) || t.parse::<f64>().is_ok())
            .map(str::to_string)
            .collect();
        fn sum(t: &[String], i: &mut usize) -> f64 {
            let mut v = product(t, i);
            while *i < t.len() && t[*i] == "+" {
                *i += 1;
                v += product(t, i);
            }
            v
        }
        fn product(t: &[String], i: &mut usize) -> f64 {
            let mut v = atom(t, i);
            while *i < t.len() && (t[*i] == "×" || t[*i] == "÷") {
                let op = t[*i].clone();
                *i += 1;
                let r = atom(t, i);
                v = if op == "×" { v * r } else { v / r };
            }
            v
        }
        fn atom(t: &[String], i: &mut usize) -> f64 {
            *i += 1;
            if t[*i - 1] == "(" {
                let v = sum(t, i);
                *i += 1;
                v
            } else {
                t[*i - 1].parse().unwrap()
            }
        }
        let mut i = 0;
        let v = sum(&tokens, &mut i);
        assert_eq!(i, tokens.len(), "{text}: {tokens:?}");
        v
    }

    /// The formula in words multiplies out to the bytes, for plain, grouped, split, MLA and
    /// sliding-window caches.
    #[test]
    fn the_formula_evaluates_to_the_bytes() {
        let llama = find_model("llama-3-8b").unwrap().arch;
        let mla = ModelArch {
            mla: Some(Mla {
                q_lora_rank: 1536,
                kv_lora_rank: 512,
                qk_nope_head_dim: 128,
                qk_rope_head_dim: 64,
                v_head_dim: 128,
            }),
            ..find_model("llama-3-70b").unwrap().arch
        };
        let windowed = ModelArch {
            sliding_window: 1024,
            sliding_layers: 20,
            ..llama
        };
        for (arch, tp, pp) in [
            (&llama, 1, 1),
            (&llama, 16, 2),
            (&mla, 4, 1),
            (&windowed, 1, 1),
            (&windowed, 2, 4),
        ] {
            for (seq, batch, bits) in [(8192, 16, 16), (100, 3, 8), (4096, 1, 4)] {
                let kv = KvCache {
                    arch,
                    seq,
                    batch,
                    kv_bits: bits,
                    tp,
                    pp,
                };
                let text = kv.formula();
                assert_eq!(evaluate(&text).ceil() as u128, kv.bytes(), "{text}");
            }
        }
    }

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
