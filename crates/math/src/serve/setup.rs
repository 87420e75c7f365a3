//! What a serving estimate is asked for (the engine's knobs, by the engine's names), checked and
//! resolved to the values the engine would use when a knob is left unset.

use super::checkpoint::Checkpoint;
use super::engine::{self, Engine};
use super::kv::KvDtype;
use super::tensor_placement::{parse_overrides, ModelFile};
use crate::memory::model::arch::ModelArch;
use crate::memory::model::gpus::GpuPreset;
use serde::Serialize;

/// A serving question: a model on `tp` GPUs of one kind under one engine. Knobs left `None` take
/// the engine's default ([`ServeSetup::resolve`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ServeSetup {
    /// The engine.
    pub engine: Engine,
    /// The model's id (a preset's, or a name for a pasted config); picks llama.cpp's tensor layout.
    pub model_id: String,
    /// The model.
    pub arch: ModelArch,
    /// The GPU (every GPU of the job is this kind).
    pub gpu: GpuPreset,
    /// Tensor-parallel degree (GPUs); 1 for llama.cpp.
    pub tp: u64,
    /// Pipeline-parallel degree: the blocks split into this many stages of consecutive layers
    /// (vLLM `pipeline_parallel_size`, SGLang `pp_size`); 1 for llama.cpp.
    pub pp: u64,
    /// Data-parallel replicas, each of `tp × pp` GPUs (vLLM `data_parallel_size`, SGLang
    /// `dp_size`); 1 for llama.cpp.
    pub dp: u64,
    /// Expert parallelism (vLLM `enable_expert_parallel`): routed experts split whole over all
    /// `tp × dp` GPUs of a stage instead of each expert over `tp`; MoE models only.
    pub expert_parallel: bool,
    /// How the checkpoint stores its weights.
    pub checkpoint: Checkpoint,
    /// KV cache element type.
    pub kv_dtype: KvDtype,
    /// The engine's memory fraction (vLLM `gpu_memory_utilization`, SGLang `mem_fraction_static`,
    /// TensorRT-LLM `free_gpu_memory_fraction`), in (0, 1].
    pub memory_fraction: Option<f64>,
    /// Longest request in tokens (vLLM `max_model_len`, SGLang `context_length`, llama.cpp
    /// `n_ctx`); default the model's trained context (llama.cpp: lowered to fit, not below 4096).
    pub max_model_len: Option<u64>,
    /// Most sequences in one batch (`max_num_seqs`, `max_running_requests`, `max_batch_size`).
    pub max_num_seqs: Option<u64>,
    /// Most tokens in one forward pass (`max_num_batched_tokens`, `chunked_prefill_size`,
    /// `max_num_tokens`, llama.cpp `n_ubatch`): the profiling run's size.
    pub max_num_batched_tokens: Option<u64>,
    /// Tokens per KV block or page.
    pub block_size: Option<u64>,
    /// No CUDA graphs (vLLM `enforce_eager`, SGLang `disable_cuda_graph`).
    pub enforce_eager: bool,
    /// Share of each request's tokens that is a prefix shared by every request and cached once
    /// (prefix caching), in [0, 1).
    pub prefix_share: f64,
    /// Concurrent sequences for the speed figures; default the most that fit (at least 1).
    pub concurrency: Option<u64>,
    /// Prompt tokens of a request (time to first token; decode reads this much KV per sequence).
    pub prompt_tokens: u64,
    /// Share of peak memory bandwidth decode achieves, in (0, 1].
    pub bandwidth_efficiency: Option<f64>,
    /// Share of peak 16-bit tensor FLOP/s prefill achieves, in (0, 1].
    pub flops_efficiency: Option<f64>,
    /// llama.cpp `n_gpu_layers`; default as many as fit (`-ngl auto`). Above the block count the
    /// output head goes to the GPU too.
    pub gpu_layers: Option<u64>,
    /// llama.cpp `--n-cpu-moe`: the first N blocks keep their experts on the CPU.
    pub cpu_moe_layers: u64,
    /// The host's memory bandwidth for CPU-resident layers, bytes/s.
    pub cpu_bytes_per_s: u64,
    /// The total CUDA reports for the GPU, bytes, where a log prints it; default
    /// [`super::budget::cuda_total`] of the preset's capacity.
    pub cuda_total_bytes: Option<u64>,
    /// A GGUF file's tensors (llama.cpp only): the weights and their placement come from its
    /// real tensor sizes instead of the architecture and `checkpoint`.
    pub model_file: Option<ModelFile>,
    /// llama.cpp's `-ot` / `--override-tensor` text: `PATTERN=BUFFER` entries separated by
    /// commas (blank for none).
    pub tensor_overrides: String,
    /// llama.cpp's `--flash-attn` (on by default: `auto` turns it on for CUDA). Off, the compute
    /// buffer holds every head's scores against the context and the V cache cannot be quantized.
    pub flash_attention: bool,
}

