//! "Will this GGUF fit?": a parsed GGUF header's architecture, tensors, exact weight bytes and
//! KV cache per token, and how many of its blocks fit on a GPU with a given context (llama.cpp's
//! partial offload, `--n-gpu-layers`).
//!
//! KV cache per token and block (llama.cpp's `n_embd_k_gqa` + `n_embd_v_gqa`): `head_count_kv`
//! × (`key_length` + `value_length`), the lengths defaulting to `embedding_length` /
//! `head_count`; `head_count_kv` may be one number or one per block; MLA models
//! (`attention.kv_lora_rank`) cache the latent and the rotary key instead. Each element takes the
//! KV dtype's bytes (llama.cpp's default cache type is F16).
//!
//! Offload (llama.cpp `llama_model::load_tensors`): the last `n_gpu_layers` blocks go to the GPU
//! with their KV cache, the token embedding stays in CPU memory, and the output head and final
//! norm go to the GPU only when every block does. The per-GPU overhead (CUDA context, compute
//! buffers) is the job's `overhead` option.

use crate::gguf::{Gguf, GgufWriter, Value};
use crate::memory::job::Job;
use crate::memory::model::gpus::{find_gpu, GpuPreset};
use crate::memory::model::models::find_model;
use crate::memory::options::Dtype;
use crate::memory::states::gguf_mix::{mix_text, typed_tensors, TypedTensor};
use crate::memory::states::gguf_tensors::GgufArch;
use crate::numbers::{format_bytes, human_bytes, Units};
use serde::Serialize;

/// What a GGUF header says about memory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GgufModel {
    /// `general.architecture`, or "unknown".
    pub architecture: String,
    /// `general.name`, when present.
    pub name: Option<String>,
    /// Blocks (`{arch}.block_count`, or one more than the highest `blk.N` in the tensor names),
    /// at most [`MAX_BLOCKS`].
    pub blocks: u64,
    /// Bytes of each block's tensors.
    pub block_bytes: Vec<u64>,
    /// Context the model was trained for (`{arch}.context_length`), when present.
    pub context_length: Option<u64>,
    /// KV-cache elements one token stores across all blocks.
    pub kv_elements_per_token: u64,
    /// Every tensor with its type and bytes, in file order.
    pub tensors: Vec<TypedTensor>,
    /// Bytes of all tensor data.
    pub weight_bytes: u64,
    /// Each type's share of the bytes ("q4_K 62%, q6_K 33%, ...").
    pub mix: String,
    /// Caveats: a block count beyond llama.cpp's limit, missing attention sizes.
    pub notes: Vec<String>,
}

/// Most blocks a model can have (llama.cpp's `LLAMA_MAX_LAYERS`, src/llama-hparams.h).
pub const MAX_BLOCKS: u64 = 512;

fn get_u64(g: &Gguf, key: &str) -> Option<u64> {
    g.get(key).and_then(Value::as_u64)
}

/// A per-block number that is either one value or an array with one value per block, summed over
/// `blocks` blocks.
fn per_block_sum(g: &Gguf, key: &str, blocks: u64) -> Option<u64> {
    match g.get(key)? {
        Value::Array(a) if !a.items.is_empty() => a
            .items
            .iter()
            .try_fold(0u64, |s, v| s.checked_add(v.as_u64()?)),
        v => v.as_u64()?.checked_mul(blocks),
    }
}

/// The block index of a `blk.N.` tensor name.
fn block_of(name: &str) -> Option<u64> {
    name.strip_prefix("blk.")?.split('.').next()?.parse().ok()
}

impl GgufModel {
    /// Reads the facts from a parsed header. Missing attention metadata gives a KV cache of 0
    /// (said in [`GgufModel::kv_note`]).
    pub fn from_gguf(g: &Gguf) -> GgufModel {
        let arch = g.architecture().unwrap_or("unknown").to_string();
        let key = |k: &str| format!("{arch}.{k}");
        let mut notes = Vec::new();
        let from_names = g
            .tensors
            .iter()
            .filter_map(|t| block_of(&t.name))
            .filter(|b| *b < MAX_BLOCKS)
            .max();
        let declared = get_u64(g, &key("block_count"));
        if let Some(n) = declared.filter(|n| *n > MAX_BLOCKS) {
            notes.push(format!("block_count {n} is above llama.cpp's limit of {MAX_BLOCKS}: the blocks are counted from the tensor names"));
        }
        let blocks = declared
            .filter(|n| *n <= MAX_BLOCKS)
            .or(from_names.map(|b| b + 1))
            .unwrap_or(0);
        let mut block_bytes = vec![0u64; blocks as usize];
        for t in &g.tensors {
            if let Some(b) = block_of(&t.name).and_then(|b| block_bytes.get_mut(b as usize)) {
                *b = b.saturating_add(t.bytes);
            }
        }
        let kv_elements_per_token = kv_elements(g, &key, blocks).unwrap_or(0);
        if kv_elements_per_token == 0 {
            notes.push(format!(
                "the header has no attention sizes for '{arch}': the KV cache is counted as 0"
            ));
        }
        let tensors = TypedTensor::all_in(g);
        GgufModel {
            name: g
                .get("general.name")
                .and_then(Value::as_str)
                .map(String::from),
            context_length: get_u64(g, &key("context_length")),
            blocks,
            block_bytes,
            kv_elements_per_token,
            notes,
            weight_bytes: g.tensor_bytes(),
            mix: mix_text(&tensors),
            tensors,
            architecture: arch,
        }
    }

