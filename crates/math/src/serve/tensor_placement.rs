//! Where llama.cpp puts each weight tensor, as a dry run of `llama_model::load_tensors`
//! (`src/llama-model.cpp`, 2026): the token embedding stays on the host (the input layer is never
//! offloaded); block `i` of `n` goes to the GPU when `i ≥ n − n_gpu_layers`; the output head and
//! final norm go to the GPU only when `n_gpu_layers > n` (a tied head is a GPU copy of the token
//! embedding, `TENSOR_DUPLICATED`). Then the overrides, first match wins as in `create_tensor`:
//! each `-ot PATTERN=BUFFER` in the order given, then `--n-cpu-moe N`'s own patterns
//! `blk\.i\.ffn_(up|down|gate|gate_up)_exps` for the first N blocks (`common/arg.cpp`). The KV
//! cache and the compute buffer follow the blocks, not the overrides.

use super::tensor_pattern::{PatternError, StepBudget, TensorPattern, PLAN_STEPS};
use crate::gguf::Gguf;
use crate::memory::model::arch::ModelArch;
use crate::memory::model::gguf_arch::arch_of_gguf;
use crate::memory::states::gguf_mix::{mix_text, TypedTensor};
use serde::Serialize;

/// Where a tensor's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    /// The GPU.
    Gpu,
    /// Host memory (the CPU runs its matmuls).
    Host,
}

/// One weight tensor of a model file: its llama.cpp name and stored bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileTensor {
    /// llama.cpp's name (`blk.3.ffn_up_exps.weight`).
    pub name: String,
    /// Bytes as stored (quantization blocks included).
    pub bytes: u64,
}

/// A model file's tensors, read from its header (llama.cpp serves it as it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFile {
    /// The file's name, for labels.
    pub name: String,
    /// Every tensor, in file order.
    pub tensors: Vec<FileTensor>,
    /// The storage types' shares of the bytes ("q4_K 62%, q6_K 33%, f32 1%").
    pub mix: String,
}

impl ModelFile {
    /// The tensors of a parsed GGUF header named `name`, with its architecture read as llama.cpp
    /// reads it and notes on what was approximated. Errors: a file with no tensors, or a header
    /// llama.cpp could not load ([`arch_of_gguf`]).
    pub fn from_gguf(name: &str, g: &Gguf) -> Result<(ModelFile, ModelArch, Vec<String>), String> {
        if g.tensors.is_empty() {
            return Err(format!(
                "{name} holds no tensors: there is nothing to serve"
            ));
        }
        let (arch, notes) = arch_of_gguf(g).map_err(|e| format!("{name}: {e}"))?;
        let typed = TypedTensor::all_in(g);
        let file = ModelFile {
            name: name.into(),
            mix: mix_text(&typed),
            tensors: g
                .tensors
                .iter()
                .map(|t| FileTensor {
                    name: t.name.clone(),
                    bytes: t.bytes,
                })
                .collect(),
        };
        Ok((file, arch, notes))
    }

    /// Bytes of every tensor (saturating).
    pub fn bytes(&self) -> u64 {
        self.tensors
            .iter()
            .fold(0u64, |a, t| a.saturating_add(t.bytes))
    }
}

/// One `-ot` entry: tensors whose name the pattern finds go to `device`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorOverride {
    /// The pattern.
    pub pattern: TensorPattern,
    /// The buffer as written (`CPU`, `CUDA0`).
    pub buffer: String,
    /// Where that buffer is.
    pub device: Device,
}

/// Why an `-ot` list cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverrideError {
    /// An entry without `=BUFFER`.
    NoBuffer(String),
    /// A buffer name llama.cpp would not find with one GPU.
    Buffer(String),
    /// A pattern outside the supported subset, or too slow to match.
    Pattern(PatternError),
}

impl std::fmt::Display for OverrideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OverrideError::NoBuffer(e) => write!(
                f,
                "override-tensor '{e}' has no '=BUFFER' (write PATTERN=CPU or PATTERN=CUDA0)"
            ),
            OverrideError::Buffer(b) => write!(
                f,
                "override-tensor buffer '{b}' is not one of this one-GPU machine's: CPU or CUDA0 (also Metal, Vulkan0, ROCm0; the names are case-sensitive)"
            ),
            OverrideError::Pattern(e) => write!(f, "override-tensor: {e}"),
        }
    }
}

impl std::error::Error for OverrideError {}

