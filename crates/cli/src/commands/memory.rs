//! `bitbudget memory`: per-GPU memory of a training or fine-tuning setup, as text, JSON or SVG.
//! Serving (`--mode inference`, a GGUF file) is `bitbudget serve`'s: asked here, the error gives
//! the `serve` command that answers it.
//!
//! The job's options come from the math crate's option table (`memory::job::OPTIONS`), turned into
//! clap arguments with the builder API, so the CLI and the page's URL accept the same keys, values
//! and defaults. Only output flags (`--json`) are defined here.

use bitbudget_charts::documents::{self, MemoryChart};
use bitbudget_math::memory::job::{Group, Job, MemoryOption, OPTIONS};
use bitbudget_math::memory::report::advice::Advice;
use bitbudget_math::memory::report::export::report;
use bitbudget_math::memory::{
    verdict, Breakdown, Dtype, MemoryError, Mode, ModelSpec, Part, Setup,
};
use bitbudget_math::numbers::{format_bytes, format_count};
use bitbudget_math::serve::from_memory::{serving_job, ServedModel, ServingJob};
use bitbudget_math::serve::setup::DEFAULT_PROMPT_TOKENS;
use bitbudget_math::serve::{Checkpoint, Engine, KvDtype};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};

/// Arguments of `memory`: the job options given on the command line (key, text) and the output
/// flags. Counts accept scientific notation (`--params 7.5e9`).
pub struct MemoryArgs {
    /// Job options the user gave, in table order, as text for [`Job::from_pairs`].
    options: Vec<(&'static str, String)>,
    /// Print JSON.
    json: bool,
    /// Where to write a chart as SVG (`-` = stdout).
    svg: Option<String>,
    /// Which chart `svg` gets.
    chart: MemoryChart,
    /// A GGUF file to size instead of a model preset.
    gguf: Option<String>,
    /// A Hugging Face `config.json` to size (`-` = stdin), instead of `--model`.
    config: Option<String>,
}

/// One clap argument for a job option: `--key VALUE`, or `--key[=1|0]` for flags.
fn option_arg(o: &'static MemoryOption) -> Arg {
    let default = match o.group {
        Group::Model => String::new(),
        _ => format!(" [default: {}]", o.default_text()),
    };
    let arg = Arg::new(o.name.key)
        .long(o.name.key)
        .help(format!("{}{default}", o.help))
        .action(ArgAction::Set)
        .allow_hyphen_values(true);
    if o.is_flag() {
        arg.num_args(0..=1)
            .require_equals(true)
            .default_missing_value("1")
            .value_name("1|0")
    } else {
        arg.value_name(o.value_name)
    }
}

/// Output-only flags: how the result is printed, not what is sized (not in the URL or the report).
fn output_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("config")
            .long("config")
            .value_name("FILE")
            .conflicts_with_all(["model", "params"])
            .help(
                "A Hugging Face config.json to size instead of --model (- = stdin); read offline",
            ),
    )
    .arg(
        Arg::new("json")
            .long("json")
            .help("Print JSON")
            .action(ArgAction::SetTrue),
    )
    .arg(
        Arg::new("svg").long("svg").value_name("FILE").help(
            "Also write a chart as SVG (the app's download; - = stdout, instead of the text)",
        ),
    )
    .arg(
        Arg::new("chart")
            .long("chart")
            .value_name("CHART")
            .requires("svg")
            .default_value("bar")
            .value_parser(|s: &str| s.parse::<MemoryChart>().map_err(|e| e.to_string()))
            .help("Which chart --svg writes: bar, strategies, scaling or layout (the GPUs by parallel group)"),
    )
}

