//! The four serving engines, the release whose accounting each follows, and their defaults as that
//! release sets them. Sources are in each item's doc and in `docs/research/serve_engines.md`.

use crate::named::named_enum;

named_enum! {
    /// A serving engine.
    Engine {
        /// vLLM's V1 engine: `gpu_memory_utilization` of the device's total memory, less weights,
        /// the profiling run's activation peak and non-torch memory, is the KV cache
        /// (`vllm/v1/worker/gpu_worker.py`, `determine_available_memory`, v0.10 to v0.20).
        Vllm = "vllm",
        /// SGLang: `mem_fraction_static` of the free memory before loading is weights plus the KV
        /// pool (`model_runner_kv_cache_mixin.py`, `profile_max_num_token`, v0.5).
        Sglang = "sglang",
        /// TensorRT-LLM's PyTorch backend: `free_gpu_memory_fraction` of the memory still free
        /// after the weights and a profiling run is the KV cache (`_torch/pyexecutor/_util.py`,
        /// 1.0).
        TrtLlm = "trt-llm",
        /// llama.cpp's server: `n_ctx` cells of K and V per layer, each layer's weights and KV on
        /// the device `n_gpu_layers` puts it (`src/llama-kv-cache.cpp`, `common/common.h`, 2026).
        LlamaCpp = "llama.cpp",
    }
}

impl Engine {
    /// The engine as people write it.
    pub const fn label(self) -> &'static str {
        match self {
            Engine::Vllm => "vLLM",
            Engine::Sglang => "SGLang",
            Engine::TrtLlm => "TensorRT-LLM",
            Engine::LlamaCpp => "llama.cpp",
        }
    }

    /// The release (or era) whose accounting this model follows, in words.
    pub const fn follows(self) -> &'static str {
        match self {
            Engine::Vllm => {
                "vLLM V1, v0.10 to v0.20 (CUDA graphs outside the KV budget; v0.21 moved them in)"
            }
            Engine::Sglang => "SGLang v0.5 (server_args.py, late 2025)",
            Engine::TrtLlm => "TensorRT-LLM 1.0, PyTorch backend",
            Engine::LlamaCpp => {
                "llama.cpp master, 2026 (n_ctx 0 = trained context, flash attention auto)"
            }
        }
    }

    /// The engine's name for its memory knob, and what it is a fraction of.
    pub const fn fraction_knob(self) -> Option<(&'static str, &'static str)> {
        match self {
            Engine::Vllm => Some(("gpu_memory_utilization", "of the GPU's total memory")),
            Engine::Sglang => Some((
                "mem_fraction_static",
                "of the free memory before loading, for weights and KV pool",
            )),
            Engine::TrtLlm => Some((
                "free_gpu_memory_fraction",
                "of the memory free after weights and the profiling run",
            )),
            Engine::LlamaCpp => None,
        }
    }

    /// Tokens per KV block (page): vLLM's `block_size` 16 (`CacheConfig.DEFAULT_BLOCK_SIZE`),
    /// SGLang's `page_size` 1 (token-granular pool), TensorRT-LLM's `tokens_per_block` 32
    /// (`KvCacheConfig`), llama.cpp's cells (1).
    pub const fn default_block_size(self) -> u64 {
        match self {
            Engine::Vllm => 16,
            Engine::Sglang | Engine::LlamaCpp => 1,
            Engine::TrtLlm => 32,
        }
    }

    /// Whether the engine captures CUDA graphs by default (llama.cpp's CUDA graphs are per
    /// decode step and hold no memory pool worth counting).
    pub const fn captures_cuda_graphs(self) -> bool {
        !matches!(self, Engine::LlamaCpp)
    }
}

/// GiB, for the thresholds the engines write in GiB.
const GIB: u64 = 1 << 30;