/// Dual-channel DDR5-5600's peak: 2 × 64 bit × 5600 MT/s = 89.6 GB/s, the default host bandwidth.
pub const DEFAULT_CPU_BYTES_PER_S: u64 = 89_600_000_000;

/// Prompt tokens of a request when none are given, for the time to first token.
pub const DEFAULT_PROMPT_TOKENS: u64 = 1000;

/// The largest accepted context, concurrency or token count (10 million): past it no engine runs.
pub const TOKEN_LIMIT: u64 = 10_000_000;

/// The largest tensor-parallel (or data-parallel) degree accepted.
pub const TP_LIMIT: u64 = 1024;

/// Why a serving question cannot be answered. Messages name the knob as the engine spells it.
#[derive(Clone, Debug, PartialEq)]
pub enum ServeError {
    /// A fraction knob outside (0, 1] (or [0, 1) for the prefix share).
    Fraction {
        /// The knob.
        knob: &'static str,
        /// The value given.
        value: f64,
    },
    /// A count of 0 where at least 1 is needed.
    Zero {
        /// The knob.
        knob: &'static str,
    },
    /// A count above what is accepted.
    TooLarge {
        /// The knob.
        knob: &'static str,
        /// The value given.
        value: u64,
        /// The largest accepted.
        limit: u64,
    },
    /// Attention heads that tensor parallelism cannot split evenly.
    HeadsSplit {
        /// Query heads.
        heads: u64,
        /// KV heads.
        kv_heads: u64,
        /// The degree.
        tp: u64,
    },
    /// A checkpoint format the engine does not load.
    Checkpoint {
        /// The format.
        checkpoint: Checkpoint,
        /// The engine.
        engine: Engine,
    },
    /// A KV type the engine does not offer.
    KvDtype {
        /// The type.
        dtype: KvDtype,
        /// The engine.
        engine: Engine,
    },
    /// Tensor parallelism asked of llama.cpp.
    LlamaCppTp,
    /// Pipeline, data or expert parallelism asked of llama.cpp.
    LlamaCppParallel {
        /// The knob.
        knob: &'static str,
    },
    /// Expert parallelism asked of a model without routed experts.
    NoExperts,
    /// A llama.cpp-only knob (a GGUF file, `-ot`, flash attention off) asked of another engine.
    LlamaCppOnly {
        /// The knob.
        knob: &'static str,
        /// The engine.
        engine: Engine,
    },
    /// A quantized V cache without flash attention (llama.cpp refuses it).
    QuantizedVWithoutFlash {
        /// The KV type.
        dtype: KvDtype,
    },
    /// An `-ot` text that cannot be read, with llama.cpp's reason.
    TensorOverride(String),
    /// A prompt longer than the longest request.
    PromptTooLong {
        /// Prompt tokens.
        prompt: u64,
        /// The longest request.
        max_model_len: u64,
    },
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Fraction { knob, value } if *knob == "prefix_share" => {
                write!(f, "{knob} must be at least 0 and below 1 (got {value})")
            }
            ServeError::Fraction { knob, value } => {
                write!(f, "{knob} must be above 0 and at most 1 (got {value})")
            }
            ServeError::Zero { knob } => write!(f, "{knob} must be at least 1"),
            ServeError::TooLarge { knob, value, limit } => {
                write!(f, "{knob} {value} is more than the {limit} accepted")
            }
            ServeError::HeadsSplit { heads, kv_heads, tp } => write!(
                f,
                "tensor parallel {tp} does not split {heads} attention heads and {kv_heads} KV heads evenly \
                 (the engines need tp to divide the heads, and the KV heads to divide or be divided by tp)"
            ),
            ServeError::Checkpoint { checkpoint, engine } => write!(
                f,
                "{} does not load {checkpoint} checkpoints ({})",
                engine.label(),
                if *engine == Engine::LlamaCpp {
                    "it reads GGUF files: pick a llama.cpp type such as q4_k_m, or bf16/fp16"
                } else {
                    "llama.cpp file types are for llama.cpp"
                }
            ),
            ServeError::KvDtype { dtype, engine } => write!(
                f,
                "{} has no {dtype} KV cache ({})",
                engine.label(),
                if dtype.llama_cpp_only() { "q8_0 and q4_0 are llama.cpp's" } else { "llama.cpp offers f16, q8_0 and q4_0" }
            ),
            ServeError::LlamaCppTp => write!(
                f,
                "llama.cpp splits layers, not tensors, across GPUs: use tp 1 (and n_gpu_layers)"
            ),
            ServeError::LlamaCppParallel { knob } => write!(
                f,
                "{knob} is for vLLM, SGLang and TensorRT-LLM: llama.cpp serves here from one GPU (and the host)"
            ),
            ServeError::NoExperts => write!(
                f,
                "expert parallel needs routed experts, and this model is dense: use tensor or data parallel"
            ),
            ServeError::LlamaCppOnly { knob, engine } => write!(
                f,
                "{knob} is llama.cpp's; {} {}",
                engine.label(),
                if *knob == "flash attention off" {
                    "always runs a fused attention kernel"
                } else {
                    "loads safetensors checkpoints: pick llama.cpp for a GGUF file and its overrides"
                }
            ),
            ServeError::QuantizedVWithoutFlash { dtype } => write!(
                f,
                "llama.cpp quantizes the V cache ({dtype}) only with flash attention on: turn it on or use an f16 cache"
            ),
            ServeError::TensorOverride(why) => write!(f, "{why}"),
            ServeError::PromptTooLong { prompt, max_model_len } => write!(
                f,
                "a prompt of {prompt} tokens is longer than max_model_len {max_model_len}"
            ),
        }
    }
}

