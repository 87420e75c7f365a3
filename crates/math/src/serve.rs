//! Serving a model as vLLM, SGLang, TensorRT-LLM and llama.cpp do: each engine's own memory
//! accounting (weights as stored, non-torch memory, the profiling run's activation peak, CUDA
//! graphs, the KV cache as what remains), the concurrency its KV cache holds, and tokens per
//! second from a roofline.

pub mod budget;
pub mod checkpoint;
pub mod curves;
pub mod engine;
pub mod from_memory;
pub mod kv;
pub mod logged;
pub mod quant_config;
pub mod setup;
pub mod speed;
pub mod tensor_pattern;
pub mod tensor_placement;

pub use checkpoint::Checkpoint;
pub use engine::Engine;
pub use kv::KvDtype;
pub use setup::{Knobs, ServeError, ServeSetup};

use budget::{budget, Budget, PerGpu};
use kv::KvLayout;
use serde::Serialize;
use speed::{Decode, Prefill};
use tensor_placement::PlacedTensor;

/// Where llama.cpp puts the model: blocks and output head on the GPU, the rest on the host, and
/// each tensor as the dry run places it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    /// Blocks on the GPU.
    pub gpu_layers: u64,
    /// Blocks in the model.
    pub layers: u64,
    /// The output head on the GPU (`n_gpu_layers` above the block count).
    pub output_on_gpu: bool,
    /// Blocks whose experts stay on the host (`--n-cpu-moe`).
    pub cpu_moe_layers: u64,
    /// Weight bytes on the host.
    pub host_weights: u64,
    /// Weight bytes on the GPU.
    pub gpu_weights: u64,
    /// Routed-expert bytes on the host (`--n-cpu-moe`, `-ot`).
    pub host_expert_weights: u64,
    /// Flash attention on (`--flash-attn`).
    pub flash_attention: bool,
    /// Every tensor with its device and the rule that put it there, in file order.
    pub tensors: Vec<PlacedTensor>,
}

/// A serving estimate. The JSON names are stable (`serve --json`): `engine`, `per_gpu`,
/// `kv_bytes_per_token`, `kv_tokens`, `block_size`, `kv_blocks`, `max_concurrency`, `decode`,
/// `prefill`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServeReport {
    /// The engine's name (`vllm`, `sglang`, `trt-llm`, `llama.cpp`).
    pub engine: &'static str,
    /// The release whose accounting is followed.
    pub follows: &'static str,
    /// Every knob as the engine runs it.
    pub knobs: Knobs,
    /// The GPU's capacity, bytes.
    pub capacity: u64,
    /// GPUs in all (tp × pp × dp).
    pub gpus: u64,
    /// Data-parallel replicas: the concurrency and the aggregate tokens/s are each replica's.
    pub replicas: u64,
    /// One GPU's memory.
    pub per_gpu: PerGpu,
    /// The KV budget before clamping at 0, bytes (negative: the weights and activations exceed
    /// the engine's share by that much, as vLLM logs it).
    pub kv_available: i128,
    /// KV bytes one token costs on one GPU, every layer holding it.
    pub kv_bytes_per_token: u64,
    /// Tokens the KV cache holds (whole blocks).
    pub kv_tokens: u64,
    /// Tokens per block.
    pub block_size: u64,
    /// Blocks in the KV cache.
    pub kv_blocks: u64,
    /// Requests of `max_model_len` tokens the cache holds at once (the engine's "maximum
    /// concurrency"), without prefix sharing.
    pub max_concurrency: f64,
    /// The same with the shared prefix cached once.
    pub effective_concurrency: f64,
    /// Longest request, tokens (llama.cpp: `n_ctx` after fitting).
    pub max_model_len: u64,
    /// Decode speed at the chosen concurrency.
    pub decode: Decode,
    /// The prompt's time to first token.
    pub prefill: Prefill,
    /// llama.cpp's placement (`None` for the other engines).
    pub placement: Option<Placement>,
    /// Whether one request of `max_model_len` tokens fits and the parts fit the GPU.
    pub fits: bool,
    /// Facts about the answer worth reading (a context past training, replicated KV heads).
    pub notes: Vec<String>,
}

/// Answers `setup`, or says which knob is wrong.
pub fn serve(setup: &ServeSetup) -> Result<ServeReport, ServeError> {
    let knobs = setup.resolve()?;
    let (b, plan) = budget(setup, &knobs)?;
    let tensors = plan.map_or_else(Vec::new, |p| {
        p.place(b.gpu_layers + u64::from(b.output_on_gpu))
    });
    Ok(report(setup, knobs, b, tensors))
}

