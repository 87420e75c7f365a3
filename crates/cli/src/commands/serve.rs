//! `bitbudget serve`: a model served by vLLM, SGLang, TensorRT-LLM or llama.cpp: the per-GPU
//! budget in the engine's terms, the KV cache, the concurrency it holds, and tokens per second.
//! Flags use the engines' spellings with dashes.

use crate::commands::chart_out::write_svg;
use crate::io::{emit, read_all};
use bitbudget_charts::documents::{self, ServeChart};
use bitbudget_math::memory::model::hf_config::parse_config;
use bitbudget_math::memory::{find_gpu, find_model};
use bitbudget_math::numbers::{format_bytes, grouped, Units};
use bitbudget_math::serve::logged::comparisons;
use bitbudget_math::serve::quant_config::checkpoint_of;
use bitbudget_math::serve::setup::DEFAULT_PROMPT_TOKENS;
use bitbudget_math::serve::tensor_placement::{
    placement_rows, rule_text, Device, ModelFile, PlacedTensor, Rule,
};
use bitbudget_math::serve::{advice, serve, verdict, Checkpoint, Engine, KvDtype, ServeSetup};
use clap::Args;

/// Arguments of `serve`.
#[derive(Args)]
#[command(
    after_help = "Give --model ID, --config config.json or --gguf FILE (llama.cpp). Every knob left out takes the engine's default."
)]
pub struct ServeArgs {
    /// The engine: vllm, sglang, trt-llm or llama.cpp [default: vllm; llama.cpp with --gguf].
    #[arg(long, value_parser = |s: &str| s.parse::<Engine>())]
    engine: Option<Engine>,
    /// A model preset (see `bitbudget models`).
    #[arg(long, conflicts_with_all = ["config", "gguf"])]
    model: Option<String>,
    /// A Hugging Face config.json (- = stdin): its quantization_config sets --dtype.
    #[arg(long, conflicts_with = "gguf")]
    config: Option<String>,
    /// A GGUF file for llama.cpp: only its header is read; its tensors' real sizes are placed.
    #[arg(long, conflicts_with = "dtype")]
    gguf: Option<String>,
    /// GPU preset (see `bitbudget gpus`).
    #[arg(long, default_value = "h100-80gb")]
    gpu: String,
    /// Tensor-parallel degree (GPUs).
    #[arg(long, visible_alias = "tensor-parallel-size", default_value_t = 1)]
    tp: u64,
    /// Pipeline stages (vLLM --pipeline-parallel-size, SGLang --pp-size).
    #[arg(long, visible_aliases = ["pp", "pp-size"], default_value_t = 1)]
    pipeline_parallel_size: u64,
    /// Data-parallel replicas (vLLM --data-parallel-size, SGLang --dp-size).
    #[arg(long, visible_aliases = ["dp", "dp-size"], default_value_t = 1)]
    data_parallel_size: u64,
    /// Routed experts split whole over the tp × dp GPUs (vLLM --enable-expert-parallel).
    #[arg(long)]
    enable_expert_parallel: bool,
    /// How the checkpoint stores its weights: bf16, fp16, fp8, int8, int4, mxfp4, nvfp4, or a
    /// llama.cpp type (q4_k_m, q5_k_m, q6_k, q8_0, q4_0).
    #[arg(long, value_parser = |s: &str| s.parse::<Checkpoint>())]
    dtype: Option<Checkpoint>,
    /// KV cache type: bf16 (the model's; llama.cpp f16), fp8, or llama.cpp's q8_0, q4_0.
    #[arg(long, default_value = "bf16", value_parser = |s: &str| s.parse::<KvDtype>())]
    kv_dtype: KvDtype,
    /// vLLM's fraction of total memory (SGLang: --mem-fraction-static; TensorRT-LLM:
    /// --free-gpu-memory-fraction; the same flag sets each).
    #[arg(long, visible_aliases = ["mem-fraction-static", "free-gpu-memory-fraction"], allow_hyphen_values = true)]
    gpu_memory_utilization: Option<f64>,
    /// Longest request in tokens (llama.cpp: --ctx-size).
    #[arg(long, visible_alias = "ctx-size")]
    max_model_len: Option<u64>,
    /// Most sequences per batch.
    #[arg(long)]
    max_num_seqs: Option<u64>,
    /// Most tokens per forward pass (SGLang --chunked-prefill-size, llama.cpp --ubatch-size).
    #[arg(long)]
    max_num_batched_tokens: Option<u64>,
    /// Tokens per KV block (page).
    #[arg(long)]
    block_size: Option<u64>,
    /// No CUDA graphs.
    #[arg(long)]
    enforce_eager: bool,
    /// Share of each request that is a prefix every request shares (prefix caching), 0 to <1.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    prefix_share: f64,
    /// Concurrent sequences for the speed figures (default: as many as fit).
    #[arg(long)]
    concurrency: Option<u64>,
    /// Prompt tokens of a request.
    #[arg(long, default_value_t = DEFAULT_PROMPT_TOKENS)]
    prompt_tokens: u64,
    /// llama.cpp --n-gpu-layers (default: as many as fit).
    #[arg(long, visible_alias = "ngl")]
    n_gpu_layers: Option<u64>,
    /// llama.cpp --n-cpu-moe: the first N blocks keep their experts on the CPU.
    #[arg(long, default_value_t = 0)]
    n_cpu_moe: u64,
    /// llama.cpp -ot / --override-tensor: PATTERN=CPU or PATTERN=CUDA0, comma-separated and
    /// repeatable (first match wins), e.g. 'exps=CPU'.
    #[arg(long, visible_alias = "ot", value_name = "PATTERN=BUFFER")]
    override_tensor: Vec<String>,
    /// llama.cpp --flash-attn: on, off or auto (auto is on for CUDA).
    #[arg(long, default_value = "auto", value_parser = ["on", "off", "auto"])]
    flash_attn: String,
    /// Also list every tensor with the device llama.cpp puts it on (a dry run of loading).
    #[arg(long)]
    list_tensors: bool,
    /// Share of peak memory bandwidth decode reaches (default per engine, cited in the docs).
    #[arg(long, allow_hyphen_values = true)]
    bandwidth_efficiency: Option<f64>,
    /// Share of peak tensor FLOP/s prefill reaches (default 0.5).
    #[arg(long, allow_hyphen_values = true)]
    flops_efficiency: Option<f64>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also write a chart as SVG (- = stdout, instead of the text).
    #[arg(long, value_name = "FILE")]
    svg: Option<String>,
    /// Which chart --svg writes: budget, concurrency or speed.
    #[arg(long, default_value = "budget", requires = "svg", value_parser = |s: &str| s.parse::<ServeChart>().map_err(|e| e.to_string()))]
    chart: ServeChart,
    /// Print the engine-log comparisons (what the engines printed against bitbudget) and exit.
    #[arg(long)]
    check: bool,
}

