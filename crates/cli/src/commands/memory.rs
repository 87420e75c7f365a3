//! `bitbudget memory`: per-GPU memory of a training or serving setup, as text or JSON.

use crate::commands::presets::{closest, parse_count};
use bitbudget_math::memory::conventions::compare_conventions;
use bitbudget_math::memory::{
    estimate, find_gpu, find_model, format_bytes, format_count, gpu_presets, model_presets,
    Breakdown, Convention, Dtype, LoraTargets, Mlp, Mode, ModelArch, ModelSpec, Offload, Optimizer,
    Recompute, Setup, Units, ZeroStage,
};
use clap::Args;
use serde_json::{json, Value};

/// Arguments of `memory`. Counts accept scientific notation (`--params 7.5e9`).
#[derive(Args)]
pub struct MemoryArgs {
    /// Model preset id (see `bitbudget models`).
    #[arg(long, conflicts_with = "params")]
    model: Option<String>,
    /// Parameter count only (model states; no activations or KV cache), e.g. 7.5e9.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    params: Option<u64>,
    /// Custom architecture: transformer blocks.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true, requires_all = ["hidden", "heads"])]
    layers: Option<u64>,
    /// Custom architecture: hidden size.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    hidden: Option<u64>,
    /// Custom architecture: attention heads.
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    heads: Option<u64>,
    /// Custom architecture: KV heads (default = heads).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    kv_heads: Option<u64>,
    /// Custom architecture: FFN size (default 4 × hidden).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    ffn: Option<u64>,
    /// Custom architecture: vocabulary (default 32000).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    vocab: Option<u64>,
    /// Custom architecture: gelu or swiglu (default gelu).
    #[arg(long, default_value = "gelu", value_parser = ["gelu", "swiglu"])]
    mlp: String,
    /// train, lora, qlora or inference.
    #[arg(long, default_value = "train")]
    mode: Mode,
    /// Weight dtype: fp32 fp16 bf16 fp8 int8 int4.
    #[arg(long, default_value = "bf16")]
    dtype: Dtype,
    /// adamw, adamw-8bit, sgd-momentum or sgd.
    #[arg(long, default_value = "adamw")]
    optimizer: Optimizer,
    /// ZeRO stage 0-3 (0 = DDP), or FSDP no_shard / shard_grad_op / full_shard.
    #[arg(long, default_value = "0")]
    zero: ZeroStage,
    /// Data-parallel degree.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    dp: u64,
    /// Tensor-parallel degree.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    tp: u64,
    /// Pipeline-parallel degree.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pp: u64,
    /// Megatron sequence parallelism.
    #[arg(long)]
    sequence_parallel: bool,
    /// Micro-batch per GPU.
    #[arg(long, default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    batch: u64,
    /// Sequence length.
    #[arg(long, default_value = "2048", value_parser = parse_count, allow_hyphen_values = true)]
    seq: u64,
    /// none, selective or full.
    #[arg(long, default_value = "none")]
    recompute: Recompute,
    /// FlashAttention (no s×s score matrices).
    #[arg(long)]
    flash_attention: bool,
    /// none, optimizer or all.
    #[arg(long, default_value = "none")]
    offload: Offload,
    /// KV cache dtype: fp32 fp16 bf16 fp8 int8 int4.
    #[arg(long, default_value = "bf16")]
    kv_dtype: Dtype,
    /// LoRA rank.
    #[arg(long, default_value = "16", value_parser = parse_count, allow_hyphen_values = true)]
    lora_rank: u64,
    /// LoRA targets, comma separated from q,k,v,o,mlp.
    #[arg(long, default_value = "q,v")]
    lora_targets: String,
    /// Add an FP32 gradient-accumulation buffer (+4 B per trainable parameter).
    #[arg(long)]
    fp32_grad_accum: bool,
    /// CUDA context and allocator reserve per GPU in bytes (default 1 GiB).
    #[arg(long, value_parser = parse_count, allow_hyphen_values = true)]
    overhead: Option<u64>,
    /// GPU preset id (see `bitbudget gpus`).
    #[arg(long)]
    gpu: Option<String>,
    /// bitbudget, zero, hf-megatron or deepspeed.
    #[arg(long, default_value = "bitbudget")]
    convention: Convention,
    /// GPUs per node (DeepSpeed's CPU estimate is per node).
    #[arg(long, default_value = "8", value_parser = parse_count, allow_hyphen_values = true)]
    gpus_per_node: u64,
    /// gb (10^9) or gib (2^30) for text output and formulas.
    #[arg(long, default_value = "gb")]
    units: Units,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn model_spec(a: &MemoryArgs) -> Result<ModelSpec, String> {
    if let Some(id) = &a.model {
        let ids: Vec<&str> = model_presets().iter().map(|m| m.id).collect();
        let m = find_model(id).ok_or_else(|| {
            format!(
                "unknown model '{id}'; closest: {}",
                closest(id, &ids).join(", ")
            )
        })?;
        return Ok(ModelSpec::Arch {
            name: m.id.into(),
            arch: Box::new(m.arch),
        });
    }
    if let Some(n) = a.params {
        return Ok(ModelSpec::Params(n));
    }
    match (a.layers, a.hidden, a.heads) {
        (Some(layers), Some(hidden), Some(heads)) => {
            let mlp = if a.mlp == "swiglu" {
                Mlp::Swiglu
            } else {
                Mlp::Gelu
            };
            let ffn = a.ffn.unwrap_or(hidden.saturating_mul(4));
            let arch = ModelArch::custom(
                layers,
                hidden,
                heads,
                a.kv_heads.unwrap_or(heads),
                ffn,
                a.vocab.unwrap_or(32000),
                mlp,
            );
            Ok(ModelSpec::Arch {
                name: "custom".into(),
                arch: Box::new(arch),
            })
        }
        _ => Err(
            "give --model ID, --params N, or a custom architecture (--layers --hidden --heads ...)"
                .into(),
        ),
    }
}

fn lora_targets(text: &str) -> Result<LoraTargets, String> {
    let mut t = LoraTargets {
        q: false,
        k: false,
        v: false,
        o: false,
        mlp: false,
    };
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "q" => t.q = true,
            "k" => t.k = true,
            "v" => t.v = true,
            "o" => t.o = true,
            "mlp" => t.mlp = true,
            other => {
                return Err(format!(
                    "unknown LoRA target '{other}'; expected q, k, v, o or mlp"
                ))
            }
        }
    }
    Ok(t)
}