/// The engine's memory fraction when none is given: vLLM 0.9 (documented default through the V1
/// releases followed; later docs say 0.92), TensorRT-LLM 0.9 (`KvCacheConfig`), and SGLang's
/// computed `mem_fraction_static` ([`sglang_mem_fraction`]). `None` for llama.cpp.
pub fn default_fraction(engine: Engine, capacity_bytes: u64, tp: u64) -> Option<f64> {
    match engine {
        Engine::Vllm | Engine::TrtLlm => Some(0.9),
        Engine::Sglang => Some(sglang_mem_fraction(capacity_bytes, tp)),
        Engine::LlamaCpp => None,
    }
}

/// SGLang's default `mem_fraction_static` (`_handle_gpu_memory_settings`): a reserve in MiB of
/// 512 + 1.5 × max(chunked_prefill_size, 2048) + 2 × cuda_graph_max_bs + tp/8 × 1024, at least
/// 10 GiB on GPUs over 60 GiB, taken from the capacity; rounded to 3 decimals.
pub fn sglang_mem_fraction(capacity_bytes: u64, tp: u64) -> f64 {
    let mib = capacity_bytes as f64 / (1u64 << 20) as f64;
    let (chunk, graph_bs) = sglang_gpu_class(capacity_bytes, tp);
    let mut reserve = 512.0 + 1.5 * chunk.max(2048) as f64 + 2.0 * graph_bs as f64;
    reserve += tp as f64 / 8.0 * 1024.0;
    if capacity_bytes > 60 * GIB {
        reserve = reserve.max(10.0 * 1024.0);
    }
    (((mib - reserve) / mib) * 1000.0).round() / 1000.0
}

/// SGLang's `chunked_prefill_size` and `cuda_graph_max_bs` by GPU memory class (the same function;
/// tp ≥ 4 raises the graph batch on mid-size cards).
pub fn sglang_gpu_class(capacity_bytes: u64, tp: u64) -> (u64, u64) {
    let gib = capacity_bytes / GIB;
    let wide = tp >= 4;
    match gib {
        0..=19 => (2048, 8),
        20..=34 => (2048, if wide { 80 } else { 24 }),
        35..=59 => (4096, if wide { 160 } else { 32 }),
        60..=159 => (8192, if wide { 512 } else { 256 }),
        _ => (16384, 512),
    }
}

/// vLLM's scheduler defaults for `vllm serve` (`EngineArgs._set_default_args`): GPUs with at
/// least 70 GiB that are not A100s get `max_num_batched_tokens` 8192 and `max_num_seqs` 1024;
/// others 2048 and 256. Returns (max_num_seqs, max_num_batched_tokens).
pub fn vllm_scheduler_defaults(capacity_bytes: u64, gpu_id: &str) -> (u64, u64) {
    if capacity_bytes >= 70 * GIB && !gpu_id.starts_with("a100") {
        (1024, 8192)
    } else {
        (256, 2048)
    }
}

/// TensorRT-LLM's `max_num_tokens` 8192 and `max_batch_size` 2048 (`BuildConfig`, LLM API).
pub const TRT_LLM_DEFAULTS: (u64, u64) = (2048, 8192);

/// llama.cpp's `n_batch` 2048 and `n_ubatch` 512 (`common/common.h`).
pub const LLAMA_CPP_BATCHES: (u64, u64) = (2048, 512);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sglang_leaves_about_13_gib_on_an_h100() {
        // 512 + 8192 × 1.5 + 256 × 2 + 128 = 13,440 MiB of 81,559 MiB.
        let h100 = 81559u64 << 20;
        assert_eq!(sglang_mem_fraction(h100, 1), 0.835);
        assert_eq!(sglang_gpu_class(h100, 1), (8192, 256));
    }

    #[test]
    fn engine_names_parse_as_written() {
        assert_eq!("llama.cpp".parse::<Engine>(), Ok(Engine::LlamaCpp));
        assert_eq!("TRT_LLM".parse::<Engine>(), Ok(Engine::TrtLlm));
        assert!("tgi"
            .parse::<Engine>()
            .unwrap_err()
            .contains("vllm, sglang"));
    }
}