impl std::error::Error for ServeError {}

impl ServeSetup {
    /// Blocks each pipeline stage holds (the first stages take the remainder): ⌈layers / pp⌉.
    pub fn stage_layers(&self) -> u64 {
        self.arch.layers.max(1).div_ceil(self.pp.max(1))
    }

    /// GPUs in all: tp × pp × dp.
    pub fn gpus(&self) -> u64 {
        self.tp.saturating_mul(self.pp).saturating_mul(self.dp)
    }
}

/// Every knob's value as the engine would run it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Knobs {
    /// The memory fraction (`None` for llama.cpp).
    pub memory_fraction: Option<f64>,
    /// Longest request, tokens.
    pub max_model_len: u64,
    /// Most sequences per batch.
    pub max_num_seqs: u64,
    /// Tokens of the profiling run (the largest forward pass).
    pub max_num_batched_tokens: u64,
    /// Tokens per KV block.
    pub block_size: u64,
    /// CUDA graphs captured.
    pub cuda_graphs: bool,
    /// Largest batch captured in a CUDA graph (0 without graphs).
    pub cuda_graph_max_batch: u64,
    /// Share of peak memory bandwidth decode achieves.
    pub bandwidth_efficiency: f64,
    /// Share of peak tensor FLOP/s prefill achieves.
    pub flops_efficiency: f64,
}

/// Bandwidth share where nothing is given: 0.8 for vLLM, SGLang and TensorRT-LLM ("well-optimized
/// CUDA stacks commonly run in the 70 to 85 percent range", open-source-ai.tech glossary, a rule
/// of thumb); for llama.cpp by weight bits, from llama-bench tg128 rows (PR #4766, RTX 3090/4090):
/// 16-bit 0.75 (70% and 82% measured), 8-bit 0.70 (70%), 4 to 6-bit 0.50 (50%).
pub fn default_bandwidth_efficiency(engine: Engine, checkpoint: Checkpoint) -> f64 {
    match (engine, checkpoint) {
        (Engine::LlamaCpp, Checkpoint::Bf16 | Checkpoint::Fp16) => {
            llama_cpp_bandwidth_efficiency(16.0)
        }
        (Engine::LlamaCpp, Checkpoint::Q80 | Checkpoint::Int8 | Checkpoint::Fp8) => {
            llama_cpp_bandwidth_efficiency(8.5)
        }
        (Engine::LlamaCpp, _) => llama_cpp_bandwidth_efficiency(4.5),
        _ => 0.8,
    }
}

/// llama.cpp's bandwidth share by the weights' mean bits (the rows above): 16-bit and wider 0.75,
/// 7 to 12 bits 0.70, fewer 0.50.
pub fn llama_cpp_bandwidth_efficiency(bits: f64) -> f64 {
    if bits >= 12.0 {
        0.75
    } else if bits >= 7.0 {
        0.70
    } else {
        0.50
    }
}