/// Builds the setup the arguments describe.
fn setup(a: &MemoryArgs) -> Result<Setup, String> {
    let gpu = match &a.gpu {
        None => None,
        Some(id) => {
            let ids: Vec<&str> = gpu_presets().iter().map(|g| g.id).collect();
            Some(find_gpu(id).ok_or_else(|| {
                format!(
                    "unknown GPU '{id}'; closest: {}",
                    closest(id, &ids).join(", ")
                )
            })?)
        }
    };
    let mut s = Setup::new(model_spec(a)?);
    s.mode = a.mode;
    s.dtype = a.dtype;
    s.optimizer = a.optimizer;
    s.zero = a.zero;
    (s.dp, s.tp, s.pp) = (a.dp, a.tp, a.pp);
    s.sequence_parallel = a.sequence_parallel;
    (s.batch, s.seq) = (a.batch, a.seq);
    s.recompute = a.recompute;
    s.flash_attention = a.flash_attention;
    s.offload = a.offload;
    s.kv_dtype = a.kv_dtype;
    s.lora_rank = a.lora_rank;
    s.lora_targets = lora_targets(&a.lora_targets)?;
    s.fp32_grad_accum = a.fp32_grad_accum;
    if let Some(o) = a.overhead {
        s.overhead_bytes = o;
    }
    s.gpu = gpu;
    s.convention = a.convention;
    s.gpus_per_node = a.gpus_per_node;
    s.units = a.units;
    Ok(s)
}

/// Runs `memory`.
pub fn run(args: MemoryArgs) -> Result<(), String> {
    let s = setup(&args)?;
    let b = estimate(&s).map_err(|e| e.to_string())?;
    if args.json {
        let text = serde_json::to_string_pretty(&to_json(&s, &b)).map_err(|e| e.to_string())?;
        crate::io::emit(&format!("{text}\n"))?;
    } else {
        crate::io::emit(&to_text(&s, &b))?;
    }
    Ok(())
}

fn model_name(s: &Setup) -> String {
    match &s.model {
        ModelSpec::Arch { name, .. } => name.clone(),
        ModelSpec::Params(n) => format!("{} params", format_count(*n)),
    }
}