impl clap::Args for MemoryArgs {
    fn augment_args(cmd: Command) -> Command {
        let cmd = cmd.after_help(
            "Give --model ID (or --model custom with --layers, --hidden, --heads ...), or --params N.",
        );
        let cmd = cmd.arg(Arg::new("gguf").long("gguf").value_name("FILE").help(
            "A GGUF file is served: `bitbudget serve --gguf FILE` sizes it as llama.cpp places it",
        ));
        output_args(OPTIONS.iter().fold(cmd, |cmd, o| cmd.arg(option_arg(o))))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for MemoryArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let options = OPTIONS
            .iter()
            .map(|o| o.name.key)
            .filter(|k| m.value_source(k) == Some(ValueSource::CommandLine))
            .filter_map(|k| m.get_one::<String>(k).map(|v| (k, v.clone())))
            .collect();
        Ok(Self {
            options,
            json: m.get_flag("json"),
            svg: m.get_one::<String>("svg").cloned(),
            config: m.get_one::<String>("config").cloned(),
            chart: m
                .get_one::<MemoryChart>("chart")
                .copied()
                .unwrap_or(MemoryChart::Bar),
            gguf: m.get_one::<String>("gguf").cloned(),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// The error with the flag it concerns in front (`--dp: data-parallel degree is 0: ...`).
fn with_flag(e: MemoryError) -> String {
    match e.option() {
        Some(o) => format!("--{}: {e}", o.key),
        None => e.to_string(),
    }
}

/// Builds the job the arguments describe: the options, on a model read from `--config` when
/// given (its errors name the file and the missing or bad field).
fn job(a: &MemoryArgs) -> Result<Job, String> {
    let pairs = a.options.iter().map(|(k, v)| (*k, v.as_str()));
    let Some(path) = &a.config else {
        return Job::from_pairs(pairs).map_err(with_flag);
    };
    let bytes = crate::io::read_all(path)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("--config {path}: not UTF-8 text"))?;
    let mut job = Job::default();
    job.load_config(&text)
        .map_err(|e| format!("--config {path}: {e}"))?;
    for (k, v) in pairs {
        // Every key comes from the option table, so `apply` finds it.
        if let Some(r) = job.apply(k, v) {
            r.map_err(with_flag)?;
        }
    }
    if job.config_in_force().is_none() {
        return Err("--config: the custom architecture options (--layers, --hidden, ...) replace the config's model; give one or the other".into());
    }
    Ok(job)
}

/// The `bitbudget serve` command for a serving job, its model given as `model` (`--model ID`,
/// `--config PATH`, `--gguf PATH`), or from the job when `None`: the engine, GPU, parallel
/// degrees, the types where they are not the defaults, the longest request, the concurrency and
/// the prompt.
fn serve_command(s: &ServingJob, model: Option<String>) -> String {
    let mut c = String::from("bitbudget serve");
    if s.engine != Engine::Vllm {
        c += &format!(" --engine {}", s.engine);
    }
    c += &match (model, &s.model) {
        (Some(flag), _) => format!(" {flag}"),
        (None, ServedModel::Preset(id) | ServedModel::Nearest { id, .. }) => {
            format!(" --model {id}")
        }
        (None, ServedModel::Arch(_)) => " --config CONFIG.json".into(),
    };
    if let Some(gpu) = &s.gpu {
        c += &format!(" --gpu {gpu}");
    }
    for (flag, n) in [("--tp", s.tp), ("--pipeline-parallel-size", s.pp)] {
        if n > 1 {
            c += &format!(" {flag} {n}");
        }
    }
    if let Some(d) = s.dtype.filter(|&d| d != Checkpoint::Bf16) {
        c += &format!(" --dtype {d}");
    }
    if let Some(kv) = s.kv.filter(|&kv| kv != KvDtype::Bf16) {
        c += &format!(" --kv-dtype {kv}");
    }
    c += &format!(" --max-model-len {} --concurrency {}", s.len, s.concurrency);
    if s.prompt != DEFAULT_PROMPT_TOKENS {
        c += &format!(" --prompt-tokens {}", s.prompt);
    }
    c
}

/// `path` as one shell word: as it is when it has only safe characters, else single-quoted.
fn shell_word(path: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "._/-+=:,@%".contains(c);
    if !path.is_empty() && path.chars().all(safe) {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// The error for serving asked of `memory`: the `serve` command that answers it, and, for a
/// parameter count alone, the preset it stands for.
fn sent_to_serve(flag: &str, s: &ServingJob, model: Option<String>) -> String {
    let nearest = match s.model {
        ServedModel::Nearest { id, params } => format!(
            " ({id} is the preset nearest {} parameters: serving needs an architecture)",
            format_count(params)
        ),
        _ => String::new(),
    };
    format!(
        "{flag}: serving is sized as the engines account for it by `{}`{nearest}",
        serve_command(s, model)
    )
}

/// Runs `memory`.
pub fn run(args: MemoryArgs) -> Result<(), String> {
    if args.json && args.svg.as_deref() == Some("-") {
        return Err("--svg - and --json both write to stdout: give --svg a file".into());
    }
    if let Some(path) = &args.gguf {
        let mut job = Job::default();
        for (key, value) in &args.options {
            // Every key comes from the option table, so `apply` finds it.
            if let Some(r) = job.apply(key, value) {
                r.map_err(with_flag)?;
            }
        }
        // A llama.cpp file type, for llama.cpp's engine and KV types; the file's own replace it.
        job.dtype = Dtype::Q4KM;
        let mut s = serving_job(&job);
        s.dtype = None;
        return Err(sent_to_serve(
            "--gguf",
            &s,
            Some(format!("--gguf {}", shell_word(path))),
        ));
    }
    let job = job(&args)?;
    if job.mode == Mode::Inference {
        let config = args
            .config
            .as_deref()
            .map(|p| format!("--config {}", shell_word(p)));
        return Err(sent_to_serve(
            "--mode inference",
            &serving_job(&job),
            config,
        ));
    }
    let s = job.to_setup();
    let r = report(&s, &job.step_params()).map_err(with_flag)?;
    let b = &r.breakdown;
    if let Some(path) = &args.svg {
        let svg = documents::memory(&s, args.chart).map_err(|e| e.to_string())?;
        crate::commands::chart_out::write_svg(path, &svg)?;
        if path == "-" {
            return Ok(());
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
        crate::io::emit(&format!("{text}\n"))?;
    } else {
        let mut text = to_text(&s, b, r.advice.as_ref());
        if let Some(c) = &r.checked_against_pytorch {
            text += &format!(
                "  checked against PyTorch {} (nearest measured setup {}): {}\n",
                c.torch.split('+').next().unwrap_or(&c.torch),
                c.setup,
                c.summary()
            );
        }
        crate::io::emit(&format!("{text}  step: {}\n", r.step.summary()))?;
    }
    Ok(())
}

fn model_name(s: &Setup) -> String {
    match &s.model {
        ModelSpec::Arch { name, .. } => name.clone(),
        ModelSpec::Params(n) => format!("{} params", format_count(*n)),
    }
}

fn to_text(s: &Setup, b: &Breakdown, advice: Option<&Advice>) -> String {
    let u = s.units;
    let mut out = format!(
        "{} · {} params ({} trainable) · {} {} · {} · {} = {} GPUs\n",
        model_name(s),
        format_count(b.params),
        format_count(b.trainable_params),
        s.mode,
        s.dtype,
        s.zero.label(),
        s.layout_text(),
        b.gpus
    );
    for part in Part::ALL {
        let line = part.line(b);
        out += &format!(
            "  {:<18}{:>12}   {}\n",
            part.label(),
            format_bytes(line.bytes, u),
            line.formula
        );
    }
    out += &format!(
        "  {:<18}{:>12}   per GPU\n",
        "total",
        format_bytes(b.total, u)
    );
    if let Some(top) = b.peak_parts() {
        out += &format!("  {}\n", top.sentence(u));
    }
    if b.cpu_offload > 0 {
        out += &format!(
            "  {:<18}{:>12}   in CPU memory\n",
            "cpu",
            format_bytes(b.cpu_offload, u)
        );
    }
    if let Some(g) = &s.gpu {
        out += &format!("  {}\n", verdict(b.total, g, u));
        let fits = b.total <= g.capacity_bytes;
        for line in advice
            .map(|a| a.lines(fits, b.gpus, g.name, u))
            .unwrap_or_default()
        {
            out += &format!("  {}\n", line.text);
        }
    }
    for note in &b.notes {
        out += &format!("  note: {note}\n");
    }
    out
}