fn report(setup: &ServeSetup, knobs: Knobs, b: Budget, tensors: Vec<PlacedTensor>) -> ServeReport {
    let arch = &setup.arch;
    let kv = KvLayout {
        arch,
        tp: setup.tp,
        dtype: setup.kv_dtype,
        layers: b.gpu_layers,
    };
    let per_token = kv.bytes_per_token().max(1);
    let block = knobs.block_size;
    let len = b.max_model_len;
    let block_bytes = per_token * block;
    let kv_blocks = b.per_gpu.kv_cache / block_bytes.max(1);
    // A request holds whole blocks: its windowed bytes, rounded up to blocks.
    let request_blocks = kv.sequence_bytes(len).div_ceil(block_bytes.max(1)).max(1);
    let max_concurrency = kv_blocks as f64 / request_blocks as f64;
    let shared = (len as f64 * setup.prefix_share) as u64;
    let own_blocks = kv
        .sequence_bytes(len - shared)
        .div_ceil(block_bytes.max(1))
        .max(1);
    let shared_blocks = request_blocks.saturating_sub(own_blocks);
    let effective_concurrency = kv_blocks.saturating_sub(shared_blocks) as f64 / own_blocks as f64;
    let fits_gpu = b.per_gpu.total <= setup.gpu.capacity_bytes;
    let fits = fits_gpu && b.kv_signed > 0 && effective_concurrency >= 1.0;
    let concurrency = setup
        .concurrency
        .unwrap_or((effective_concurrency.floor() as u64).clamp(1, knobs.max_num_seqs.max(1)));
    let ctx = setup.prompt_tokens.min(len);
    let decode = speed::decode(setup, &knobs, &b, concurrency, ctx);
    let prefill = speed::prefill(setup, &knobs, &b, setup.prompt_tokens);
    let placement = (setup.engine == Engine::LlamaCpp).then(|| Placement {
        gpu_layers: b.gpu_layers,
        layers: arch.layers,
        output_on_gpu: b.output_on_gpu,
        cpu_moe_layers: setup.cpu_moe_layers.min(arch.layers),
        host_weights: b.placed.host,
        gpu_weights: b.placed.gpu,
        host_expert_weights: b.placed.host_experts,
        flash_attention: setup.flash_attention,
        tensors,
    });
    ServeReport {
        engine: setup.engine.name(),
        follows: setup.engine.follows(),
        knobs,
        capacity: setup.gpu.capacity_bytes,
        gpus: setup.gpus(),
        replicas: setup.dp,
        per_gpu: b.per_gpu,
        kv_available: b.kv_signed,
        kv_bytes_per_token: per_token,
        kv_tokens: kv_blocks * block,
        block_size: block,
        kv_blocks,
        max_concurrency,
        effective_concurrency,
        max_model_len: len,
        decode,
        prefill,
        placement,
        fits,
        notes: notes(setup, len),
    }
}

fn notes(setup: &ServeSetup, len: u64) -> Vec<String> {
    let arch = &setup.arch;
    let mut notes = Vec::new();
    if len > arch.max_seq {
        notes.push(format!(
            "max_model_len {len} is past the {} tokens the model was trained for: the engines refuse it unless rope scaling (YaRN, for one) is configured, and quality past it is not the model's",
            arch.max_seq
        ));
    }
    if arch.mla.is_none() && setup.tp > arch.kv_heads {
        notes.push(format!(
            "tensor parallel {} exceeds the {} KV heads: each GPU keeps a whole head, replicated {}×, so the KV cache per GPU stops shrinking",
            setup.tp,
            arch.kv_heads,
            setup.tp / arch.kv_heads
        ));
    }
    if arch.mla.is_some() && setup.tp > 1 {
        notes.push(
            "MLA's latent is not split by tensor parallelism: every GPU holds every token's latent"
                .into(),
        );
    }
    if setup.gpu.dense_16bit_flops_per_s.is_none() {
        notes.push(format!(
            "{} has no published tensor FLOP/s: decode is taken as memory-bound and there is no time to first token",
            setup.gpu.name
        ));
    }
    notes
}