/// The JSON document: integer bytes per GPU, formulas, the GPU verdict and the conventions table.
pub fn to_json(s: &Setup, b: &Breakdown) -> Value {
    let lines = [
        ("weights", &b.weights),
        ("gradients", &b.gradients),
        ("optimizer", &b.optimizer),
        ("activations", &b.activations),
        ("kv_cache", &b.kv_cache),
        ("overhead", &b.overhead),
    ];
    let mut per_gpu = serde_json::Map::new();
    let mut formulas = serde_json::Map::new();
    for (name, line) in lines {
        per_gpu.insert(name.into(), json!(line.bytes));
        formulas.insert(
            name.into(),
            json!({ "formula": line.formula, "why": line.why }),
        );
    }
    per_gpu.insert("model_states".into(), json!(b.model_states));
    per_gpu.insert("total".into(), json!(b.total));
    let gpu = s.gpu.as_ref().map(|g| json!({ "id": g.id, "name": g.name, "capacity_bytes": g.capacity_bytes, "source": g.source }));
    let fits = s.gpu.as_ref().map(|g| b.total <= g.capacity_bytes);
    let headroom = s
        .gpu
        .as_ref()
        .map(|g| g.capacity_bytes as i128 - b.total as i128);
    let conventions: Vec<Value> = compare_conventions(s)
        .into_iter()
        .map(|row| match row.model_states {
            Ok(bytes) => json!({ "name": row.convention.name(), "model_states": bytes, "cpu": row.cpu, "explanation": row.explanation }),
            Err(why) => json!({ "name": row.convention.name(), "model_states": null, "unavailable": why, "explanation": row.explanation }),
        })
        .collect();
    json!({
        "model": model_name(s),
        "params": b.params,
        "trainable_params": b.trainable_params,
        "setup": {
            "mode": s.mode.name(), "dtype": s.dtype.name(), "optimizer": s.optimizer.name(), "zero": s.zero.0,
            "dp": s.dp, "tp": s.tp, "pp": s.pp, "gpus": b.gpus, "sequence_parallel": s.sequence_parallel,
            "batch": s.batch, "seq": s.seq, "recompute": s.recompute.name(), "flash_attention": s.flash_attention,
            "offload": s.offload.name(), "kv_dtype": s.kv_dtype.name(), "lora_rank": s.lora_rank,
            "convention": s.convention.name(), "units": s.units.to_string(),
        },
        "per_gpu": per_gpu,
        "formulas": formulas,
        "cpu_offload_per_gpu": b.cpu_offload,
        "gpu": gpu,
        "fits": fits,
        "headroom_bytes": headroom.map(|h| h as i64),
        "conventions": conventions,
        "notes": b.notes,
    })
}

fn to_text(s: &Setup, b: &Breakdown) -> String {
    let u = s.units;
    let mut out = format!(
        "{} · {} params ({} trainable) · {} {} · {} · dp {} × tp {} × pp {} = {} GPUs\n",
        model_name(s),
        format_count(b.params),
        format_count(b.trainable_params),
        s.mode,
        s.dtype,
        s.zero.label(),
        s.dp,
        s.tp,
        s.pp,
        b.gpus
    );
    for (name, line) in [
        ("weights", &b.weights),
        ("gradients", &b.gradients),
        ("optimizer", &b.optimizer),
        ("activations", &b.activations),
        ("kv cache", &b.kv_cache),
        ("overhead", &b.overhead),
    ] {
        out += &format!(
            "  {name:<12}{:>12}   {}\n",
            format_bytes(line.bytes, u),
            line.formula
        );
    }
    out += &format!(
        "  {:<12}{:>12}   per GPU\n",
        "total",
        format_bytes(b.total, u)
    );
    if b.cpu_offload > 0 {
        out += &format!(
            "  {:<12}{:>12}   in CPU memory\n",
            "cpu",
            format_bytes(b.cpu_offload, u)
        );
    }
    if let Some(g) = &s.gpu {
        let verdict = if b.total <= g.capacity_bytes {
            format!(
                "fits on a {} ({} free)",
                g.name,
                format_bytes(g.capacity_bytes - b.total, u)
            )
        } else {
            format!(
                "does not fit: needs {:.2}x a {}",
                b.total as f64 / g.capacity_bytes as f64,
                g.name
            )
        };
        out += &format!("  {verdict}\n");
    }
    for note in &b.notes {
        out += &format!("  note: {note}\n");
    }
    out
}