/// A model file's mean stored bits per parameter of `arch`.
fn bits_per_weight(f: &ModelFile, arch: &ModelArch) -> f64 {
    8.0 * f.bytes() as f64 / arch.params().max(1) as f64
}

/// FLOP/s share of prefill where nothing is given: 0.5. No engine publishes its prefill MFU;
/// llama-bench's pp512 on an RTX 4090 (F16, 7B: 11,048 tokens/s ≈ 149 TFLOP/s of 165 dense with
/// FP32 accumulation) shows what a single GPU can reach, batched serving less.
pub const DEFAULT_FLOPS_EFFICIENCY: f64 = 0.5;

impl ServeSetup {
    /// A setup with every knob at the engine's default: one GPU, BF16 weights and KV, a 1,000-token
    /// prompt.
    pub fn new(engine: Engine, model_id: &str, arch: ModelArch, gpu: GpuPreset) -> ServeSetup {
        ServeSetup {
            engine,
            model_id: model_id.to_string(),
            arch,
            gpu,
            tp: 1,
            pp: 1,
            dp: 1,
            expert_parallel: false,
            checkpoint: Checkpoint::Bf16,
            kv_dtype: KvDtype::Bf16,
            memory_fraction: None,
            max_model_len: None,
            max_num_seqs: None,
            max_num_batched_tokens: None,
            block_size: None,
            enforce_eager: false,
            prefix_share: 0.0,
            concurrency: None,
            prompt_tokens: DEFAULT_PROMPT_TOKENS,
            bandwidth_efficiency: None,
            flops_efficiency: None,
            gpu_layers: None,
            cpu_moe_layers: 0,
            cpu_bytes_per_s: DEFAULT_CPU_BYTES_PER_S,
            cuda_total_bytes: None,
            model_file: None,
            tensor_overrides: String::new(),
            flash_attention: true,
        }
    }

    /// Checks every knob and fills the unset ones with the engine's defaults. `max_model_len` is
    /// resolved later for llama.cpp (it fits `n_ctx` to the card).
    pub fn resolve(&self) -> Result<Knobs, ServeError> {
        self.check()?;
        let e = self.engine;
        let cap = self.gpu.capacity_bytes;
        let fraction = match self.memory_fraction {
            Some(f) => Some(f),
            None => engine::default_fraction(e, cap, self.tp),
        };
        let (seqs, tokens) = match e {
            Engine::Vllm => engine::vllm_scheduler_defaults(cap, self.gpu.id),
            Engine::Sglang => {
                let (chunk, graph_bs) = engine::sglang_gpu_class(cap, self.tp);
                (graph_bs.max(2048), chunk)
            }
            Engine::TrtLlm => engine::TRT_LLM_DEFAULTS,
            Engine::LlamaCpp => (1, engine::LLAMA_CPP_BATCHES.1),
        };
        let max_num_seqs = self.max_num_seqs.unwrap_or(seqs);
        let cuda_graphs = e.captures_cuda_graphs() && !self.enforce_eager;
        let graph_max = match e {
            Engine::Sglang => engine::sglang_gpu_class(cap, self.tp).1,
            _ => (2 * max_num_seqs).min(512),
        };
        Ok(Knobs {
            memory_fraction: fraction,
            max_model_len: self.max_model_len.unwrap_or(self.arch.max_seq),
            max_num_seqs,
            max_num_batched_tokens: self.max_num_batched_tokens.unwrap_or(tokens),
            block_size: self.block_size.unwrap_or(e.default_block_size()),
            cuda_graphs,
            cuda_graph_max_batch: if cuda_graphs {
                graph_max.min(max_num_seqs)
            } else {
                0
            },
            bandwidth_efficiency: self.bandwidth_efficiency.unwrap_or(match &self.model_file {
                Some(f) => llama_cpp_bandwidth_efficiency(bits_per_weight(f, &self.arch)),
                None => default_bandwidth_efficiency(e, self.checkpoint),
            }),
            flops_efficiency: self.flops_efficiency.unwrap_or(DEFAULT_FLOPS_EFFICIENCY),
        })
    }