fn setup_of(a: &ServeArgs) -> Result<(ServeSetup, Option<String>), String> {
    let gpu =
        find_gpu(&a.gpu).ok_or_else(|| format!("unknown GPU '{}'; see `bitbudget gpus`", a.gpu))?;
    let mut file = None;
    let (id, arch, read) = match (&a.model, &a.config) {
        _ if a.gguf.is_some() => {
            let path = a.gguf.as_deref().unwrap_or_default();
            let g = crate::commands::gguf::read_header(path)?;
            let (f, arch, notes) = ModelFile::from_gguf(path, &g)?;
            let name = g
                .get("general.name")
                .and_then(|v| v.as_str())
                .unwrap_or(path)
                .to_string();
            let said = format!(
                "{} as stored in {path} ({}, {}){}",
                format_bytes(f.bytes(), Units::Gib),
                f.mix,
                g.architecture().unwrap_or("?"),
                notes.iter().map(|n| format!("; {n}")).collect::<String>()
            );
            file = Some(f);
            (name, arch, Some((Checkpoint::Bf16, said)))
        }
        (_, Some(path)) => {
            let bytes = read_all(path)?;
            let text = String::from_utf8(bytes).map_err(|_| format!("{path} is not UTF-8 text"))?;
            let model = parse_config(&text).map_err(|e| format!("{path}: {e}"))?;
            let (checkpoint, said) = checkpoint_of(&text).map_err(|e| format!("{path}: {e}"))?;
            let name = model
                .architecture
                .clone()
                .unwrap_or(model.model_type.clone());
            (name, model.arch, Some((checkpoint, said)))
        }
        (Some(id), None) => {
            let m = find_model(id)
                .ok_or_else(|| format!("unknown model '{id}'; see `bitbudget models`"))?;
            (id.clone(), m.arch, None)
        }
        (None, None) => return Err("give --model ID, --config config.json or --gguf FILE".into()),
    };
    let engine = a.engine.unwrap_or(if file.is_some() {
        Engine::LlamaCpp
    } else {
        Engine::Vllm
    });
    let mut s = ServeSetup::new(engine, &id, arch, gpu);
    s.tp = a.tp;
    s.pp = a.pipeline_parallel_size;
    s.dp = a.data_parallel_size;
    s.expert_parallel = a.enable_expert_parallel;
    s.checkpoint = a
        .dtype
        .or(read.as_ref().map(|r| r.0))
        .unwrap_or(Checkpoint::Bf16);
    s.kv_dtype = a.kv_dtype;
    s.memory_fraction = a.gpu_memory_utilization;
    s.max_model_len = a.max_model_len;
    s.max_num_seqs = a.max_num_seqs;
    s.max_num_batched_tokens = a.max_num_batched_tokens;
    s.block_size = a.block_size;
    s.enforce_eager = a.enforce_eager;
    s.prefix_share = a.prefix_share;
    s.concurrency = a.concurrency;
    s.prompt_tokens = a.prompt_tokens;
    s.gpu_layers = a.n_gpu_layers;
    s.cpu_moe_layers = a.n_cpu_moe;
    s.bandwidth_efficiency = a.bandwidth_efficiency;
    s.flops_efficiency = a.flops_efficiency;
    s.model_file = file;
    s.tensor_overrides = a.override_tensor.join(",");
    s.flash_attention = a.flash_attn != "off";
    Ok((s, read.map(|r| r.1)))
}