/// What would change the answer, each with the concurrency it gives, never one already applied:
/// an FP8 KV cache, twice the tensor parallelism, an FP8 checkpoint, half the `max_model_len`,
/// half the prompt shared as a cached prefix.
pub fn advice(setup: &ServeSetup, current: &ServeReport) -> Vec<String> {
    let mut out = Vec::new();
    let mut try_change = |what: String, changed: ServeSetup| {
        if let Ok(r) = serve(&changed) {
            if r.effective_concurrency > current.effective_concurrency * 1.05
                || (r.fits && !current.fits)
            {
                out.push(format!(
                    "{what}: {} requests of {} tokens at once (now {})",
                    conc(r.effective_concurrency),
                    crate::numbers::grouped(r.max_model_len as usize),
                    conc(current.effective_concurrency)
                ));
            }
        }
    };
    let llama = setup.engine == Engine::LlamaCpp;
    let (cheaper_kv, kv_words) = if llama {
        (KvDtype::Q80, "a Q8_0")
    } else {
        (KvDtype::Fp8, "an FP8")
    };
    if setup.kv_dtype == KvDtype::Bf16 {
        try_change(
            format!("{kv_words} KV cache"),
            ServeSetup {
                kv_dtype: cheaper_kv,
                ..setup.clone()
            },
        );
    }
    if !llama && setup.tp < setup::TP_LIMIT {
        try_change(
            format!("tensor parallel {}", setup.tp * 2),
            ServeSetup {
                tp: setup.tp * 2,
                ..setup.clone()
            },
        );
    }
    if !llama && matches!(setup.checkpoint, Checkpoint::Bf16 | Checkpoint::Fp16) {
        try_change(
            "an FP8 checkpoint".into(),
            ServeSetup {
                checkpoint: Checkpoint::Fp8,
                ..setup.clone()
            },
        );
    }
    if llama
        && matches!(
            setup.checkpoint,
            Checkpoint::Bf16 | Checkpoint::Fp16 | Checkpoint::Q80
        )
    {
        try_change(
            "a Q4_K_M file".into(),
            ServeSetup {
                checkpoint: Checkpoint::Q4KM,
                ..setup.clone()
            },
        );
    }
    let half = current.max_model_len / 2;
    if half >= setup.prompt_tokens && half >= 1 {
        try_change(
            format!("max_model_len {}", crate::numbers::grouped(half as usize)),
            ServeSetup {
                max_model_len: Some(half),
                ..setup.clone()
            },
        );
    }
    if setup.prefix_share == 0.0 && !llama {
        try_change(
            "prefix caching with half of every request shared".into(),
            ServeSetup {
                prefix_share: 0.5,
                ..setup.clone()
            },
        );
    }
    out
}

/// A concurrency for sentences: "12.4", "0.82", "1,024".
pub fn conc(c: f64) -> String {
    if c >= 1000.0 {
        crate::numbers::grouped(c.floor() as usize)
    } else if c >= 10.0 {
        format!("{c:.1}")
    } else {
        format!("{c:.2}")
    }
}

/// The verdict in one sentence: fits with how many requests at what context, or why not.
pub fn verdict(setup: &ServeSetup, r: &ServeReport) -> String {
    let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
    let gpus = if r.gpus > 1 {
        format!("{} × {}", r.gpus, setup.gpu.name)
    } else {
        setup.gpu.name.to_string()
    };
    if r.per_gpu.total > r.capacity && r.kv_available <= 0 {
        return format!(
            "Does not fit on {gpus}: the weights ({}) and the profiling run need {} more than {} leaves for them",
            gib(r.per_gpu.weights),
            gib((-r.kv_available).max(0) as u64),
            setup.engine.label()
        );
    }
    if r.kv_available <= 0 {
        let share = match (setup.engine.fraction_knob(), r.knobs.memory_fraction) {
            (Some((knob, _)), Some(f)) => format!("{} at {knob} {f}", setup.engine.label()),
            _ => setup.engine.label().to_string(),
        };
        return format!(
            "Does not fit on {gpus}: after the weights ({} per GPU), {share} leaves no KV cache ({} short)",
            gib(r.per_gpu.weights),
            gib((-r.kv_available) as u64)
        );
    }
    if r.effective_concurrency < 1.0 {
        return format!(
            "Does not fit: the KV cache holds {} tokens, less than one request of {} (max_model_len)",
            crate::numbers::grouped(r.kv_tokens as usize),
            crate::numbers::grouped(r.max_model_len as usize)
        );
    }
    let replicas = if r.replicas > 1 {
        format!(
            " on each of {} replicas ({} in all)",
            r.replicas,
            conc(r.effective_concurrency * r.replicas as f64)
        )
    } else {
        String::new()
    };
    format!(
        "Fits on {gpus}: {} requests of {} tokens at once{replicas} ({} KV tokens), {:.0} tokens/s each at {} concurrent",
        conc(r.effective_concurrency),
        crate::numbers::grouped(r.max_model_len as usize),
        crate::numbers::grouped(r.kv_tokens as usize),
        r.decode.tokens_per_s,
        r.decode.concurrency
    )
}