    /// Bytes of the output head and final norm (what follows the blocks on the GPU).
    fn output_bytes(&self) -> u64 {
        self.tensors
            .iter()
            .filter(|t| t.name.starts_with("output"))
            .map(|t| t.bytes)
            .sum()
    }
}

fn kv_elements(g: &Gguf, key: &dyn Fn(&str) -> String, blocks: u64) -> Option<u64> {
    if let Some(rank) = get_u64(g, &key("attention.kv_lora_rank")) {
        let rope = get_u64(g, &key("rope.dimension_count")).unwrap_or(0);
        return rank.checked_add(rope)?.checked_mul(blocks);
    }
    let heads = get_u64(g, &key("attention.head_count")).filter(|h| *h > 0);
    let head_dim = heads.and_then(|h| Some(get_u64(g, &key("embedding_length"))? / h));
    let k = get_u64(g, &key("attention.key_length")).or(head_dim)?;
    let v = get_u64(g, &key("attention.value_length")).or(head_dim)?;
    let kv_heads = per_block_sum(g, &key("attention.head_count_kv"), blocks)
        .or_else(|| per_block_sum(g, &key("attention.head_count"), blocks))?;
    kv_heads.checked_mul(k.checked_add(v)?)
}

/// How a GGUF model with a context sits on one GPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GgufFit {
    /// Tokens of context.
    pub context: u64,
    /// Bytes per KV-cache element.
    pub kv_element_bytes: u64,
    /// KV cache for the whole context, all blocks.
    pub kv_bytes: u64,
    /// Weights plus KV cache plus overhead, all on one GPU.
    pub total_bytes: u64,
    /// The GPU's id.
    pub gpu: String,
    /// The GPU's memory.
    pub gpu_bytes: u64,
    /// Blocks that fit on the GPU (the last ones, as llama.cpp offloads them).
    pub gpu_layers: u64,
    /// All blocks.
    pub layers: u64,
    /// Whether everything (blocks, output head, KV cache) fits on the GPU.
    pub fits: bool,
    /// Bytes on the GPU with `gpu_layers` blocks offloaded (overhead included).
    pub on_gpu_bytes: u64,
    /// Bytes left in CPU memory.
    pub on_cpu_bytes: u64,
}

/// Places `model` with `context` tokens of KV cache (`kv_element_bytes` each) on `gpu`, keeping
/// `overhead` bytes free: the most blocks that fit (from the last), and the output head too when
/// every block does. Saturating arithmetic; never panics.
pub fn fit(
    model: &GgufModel,
    context: u64,
    kv_element_bytes: u64,
    gpu: &GpuPreset,
    overhead: u64,
) -> GgufFit {
    let blocks = model.blocks.max(1);
    let kv_bytes = model
        .kv_elements_per_token
        .saturating_mul(context)
        .saturating_mul(kv_element_bytes);
    let kv_per_block = kv_bytes / blocks;
    let budget = gpu.capacity_bytes.saturating_sub(overhead);
    let mut used = 0u64;
    let mut gpu_layers = 0;
    for bytes in model.block_bytes.iter().rev() {
        let need = bytes.saturating_add(kv_per_block);
        if used.saturating_add(need) > budget {
            break;
        }
        used += need;
        gpu_layers += 1;
    }
    let all_blocks = gpu_layers == model.blocks;
    let rest = kv_bytes - kv_per_block * blocks;
    let tail = model.output_bytes().saturating_add(rest);
    let fits = all_blocks && used.saturating_add(tail) <= budget;
    if fits {
        used += tail;
    }
    let total_bytes = model
        .weight_bytes
        .saturating_add(kv_bytes)
        .saturating_add(overhead);
    GgufFit {
        context,
        kv_element_bytes,
        kv_bytes,
        total_bytes,
        gpu: gpu.id.into(),
        gpu_bytes: gpu.capacity_bytes,
        gpu_layers,
        layers: model.blocks,
        fits,
        on_gpu_bytes: used.saturating_add(overhead),
        on_cpu_bytes: model
            .weight_bytes
            .saturating_add(kv_bytes)
            .saturating_sub(used),
    }
}

