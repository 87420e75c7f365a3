//! `bitbudget memory`: per-GPU memory of a training or serving setup, as text or JSON.

use crate::commands::presets::{closest, parse_count};
use bitbudget_math::memory::report::report;
use bitbudget_math::memory::{
    find_gpu, find_model, gpu_presets, model_presets, Breakdown, Convention, Dtype, LoraTargets,
    Mlp, Mode, ModelArch, ModelSpec, Offload, Optimizer, Recompute, Setup, ZeroStage,
};
use bitbudget_math::numbers::{format_bytes, format_count, Units};
use clap::Args;

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
    let r = report(&s).map_err(|e| e.to_string())?;
    let b = &r.breakdown;
    if args.json {
        let text = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
        crate::io::emit(&format!("{text}\n"))?;
    } else {
        crate::io::emit(&to_text(&s, b))?;
    }
    Ok(())
}

fn model_name(s: &Setup) -> String {
    match &s.model {
        ModelSpec::Arch { name, .. } => name.clone(),
        ModelSpec::Params(n) => format!("{} params", format_count(*n)),
    }
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