/// llama.cpp's buffer names this one-GPU model knows, with where each is (case-sensitive, as
/// llama.cpp looks them up).
const BUFFERS: [(&str, Device); 6] = [
    ("CPU", Device::Host),
    ("CUDA0", Device::Gpu),
    ("Metal", Device::Gpu),
    ("MTL0", Device::Gpu),
    ("Vulkan0", Device::Gpu),
    ("ROCm0", Device::Gpu),
];

/// Reads llama.cpp's `-ot` text as `parse_tensor_buffer_overrides` does: entries separated by
/// commas (every comma splits, so a pattern cannot hold one), each `PATTERN=BUFFER` split at its
/// first `=`, nothing trimmed inside (a space after a comma is part of the next pattern), an
/// empty entry an error. Blank text is no override.
pub fn parse_overrides(text: &str) -> Result<Vec<TensorOverride>, OverrideError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.trim()
        .split(',')
        .map(|entry| {
            let (pattern, buffer) = entry
                .split_once('=')
                .ok_or_else(|| OverrideError::NoBuffer(entry.into()))?;
            let device = BUFFERS
                .iter()
                .find(|(name, _)| *name == buffer)
                .map(|(_, d)| *d)
                .ok_or_else(|| OverrideError::Buffer(buffer.into()))?;
            Ok(TensorOverride {
                pattern: TensorPattern::new(pattern).map_err(OverrideError::Pattern)?,
                buffer: buffer.into(),
                device,
            })
        })
        .collect()
}

/// What put a tensor where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The token embedding: always on the host.
    Input,
    /// A block, by `n_gpu_layers`.
    Layers,
    /// The output head or final norm, by `n_gpu_layers`.
    Output,
    /// The `-ot` entry of this index (0-based).
    Override(usize),
    /// `--n-cpu-moe`.
    CpuMoe,
}

/// A tensor with the device it goes to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacedTensor {
    /// llama.cpp's name (a tied head's GPU copy is `output.weight (copy of token_embd.weight)`).
    pub name: String,
    /// Bytes.
    pub bytes: u64,
    /// The block it belongs to, if any.
    pub block: Option<u64>,
    /// Whether it is a routed expert tensor (`_exps`).
    pub expert: bool,
    /// Where it goes.
    pub device: Device,
    /// Why.
    pub rule: Rule,
}

/// The block index of a `blk.N.` name.
pub fn block_of(name: &str) -> Option<u64> {
    name.strip_prefix("blk.")?.split('.').next()?.parse().ok()
}

/// Whether llama.cpp's `--n-cpu-moe N` pattern for one of the first `n` blocks,
/// `blk\.i\.ffn_(up|down|gate|gate_up)_(ch|)exps` (`LLM_FFN_EXPS_REGEX`), finds `name`: checked
/// directly, not by the pattern matcher, since it runs for every block of every tensor.
fn cpu_moe_match(name: &str, n: u64) -> bool {
    let Some(rest) = name.strip_prefix("blk.") else {
        return false;
    };
    let Some((block, rest)) = rest.split_once('.') else {
        return false;
    };
    if !block.parse::<u64>().is_ok_and(|b| b < n) {
        return false;
    }
    let Some(rest) = rest.strip_prefix("ffn_") else {
        return false;
    };
    ["gate_up_", "up_", "down_", "gate_"]
        .iter()
        .filter_map(|part| rest.strip_prefix(part))
        .any(|tail| tail.starts_with("exps") || tail.starts_with("chexps"))
}

/// Whether `name` is a routed expert tensor (`_exps` or `_chexps`).
pub fn is_expert(name: &str) -> bool {
    name.contains("_exps") || name.contains("_chexps")
}

/// The tensors with what the overrides decide for them, matched once: the part of the
/// placement that does not depend on `n_gpu_layers`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    tensors: Vec<Planned>,
    layers: u64,
}

#[derive(Clone, Debug, PartialEq)]
struct Planned {
    name: String,
    bytes: u64,
    block: Option<u64>,
    forced: Option<(Device, Rule)>,
    /// A tied head's GPU copy (of the token embedding), present only with the output on the GPU.
    tied_copy: bool,
}