impl GgufFit {
    /// The answer in one sentence: "fits on … with … to spare", or how many blocks fit and what
    /// stays in CPU memory.
    pub fn sentence(&self, gpu_name: &str, units: Units) -> String {
        let b = |n: u64| format_bytes(n, units);
        if self.fits {
            format!(
                "Fits on one {gpu_name} ({}) with {} tokens of context: {} used, {} to spare.",
                b(self.gpu_bytes),
                self.context,
                b(self.on_gpu_bytes),
                b(self.gpu_bytes.saturating_sub(self.on_gpu_bytes))
            )
        } else if self.gpu_layers == 0 {
            format!(
                "Not even one block fits on one {gpu_name} ({}) with {} tokens of context: it needs {} in all; run it on the CPU.",
                b(self.gpu_bytes),
                self.context,
                b(self.total_bytes)
            )
        } else {
            format!(
                "Does not fit on one {gpu_name} ({}) with {} tokens of context ({} in all): {} of {} blocks fit on the GPU (llama.cpp --n-gpu-layers {}); {} stay in CPU memory.",
                b(self.gpu_bytes),
                self.context,
                b(self.total_bytes),
                self.gpu_layers,
                self.layers,
                self.gpu_layers,
                b(self.on_cpu_bytes)
            )
        }
    }
}

/// Everything the CLI and the page say about a GGUF file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GgufReport {
    /// The model's facts and tensors.
    pub model: GgufModel,
    /// KV-cache bytes one token adds (all blocks, the job's KV dtype).
    pub kv_bytes_per_token: u64,
    /// The fit on the job's GPU, when one is chosen.
    pub fit: Option<GgufFit>,
    /// The fit in one sentence, when a GPU is chosen.
    pub verdict: Option<String>,
    /// Caveats: missing metadata, a context longer than the model's.
    pub notes: Vec<String>,
}

/// The report for header `g` under `job`'s context (`seq`), KV dtype, GPU and overhead.
pub fn gguf_report(g: &Gguf, job: &Job) -> GgufReport {
    let model = GgufModel::from_gguf(g);
    let kv_element_bytes = job.kv_dtype.bits().div_ceil(8);
    let mut notes = model.notes.clone();
    if let Some(trained) = model.context_length.filter(|c| job.seq > *c) {
        notes.push(format!(
            "the context of {} tokens is longer than the {trained} the model was trained for",
            job.seq
        ));
    }
    let gpu = job.gpu.as_deref().and_then(find_gpu);
    let fit = gpu
        .as_ref()
        .map(|g| fit(&model, job.seq, kv_element_bytes, g, job.overhead_bytes));
    let verdict = gpu
        .as_ref()
        .zip(fit.as_ref())
        .map(|(g, f)| f.sentence(g.name, job.units));
    GgufReport {
        kv_bytes_per_token: model.kv_elements_per_token.saturating_mul(kv_element_bytes),
        model,
        fit,
        verdict,
        notes,
    }
}

/// A GGUF header as llama-quantize would write it for model preset `id` in file type `d` (the
/// attention metadata and every tensor with its type; no tokenizer), for tests and examples.
/// `None` for an unknown preset or a plain dtype.
pub fn preset_writer(id: &str, d: Dtype) -> Option<GgufWriter> {
    let m = find_model(id)?;
    let ga = GgufArch::of_model(id);
    let a = &m.arch;
    let arch = ga.name();
    let key = |k: &str| format!("{arch}.{k}");
    let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let w = GgufWriter::new()
        .string("general.architecture", arch)
        .string("general.name", m.name)
        .u32(&key("block_count"), small(a.layers))
        .u32(&key("context_length"), small(a.max_seq))
        .u32(&key("embedding_length"), small(a.hidden))
        .u32(&key("attention.head_count"), small(a.heads))
        .u32(&key("attention.head_count_kv"), small(a.kv_heads))
        .u32(&key("attention.key_length"), small(a.head_dim))
        .u32(&key("attention.value_length"), small(a.head_dim))
        .u32(&key("feed_forward_length"), small(a.ffn));
    let w = if a.experts > 1 {
        w.u32(&key("expert_count"), small(a.experts))
            .u32(&key("expert_used_count"), small(a.active_experts))
    } else {
        w
    };
    let typed = typed_tensors(a, ga, d)?;
    Some(
        typed
            .iter()
            .fold(w, |w, t| w.tensor(&t.name, &t.dims, t.ty)),
    )
}

impl GgufReport {
    /// "Llama 3 8B (llama) · 32 blocks · 291 tensors · weights 4.91 GB (q4_K 71%, q6_K 29%, …)".
    pub fn headline(&self, units: Units) -> String {
        let m = &self.model;
        format!(
            "{} ({}) · {} blocks · {} tensors · weights {} ({})",
            m.name.as_deref().unwrap_or("unnamed model"),
            m.architecture,
            m.blocks,
            m.tensors.len(),
            format_bytes(m.weight_bytes, units),
            m.mix
        )
    }

    /// "KV cache (bf16): 131.1 KB per token, 1.07 GB for 8192 tokens (trained context 8192)",
    /// for `job`'s KV dtype and context (per token in decimal units that read best, the total in
    /// the job's units).
    pub fn kv_text(&self, job: &Job) -> String {
        let b = |n: u64| format_bytes(n, job.units);
        format!(
            "KV cache ({}): {} per token, {} for {} tokens{}",
            job.kv_dtype,
            human_bytes(self.kv_bytes_per_token),
            b(self.kv_bytes_per_token.saturating_mul(job.seq)),
            job.seq,
            self.model
                .context_length
                .map(|c| format!(" (trained context {c})"))
                .unwrap_or_default()
        )
    }
}