    fn check(&self) -> Result<(), ServeError> {
        let fraction = |knob: &'static str, v: Option<f64>| match v {
            Some(v) if !(v > 0.0 && v <= 1.0) => Err(ServeError::Fraction { knob, value: v }),
            _ => Ok(()),
        };
        let knob = self
            .engine
            .fraction_knob()
            .map_or("memory fraction", |k| k.0);
        fraction(knob, self.memory_fraction)?;
        fraction("bandwidth efficiency", self.bandwidth_efficiency)?;
        fraction("FLOP/s efficiency", self.flops_efficiency)?;
        if !(self.prefix_share >= 0.0 && self.prefix_share < 1.0) {
            return Err(ServeError::Fraction {
                knob: "prefix_share",
                value: self.prefix_share,
            });
        }
        let count = |knob: &'static str, v: Option<u64>, limit: u64| match v {
            Some(0) => Err(ServeError::Zero { knob }),
            Some(v) if v > limit => Err(ServeError::TooLarge {
                knob,
                value: v,
                limit,
            }),
            _ => Ok(()),
        };
        count("tensor parallel", Some(self.tp), TP_LIMIT)?;
        count(
            "pipeline parallel (at most one stage per layer)",
            Some(self.pp),
            self.arch.layers.max(1),
        )?;
        count("data parallel", Some(self.dp), TP_LIMIT)?;
        count("max_model_len", self.max_model_len, TOKEN_LIMIT)?;
        count("max_num_seqs", self.max_num_seqs, TOKEN_LIMIT)?;
        count(
            "max_num_batched_tokens",
            self.max_num_batched_tokens,
            TOKEN_LIMIT,
        )?;
        count("block_size", self.block_size, 4096)?;
        count("concurrency", self.concurrency, TOKEN_LIMIT)?;
        count("prompt tokens", Some(self.prompt_tokens), TOKEN_LIMIT)?;
        count("host bandwidth", Some(self.cpu_bytes_per_s), u64::MAX)?;
        count(
            "n_gpu_layers",
            self.gpu_layers.map(|n| n.max(1)),
            TOKEN_LIMIT,
        )?;
        if let Some(len) = self.max_model_len {
            if self.prompt_tokens > len {
                return Err(ServeError::PromptTooLong {
                    prompt: self.prompt_tokens,
                    max_model_len: len,
                });
            }
        }
        let llama = self.engine == Engine::LlamaCpp;
        let gguf = self.checkpoint.gguf_dtype().is_some();
        let plain = matches!(self.checkpoint, Checkpoint::Bf16 | Checkpoint::Fp16);
        // A GGUF file's own tensor types stand in for the checkpoint.
        if self.model_file.is_none() && ((llama && !gguf && !plain) || (!llama && gguf)) {
            return Err(ServeError::Checkpoint {
                checkpoint: self.checkpoint,
                engine: self.engine,
            });
        }
        if self.kv_dtype.llama_cpp_only() != llama && self.kv_dtype != KvDtype::Bf16 {
            return Err(ServeError::KvDtype {
                dtype: self.kv_dtype,
                engine: self.engine,
            });
        }
        if llama && self.tp != 1 {
            return Err(ServeError::LlamaCppTp);
        }
        for (knob, asked) in [
            ("pipeline parallel", self.pp > 1),
            ("data parallel", self.dp > 1),
            ("expert parallel", self.expert_parallel),
        ] {
            if llama && asked {
                return Err(ServeError::LlamaCppParallel { knob });
            }
        }
        if self.expert_parallel && self.arch.experts <= 1 {
            return Err(ServeError::NoExperts);
        }
        let engine = self.engine;
        let only = |knob| Err(ServeError::LlamaCppOnly { knob, engine });
        if !llama && self.model_file.is_some() {
            return only("a GGUF file");
        }
        if !llama && !self.tensor_overrides.trim().is_empty() {
            return only("override-tensor");
        }
        if !llama && !self.flash_attention {
            return only("flash attention off");
        }
        if llama && !self.flash_attention && self.kv_dtype.llama_cpp_only() {
            return Err(ServeError::QuantizedVWithoutFlash {
                dtype: self.kv_dtype,
            });
        }
        parse_overrides(&self.tensor_overrides)
            .map_err(|e| ServeError::TensorOverride(e.to_string()))?;
        let (heads, kv, tp) = (self.arch.heads, self.arch.kv_heads, self.tp);
        let kv_ok = self.arch.mla.is_some() || kv % tp == 0 || tp % kv == 0;
        if heads % tp != 0 || !kv_ok {
            return Err(ServeError::HeadsSplit {
                heads,
                kv_heads: kv,
                tp,
            });
        }
        Ok(())
    }
}