/// Matches `tensors` of a model with `layers` blocks against the `-ot` entries and
/// `--n-cpu-moe`'s patterns (module doc). A pattern that takes too long is an error.
pub fn plan(
    tensors: &[FileTensor],
    layers: u64,
    cpu_moe_layers: u64,
    overrides: &[TensorOverride],
) -> Result<Plan, PatternError> {
    let tied = !tensors.iter().any(|t| t.name == "output.weight");
    let budget = StepBudget::new(PLAN_STEPS);
    let mut planned = Vec::with_capacity(tensors.len() + 1);
    // llama.cpp matches a tied head's copy under the embedding's name (`tn.str()`).
    let mut add = |name: String, matched_as: &str, bytes: u64, tied_copy: bool| {
        let mut forced = None;
        for (i, o) in overrides.iter().enumerate() {
            if o.pattern.is_match_within(matched_as, &budget)? {
                forced = Some((o.device, Rule::Override(i)));
                break;
            }
        }
        if forced.is_none() && cpu_moe_match(matched_as, cpu_moe_layers.min(layers)) {
            forced = Some((Device::Host, Rule::CpuMoe));
        }
        planned.push(Planned {
            block: block_of(&name),
            name,
            bytes,
            forced,
            tied_copy,
        });
        Ok::<(), PatternError>(())
    };
    for t in tensors {
        add(t.name.clone(), &t.name, t.bytes, false)?;
        if tied && t.name == "token_embd.weight" {
            add(
                "output.weight (copy of token_embd.weight)".into(),
                &t.name,
                t.bytes,
                true,
            )?;
        }
    }
    Ok(Plan {
        tensors: planned,
        layers,
    })
}

impl Plan {
    /// Each tensor's device and rule with `n_gpu_layers` (a tied head's copy only when the head
    /// is on the GPU).
    fn each(&self, n_gpu_layers: u64) -> impl Iterator<Item = (&Planned, Device, Rule)> + '_ {
        let first_gpu_block = self.layers.saturating_sub(n_gpu_layers);
        let output = if n_gpu_layers > self.layers {
            Device::Gpu
        } else {
            Device::Host
        };
        self.tensors.iter().filter_map(move |t| {
            let (device, rule) = match t.block {
                Some(b) if b >= first_gpu_block => (Device::Gpu, Rule::Layers),
                Some(_) => (Device::Host, Rule::Layers),
                None if t.name.starts_with("token_embd") => (Device::Host, Rule::Input),
                None => (output, Rule::Output),
            };
            let (device, rule) = t.forced.unwrap_or((device, rule));
            (!t.tied_copy || device == Device::Gpu).then_some((t, device, rule))
        })
    }

    /// Every tensor with its device under `n_gpu_layers`.
    pub fn place(&self, n_gpu_layers: u64) -> Vec<PlacedTensor> {
        self.each(n_gpu_layers)
            .map(|(t, device, rule)| PlacedTensor {
                name: t.name.clone(),
                bytes: t.bytes,
                block: t.block,
                expert: is_expert(&t.name),
                device,
                rule,
            })
            .collect()
    }

    /// The placement's sums under `n_gpu_layers` (saturating).
    pub fn bytes(&self, n_gpu_layers: u64) -> PlacedBytes {
        let mut s = PlacedBytes::default();
        for (t, device, rule) in self.each(n_gpu_layers) {
            let add = |v: &mut u64| *v = v.saturating_add(t.bytes);
            let expert = is_expert(&t.name);
            match device {
                Device::Gpu => {
                    add(&mut s.gpu);
                    if expert {
                        add(&mut s.gpu_experts);
                    }
                }
                Device::Host => {
                    add(&mut s.host);
                    if expert {
                        add(&mut s.host_experts);
                    }
                    if rule == Rule::Input {
                        add(&mut s.host_embedding);
                    }
                }
            }
        }
        s
    }
}

/// Placed bytes by where they are and what they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PlacedBytes {
    /// On the GPU, bytes.
    pub gpu: u64,
    /// The routed experts' part of `gpu`.
    pub gpu_experts: u64,
    /// On the host, bytes (the token embedding included).
    pub host: u64,
    /// The routed experts' part of `host`.
    pub host_experts: u64,
    /// The token embedding's part of `host` (looked up by row, never read whole).
    pub host_embedding: u64,
}

/// Consecutive tensors summed by where they went: the input layer, each run of blocks placed by
/// the same rules, the output layer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlacementRow {
    /// "input layer", "blocks 0–3", "block 7", "output layer".
    pub label: String,
    /// Bytes on the GPU (the whole run's).
    pub gpu: u64,
    /// Bytes on the host (the whole run's).
    pub host: u64,
    /// The rules that placed them ("n_gpu_layers", "-ot 1", "--n-cpu-moe", "input layer").
    pub why: String,
}

/// What put a tensor where it is, in words (the page's table and the CLI's list).
pub fn rule_text(r: Rule) -> String {
    match r {
        Rule::Input => "input layer, always on the host".into(),
        Rule::Layers => "n_gpu_layers".into(),
        Rule::Output => "output layer, on the GPU when n_gpu_layers > blocks".into(),
        Rule::Override(i) => format!("-ot entry {}", i + 1),
        Rule::CpuMoe => "--n-cpu-moe".into(),
    }
}