fn check_table() -> Result<String, String> {
    let mut out =
        String::from("case  quantity             logged      bitbudget   error   bound  source\n");
    for c in comparisons()? {
        out.push_str(&format!(
            "{:5} {:20} {:>10.2} {:>12.2} {:>+6.1}% {:>5.0}%  {}\n      {}{}\n",
            c.id,
            c.quantity,
            c.logged,
            c.estimate,
            100.0 * c.error,
            100.0 * c.bound,
            c.source,
            c.case,
            c.outside
                .map(|r| format!("\n      outside: {r}"))
                .unwrap_or_default()
        ));
    }
    Ok(out)
}

/// Every tensor, one line each, as llama.cpp's loader would place it.
fn tensor_list(tensors: &[PlacedTensor]) -> String {
    let mut out =
        String::from("  tensor                                         bytes  device  why\n");
    for t in tensors {
        let why = rule_text(t.rule);
        out.push_str(&format!(
            "  {:44} {:>12}  {:6}  {why}\n",
            t.name,
            format_bytes(t.bytes, Units::Gib),
            match t.device {
                Device::Gpu => "GPU",
                Device::Host => "host",
            }
        ));
    }
    out
}

/// Runs `serve`.
pub fn run(a: ServeArgs) -> Result<(), String> {
    if a.check {
        return emit(&check_table()?);
    }
    let (setup, read) = setup_of(&a)?;
    let r = serve(&setup).map_err(|e| e.to_string())?;
    if let Some(path) = &a.svg {
        let svg = documents::serve(&setup, a.chart).map_err(|e| e.to_string())?;
        write_svg(path, &svg)?;
        if path == "-" {
            return Ok(());
        }
    }
    if a.json {
        let mut v = serde_json::to_value(&r).map_err(|e| e.to_string())?;
        v["verdict"] = verdict(&setup, &r).into();
        v["advice"] = advice(&setup, &r).into();
        let text = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        return emit(&(text + "\n"));
    }
    let gib = |b: u64| format_bytes(b, Units::Gib);
    let mut out = format!("{}\n", verdict(&setup, &r));
    if let Some(said) = read {
        out.push_str(&format!("weights: {said}\n"));
    }
    out.push_str(&format!("accounting as in {}\n", r.follows));
    if let (Some((knob, of)), Some(f)) = (setup.engine.fraction_knob(), r.knobs.memory_fraction) {
        out.push_str(&format!("  {knob} {f} ({of})\n"));
    }
    let p = r.per_gpu;
    for (name, bytes) in [
        ("weights", p.weights),
        ("activations (profiling run)", p.activations),
        ("CUDA context + non-torch", p.non_torch),
        ("CUDA graphs", p.cuda_graphs),
        ("KV cache", p.kv_cache),
        ("total", p.total),
    ] {
        out.push_str(&format!("  {name:28} {:>12}\n", gib(bytes)));
    }
    out.push_str(&format!(
        "  {:28} {:>12}\n",
        "GPU capacity",
        gib(r.capacity)
    ));
    out.push_str(&format!(
        "KV: {} per token, {} tokens in {} blocks of {}; max_model_len {}: maximum concurrency {:.2}x{}\n",
        format_bytes(r.kv_bytes_per_token, Units::Gib),
        grouped(r.kv_tokens as usize),
        grouped(r.kv_blocks as usize),
        r.block_size,
        grouped(r.max_model_len as usize),
        r.max_concurrency,
        if setup.prefix_share > 0.0 { format!(" ({:.2}x with the shared prefix cached once)", r.effective_concurrency) } else { String::new() }
    ));
    let d = r.decode;
    out.push_str(&format!(
        "decode at {} concurrent, {} tokens of context: {:.1} tokens/s each, {:.0} in all ({}-bound{})\n",
        d.concurrency,
        d.context_tokens,
        d.tokens_per_s,
        d.aggregate_tokens_per_s,
        d.bound,
        d.compute_bound_from.map(|c| format!("; compute-bound from {c}")).unwrap_or_default()
    ));
    match r.prefill.seconds {
        Some(s) => out.push_str(&format!(
            "time to first token, {} prompt tokens alone: {:.3} s\n",
            r.prefill.tokens, s
        )),
        None => out.push_str("time to first token: not estimated (no published FLOP/s)\n"),
    }
    if let Some(pl) = &r.placement {
        out.push_str(&format!(
            "llama.cpp: {}/{} layers on the GPU{}, {} of weights on the GPU and {} on the host ({} of them routed experts); flash attention {}\n",
            pl.gpu_layers.min(pl.layers) + pl.output_on_gpu as u64,
            pl.layers + 1,
            if pl.cpu_moe_layers > 0 {
                format!(" (the first {} keep their experts on the CPU)", pl.cpu_moe_layers)
            } else {
                String::new()
            },
            gib(pl.gpu_weights),
            gib(pl.host_weights),
            gib(pl.host_expert_weights),
            if pl.flash_attention { "on" } else { "off" }
        ));
        for row in placement_rows(&pl.tensors) {
            out.push_str(&format!(
                "  {:24} {:>12} GPU {:>12} host  ({})\n",
                row.label,
                gib(row.gpu),
                gib(row.host),
                row.why
            ));
        }
        for (i, o) in setup
            .tensor_overrides
            .split(',')
            .filter(|o| !o.trim().is_empty())
            .enumerate()
        {
            let moved: Vec<&PlacedTensor> = pl
                .tensors
                .iter()
                .filter(|t| t.rule == Rule::Override(i))
                .collect();
            out.push_str(&format!(
                "  -ot {}: {} tensors, {}\n",
                o.trim(),
                moved.len(),
                gib(moved.iter().map(|t| t.bytes).sum())
            ));
        }
        if a.list_tensors {
            out.push_str(&tensor_list(&pl.tensors));
        }
    }
    for n in &r.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for a in advice(&setup, &r) {
        out.push_str(&format!("would change it: {a}\n"));
    }
    emit(&out)
}
