//! `bitbudget memory --gguf FILE`: reads only a GGUF file's header and tensor index (growing the
//! read as the parser asks, never the tensor data), and says what the model needs and whether it
//! fits on the chosen GPU with the chosen context.

use bitbudget_math::gguf::{next_read_len, parse, Gguf, FIRST_READ};
use bitbudget_math::memory::report::gguf_fit::{gguf_report, GgufReport};
use bitbudget_math::memory::Job;
use bitbudget_math::numbers::{format_bytes, Units};
use serde::Serialize;
use std::io::Read;

/// Reads the header of the GGUF file at `path`: the first megabyte, then more as the parser asks.
/// Errors name the path and say what is wrong (not GGUF, truncated, corrupt).
pub fn read_header(path: &str) -> Result<Gguf, String> {
    let fail = |e: std::io::Error| format!("cannot read {path}: {e}");
    let mut file = std::fs::File::open(path).map_err(fail)?;
    let len = file.metadata().map_err(fail)?.len();
    let mut prefix = Vec::new();
    let mut want = FIRST_READ.min(len);
    loop {
        let more = want.saturating_sub(prefix.len() as u64);
        (&mut file)
            .take(more)
            .read_to_end(&mut prefix)
            .map_err(fail)?;
        match parse(&prefix, Some(len)) {
            Ok(g) => return Ok(g),
            Err(e) => match next_read_len(&e, len) {
                Some(n) => want = n,
                None => return Err(format!("{path}: {e}")),
            },
        }
    }
}

/// The JSON document: the file and the report.
#[derive(Serialize)]
struct Document<'a> {
    file: &'a str,
    #[serde(flatten)]
    report: &'a GgufReport,
}

/// Prints the report for the GGUF file at `path` under `job` (context, KV dtype, GPU, overhead).
pub fn run(path: &str, job: &Job, json: bool) -> Result<(), String> {
    let g = read_header(path)?;
    let r = gguf_report(&g, job);
    if json {
        let doc = Document {
            file: path,
            report: &r,
        };
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        return crate::io::emit(&format!("{text}\n"));
    }
    crate::io::emit(&to_text(&r, job))
}

fn to_text(r: &GgufReport, job: &Job) -> String {
    let mut out = format!("{}\n  {}\n", r.headline(job.units), r.kv_text(job));
    match &r.verdict {
        Some(v) => out += &format!("  {v}\n"),
        None => out += "  Give --gpu ID to see whether it fits (see `bitbudget gpus`).\n",
    }
    for note in &r.notes {
        out += &format!("  note: {note}\n");
    }
    out += &tensor_table(r, job.units);
    out
}

fn tensor_table(r: &GgufReport, u: Units) -> String {
    let width = r
        .model
        .tensors
        .iter()
        .map(|t| t.name.len())
        .max()
        .unwrap_or(4);
    let mut out = format!(
        "\n  {:<width$}  {:<7}  {:<24}  {:>12}\n",
        "tensor", "type", "shape", "bytes"
    );
    for t in &r.model.tensors {
        let shape = t
            .dims
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(" × ");
        out += &format!(
            "  {:<width$}  {:<7}  {:<24}  {:>12}\n",
            t.name,
            t.ty.name(),
            shape,
            format_bytes(t.bytes, u)
        );
    }
    out
}