/// One block's (or the input's, or the output's) tensors summed.
struct Group {
    block: Option<u64>,
    name: &'static str,
    gpu: u64,
    host: u64,
    rules: Vec<Rule>,
}

/// The placement block by block, runs of consecutive blocks placed by the same rules merged
/// (their bytes summed).
pub fn placement_rows(tensors: &[PlacedTensor]) -> Vec<PlacementRow> {
    let mut groups: Vec<Group> = Vec::new();
    for t in tensors {
        let name = match t.block {
            Some(_) => "",
            None if t.name.starts_with("token_embd") => "input layer",
            None => "output layer",
        };
        if !groups
            .last()
            .is_some_and(|g| g.block == t.block && g.name == name)
        {
            groups.push(Group {
                block: t.block,
                name,
                gpu: 0,
                host: 0,
                rules: Vec::new(),
            });
        }
        if let Some(g) = groups.last_mut() {
            match t.device {
                Device::Gpu => g.gpu = g.gpu.saturating_add(t.bytes),
                Device::Host => g.host = g.host.saturating_add(t.bytes),
            }
            if !g.rules.contains(&t.rule) {
                g.rules.push(t.rule);
            }
        }
    }
    // Each row with the run of blocks it covers (first, last).
    let mut rows: Vec<(Option<(u64, u64)>, PlacementRow)> = Vec::new();
    for g in groups {
        let why = g
            .rules
            .into_iter()
            .map(rule_text)
            .collect::<Vec<_>>()
            .join(", ");
        if let (Some(b), Some((Some((first, end)), last))) = (g.block, rows.last_mut()) {
            let same_split = (last.gpu > 0, last.host > 0) == (g.gpu > 0, g.host > 0);
            if *end + 1 == b && last.why == why && same_split {
                *end = b;
                last.label = format!("blocks {first}–{b}");
                last.gpu = last.gpu.saturating_add(g.gpu);
                last.host = last.host.saturating_add(g.host);
                continue;
            }
        }
        let label = g.block.map_or(g.name.to_string(), |b| format!("block {b}"));
        rows.push((
            g.block.map(|b| (b, b)),
            PlacementRow {
                label,
                gpu: g.gpu,
                host: g.host,
                why,
            },
        ));
    }
    rows.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moe(blocks: u64, tied: bool) -> Vec<FileTensor> {
        let t = |name: String, bytes| FileTensor { name, bytes };
        let mut v = vec![t("token_embd.weight".into(), 1000)];
        for b in 0..blocks {
            v.push(t(format!("blk.{b}.attn_q.weight"), 10));
            for part in ["up", "down", "gate"] {
                v.push(t(format!("blk.{b}.ffn_{part}_exps.weight"), 100));
            }
        }
        v.push(t("output_norm.weight".into(), 1));
        if !tied {
            v.push(t("output.weight".into(), 1000));
        }
        v
    }

    #[test]
    fn n_gpu_layers_offloads_the_last_blocks_and_the_head_only_past_them() {
        let ts = moe(4, false);
        let p = plan(&ts, 4, 0, &[]).unwrap().place(2);
        let on_gpu: Vec<_> = p
            .iter()
            .filter(|t| t.device == Device::Gpu)
            .map(|t| t.block)
            .collect();
        assert!(on_gpu.iter().all(|b| matches!(b, Some(2 | 3))));
        assert_eq!(plan(&ts, 4, 0, &[]).unwrap().bytes(2).gpu, 2 * 310);
        let all = plan(&ts, 4, 0, &[]).unwrap().bytes(5);
        assert_eq!(all.gpu, 4 * 310 + 1001);
        assert_eq!(all.host, 1000);
        assert_eq!(all.host_embedding, 1000);
    }

    #[test]
    fn a_tied_head_is_copied_to_the_gpu_only_when_it_goes_there() {
        let ts = moe(2, true);
        let on = plan(&ts, 2, 0, &[]).unwrap().bytes(3);
        assert_eq!(on.gpu, 2 * 310 + 1 + 1000);
        let off = plan(&ts, 2, 0, &[]).unwrap().bytes(2);
        assert_eq!(off.gpu, 2 * 310);
        assert_eq!(off.host, 1000 + 1);
    }

    #[test]
    fn overrides_move_experts_first_match_wins_and_n_cpu_moe_takes_the_first_blocks() {
        let ts = moe(4, false);
        let ot = parse_overrides(r"blk\.3\.ffn_up=CUDA0,exps=CPU").unwrap();
        let pl = plan(&ts, 4, 0, &ot).unwrap();
        let p = pl.place(99);
        let up3 = p
            .iter()
            .find(|t| t.name == "blk.3.ffn_up_exps.weight")
            .unwrap();
        assert_eq!((up3.device, up3.rule), (Device::Gpu, Rule::Override(0)));
        let s = pl.bytes(99);
        assert_eq!(s.host_experts, 4 * 300 - 100);
        assert_eq!(s.gpu_experts, 100);
        let cpu_moe = plan(&ts, 4, 1, &[]).unwrap().bytes(99);
        assert_eq!(cpu_moe.host_experts, 300);
        // A block left on the host comes back to the GPU when an override says so.
        let back = parse_overrides(r"blk\.0\.attn_q=CUDA0").unwrap();
        let p = plan(&ts, 4, 0, &back).unwrap().place(1);
        let q0 = p.iter().find(|t| t.name == "blk.0.attn_q.weight").unwrap();
        assert_eq!(q0.device, Device::Gpu);
    }

    #[test]
    fn rows_keep_host_blocks_apart_from_gpu_blocks() {
        let ts = moe(4, false);
        let rows = placement_rows(&plan(&ts, 4, 0, &[]).unwrap().place(2));
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["input layer", "blocks 0–1", "blocks 2–3", "output layer"]
        );
        assert_eq!((rows[1].gpu, rows[1].host), (0, 2 * 310));
        assert_eq!((rows[2].gpu, rows[2].host), (2 * 310, 0));
    }

    #[test]
    fn a_tied_heads_copy_is_matched_under_the_embeddings_name() {
        let ts = moe(2, true);
        let ot = parse_overrides("^token_embd\\.weight$=CUDA0").unwrap();
        let p = plan(&ts, 2, 0, &ot).unwrap().place(3);
        let copy = p
            .iter()
            .find(|t| t.name.starts_with("output.weight"))
            .unwrap();
        assert_eq!(copy.rule, Rule::Override(0));
        let ot = parse_overrides("^output=CPU").unwrap();
        let p = plan(&ts, 2, 0, &ot).unwrap().place(3);
        let copy = p
            .iter()
            .find(|t| t.name.starts_with("output.weight"))
            .unwrap();
        assert_eq!((copy.device, copy.rule), (Device::Gpu, Rule::Output));
    }

    #[test]
    fn rows_merge_runs_of_blocks_placed_by_the_same_rules() {
        let ts = moe(4, false);
        let rows = placement_rows(&plan(&ts, 4, 1, &[]).unwrap().place(5));
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["input layer", "block 0", "blocks 1–3", "output layer"]
        );
        assert_eq!((rows[1].gpu, rows[1].host), (10, 300));
        assert_eq!(rows[1].why, "n_gpu_layers, --n-cpu-moe");
        assert_eq!((rows[2].gpu, rows[2].host), (3 * 310, 0));
    }

    #[test]
    fn override_text_errors_name_the_entry() {
        assert!(parse_overrides("").unwrap().is_empty());
        assert!(parse_overrides(" , ").is_err(), "two empty entries");
        let e = parse_overrides("exps").unwrap_err().to_string();
        assert!(e.contains("no '=BUFFER'"), "{e}");
        let e = parse_overrides("exps=CUDA1").unwrap_err().to_string();
        assert!(e.contains("CUDA1"), "{e}");
        let e = parse_overrides("(exps=CPU").unwrap_err().to_string();
        assert!(e.contains("never closed"), "{e}");
        assert!(
            parse_overrides("exps=cpu").is_err(),
            "llama.cpp's names are case-sensitive"
        );
        assert!(parse_overrides("exps=CPU,").is_err(), "an empty entry");
        // Split at the first '=', nothing trimmed: a space after a comma starts the pattern.
        let two = parse_overrides("a=b=CPU, exps=CPU");
        assert!(two.is_err(), "'b=CPU' is no buffer");
        let spaced = parse_overrides("attn=CUDA0, exps=CPU").unwrap();
        assert_eq!(spaced[1].pattern.text(), " exps");
        assert!(cpu_moe_match("blk.3.ffn_gate_up_exps.weight", 4));
        assert!(cpu_moe_match("blk.3.ffn_down_chexps.weight", 4));
        assert!(!cpu_moe_match("blk.4.ffn_down_exps.weight", 4));
        assert!(!cpu_moe_match("blk.3.ffn_down.weight", 4));
    }
}
