//! "What would make it fit?": a search over the levers a user can pull (FlashAttention, ZeRO stage,
//! activation recomputation, CPU offload, tensor/pipeline/data parallelism) that starts from the
//! setup as it is, never proposes what is already applied, and keeps only the changes that matter.
//!
//! Two answers: the smallest change that fits on the GPUs already chosen, and the fewest GPUs that
//! fit at all (with and without CPU offload). Each is a list of [`Change`]s in the CLI's and the
//! URL's option names, so the page can apply it and the CLI can print it.

use crate::memory::estimate::estimate;
use crate::memory::options::{Mode, Offload, Recompute, ZeroStage};
use crate::memory::setup::Setup;
use crate::numbers::{format_bytes, Units};
use serde::Serialize;

/// One lever moved from its current setting. Serialized as
/// `{"option": "tp", "value": "2", "words": "tensor parallel 2"}`: the option table's key and
/// value (what the CLI and the URL take) and the change in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Turn FlashAttention on.
    FlashAttention,
    /// Use this ZeRO stage.
    Zero(ZeroStage),
    /// Recompute activations this way.
    Recompute(Recompute),
    /// Offload this to CPU memory.
    Offload(Offload),
    /// Data-parallel degree.
    Dp(u64),
    /// Tensor-parallel degree.
    Tp(u64),
    /// Pipeline-parallel degree.
    Pp(u64),
    /// Context-parallel degree, taken from the data-parallel GPUs (dp × cp stays the same).
    Cp(u64),
    /// Expert-parallel degree (the same GPUs, the routed experts divided over them).
    Ep(u64),
}

impl Change {
    /// The option's name (as in the CLI and the URL).
    pub const fn key(self) -> &'static str {
        match self {
            Change::FlashAttention => "flash-attention",
            Change::Zero(_) => "zero",
            Change::Recompute(_) => "recompute",
            Change::Offload(_) => "offload",
            Change::Dp(_) => "dp",
            Change::Tp(_) => "tp",
            Change::Pp(_) => "pp",
            Change::Cp(_) => "cp",
            Change::Ep(_) => "ep",
        }
    }

    /// The option's new value, as the CLI and the URL write it.
    pub fn value(self) -> String {
        match self {
            Change::FlashAttention => "1".into(),
            Change::Zero(z) => z.to_string(),
            Change::Recompute(r) => r.to_string(),
            Change::Offload(o) => o.to_string(),
            Change::Dp(n) | Change::Tp(n) | Change::Pp(n) | Change::Cp(n) | Change::Ep(n) => {
                n.to_string()
            }
        }
    }

    /// `setup` with this change made.
    pub fn apply(self, setup: &mut Setup) {
        match self {
            Change::FlashAttention => setup.flash_attention = true,
            Change::Zero(z) => setup.zero = z,
            Change::Recompute(r) => setup.recompute = r,
            Change::Offload(o) => setup.offload = o,
            Change::Dp(n) => setup.dp = n,
            Change::Tp(n) => setup.tp = n,
            Change::Pp(n) => setup.pp = n,
            Change::Cp(n) => {
                let group = setup.dp * setup.cp;
                setup.cp = n;
                setup.dp = (group / n.max(1)).max(1);
            }
            Change::Ep(n) => setup.ep = n,
        }
    }
}

impl Serialize for Change {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("option", self.key())?;
        map.serialize_entry("value", &self.value())?;
        map.serialize_entry("words", &self.to_string())?;
        map.end()
    }
}

impl std::fmt::Display for Change {
    /// In words: "full recomputation (gradient checkpointing)", "tensor parallel 2".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::FlashAttention => f.write_str("FlashAttention"),
            Change::Zero(z) => f.write_str(z.label()),
            Change::Recompute(Recompute::Full) => {
                f.write_str("full recomputation (gradient checkpointing)")
            }
            Change::Recompute(Recompute::Layer) => {
                f.write_str("gradient checkpointing per decoder layer (Hugging Face)")
            }
            Change::Recompute(Recompute::Selective) => f.write_str("selective recomputation"),
            Change::Recompute(Recompute::None) => f.write_str("no recomputation"),
            Change::Offload(Offload::Optimizer) => f.write_str("optimizer offload to the CPU"),
            Change::Offload(Offload::All) => {
                f.write_str("weights and optimizer offload to the CPU")
            }
            Change::Offload(Offload::None) => f.write_str("no offload"),
            Change::Dp(n) => write!(f, "data parallel {n}"),
            Change::Tp(n) => write!(f, "tensor parallel {n}"),
            Change::Pp(n) => write!(f, "pipeline parallel {n}"),
            Change::Cp(n) => write!(f, "context parallel {n}"),
            Change::Ep(n) => write!(f, "expert parallel {n}"),
        }
    }
}

/// A set of changes that makes the setup fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suggestion {
    /// What to change, cheapest in compute first; never a lever already in place.
    pub changes: Vec<Change>,
    /// GPUs in the job after the changes (dp × tp × pp).
    pub gpus: u64,
    /// Bytes per GPU after the changes.
    pub total: u64,
}

impl Suggestion {
    /// `setup` with every change made.
    pub fn apply(&self, setup: &Setup) -> Setup {
        let mut s = setup.clone();
        for c in &self.changes {
            c.apply(&mut s);
        }
        s
    }

    /// The changes in words, joined: "full recomputation (gradient checkpointing) and tensor
    /// parallel 2".
    pub fn describe(&self) -> String {
        let words: Vec<String> = self.changes.iter().map(Change::to_string).collect();
        match words.as_slice() {
            [] => "nothing".into(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    }
}

/// Everything the search found for one setup and GPU capacity.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Advice {
    /// The fewest changes that fit on the GPUs already chosen (same dp × tp × pp).
    pub same_gpus: Option<Suggestion>,
    /// The fewest GPUs that fit without CPU offload (ties: fewest changes).
    pub fewest_gpus: Option<Suggestion>,
    /// The fewest GPUs that fit when CPU offload is allowed, when that is fewer than without it.
    pub fewest_gpus_with_offload: Option<Suggestion>,
}

/// Which of the [`Advice`] answers a sentence gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdviceKind {
    /// [`Advice::same_gpus`].
    SameGpus,
    /// [`Advice::fewest_gpus`].
    FewestGpus,
    /// [`Advice::fewest_gpus_with_offload`].
    WithOffload,
    /// Nothing fits: no suggestion to apply.
    NothingFits,
}

/// One sentence of advice and the suggestion it describes (none for [`AdviceKind::NothingFits`]).
#[derive(Clone, Debug, PartialEq)]
pub struct AdviceLine {
    /// Which answer this is.
    pub kind: AdviceKind,
    /// The sentence, e.g. "On the same 2 GPUs: full recomputation (gradient checkpointing)
    /// makes it fit, 48.61 GB per GPU."
    pub text: String,
    /// What "Apply" changes.
    pub suggestion: Option<Suggestion>,
}

impl Advice {
    /// The advice in sentences, the only place it is worded (the page and the CLI both print
    /// these). `gpus_now` is the setup's dp × tp × pp, `gpu_name` the GPU's name; sizes in `units`
    /// as [`format_bytes`] rounds them. The fewest-GPUs answer is left out when it is the same
    /// change as the same-GPUs answer; with-offload only appears when it needs fewer GPUs. An
    /// empty list means there is nothing to advise (the setup fits, or is invalid); when nothing
    /// fits, one [`AdviceKind::NothingFits`] line says what the search tried.
    pub fn lines(
        &self,
        fits: bool,
        gpus_now: u64,
        gpu_name: &str,
        units: Units,
    ) -> Vec<AdviceLine> {
        if fits {
            return Vec::new();
        }
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let mut out: Vec<AdviceLine> = Vec::new();
        for (kind, s) in [
            (AdviceKind::SameGpus, &self.same_gpus),
            (AdviceKind::FewestGpus, &self.fewest_gpus),
            (AdviceKind::WithOffload, &self.fewest_gpus_with_offload),
        ] {
            let Some(s) = s else { continue };
            if out.iter().any(|l| l.suggestion.as_ref() == Some(s)) {
                continue;
            }
            let head = match kind {
                AdviceKind::SameGpus => format!("On the same {gpus_now} GPU{}:", plural(gpus_now)),
                AdviceKind::FewestGpus => format!("Fewest GPUs: {} × {gpu_name} with", s.gpus),
                _ => format!("With CPU offload: {} × {gpu_name} with", s.gpus),
            };
            let verb = if kind == AdviceKind::SameGpus {
                " makes it fit,"
            } else {
                ","
            };
            let offload = s.changes.iter().any(|c| matches!(c, Change::Offload(_)));
            let cost = if offload {
                " (slower: CPU memory and PCIe traffic grow)"
            } else {
                ""
            };
            out.push(AdviceLine {
                kind,
                text: format!(
                    "{head} {}{verb} {} per GPU{cost}.",
                    s.describe(),
                    format_bytes(s.total, units)
                ),
                suggestion: Some(s.clone()),
            });
        }
        if out.is_empty() {
            out.push(AdviceLine {
                kind: AdviceKind::NothingFits,
                text: format!(
                    "Nothing fits on up to {MAX_SEARCH_DP} data-parallel × 8 tensor-parallel × 16 pipeline-stage {gpu_name}s, even with every sharding, recomputation and offload setting: try a shorter sequence, a smaller micro-batch, a smaller model, fewer trainable weights or a GPU with more memory."
                ),
                suggestion: None,
            });
        }
        out
    }
}

/// The largest data-parallel degree the search tries.
pub const MAX_SEARCH_DP: u64 = 1024;

/// Tensor- and pipeline-parallel degrees the search tries (within one 8-GPU node for tp, as
/// Megatron-LM recommends; pp up to 16 stages).
const TP_DEGREES: [u64; 4] = [1, 2, 4, 8];
const PP_DEGREES: [u64; 5] = [1, 2, 4, 8, 16];

/// Searches for setups that fit in `capacity` bytes per GPU, starting from `setup`. Returns an
/// empty [`Advice`] when the setup already fits or is invalid. Each answer lists only the levers
/// that were needed: after finding a fit, every lever that can be put back without losing the fit
/// is put back. Costs a few hundred estimates (about 1 ms natively).
pub fn advise(setup: &Setup, capacity: u64) -> Advice {
    match estimate(setup) {
        Ok(b) if b.total > capacity => {}
        _ => return Advice::default(),
    }
    let levers = memory_levers(setup);
    let same_gpus = fit_with_levers(setup, &levers, &[], capacity);
    // The GPU-count search varies dp itself: the levers that re-divide the GPUs stay out of it.
    let regrouping = |c: &Change| matches!(c, Change::Cp(_) | Change::Ep(_));
    let on_gpu: Vec<Change> = levers
        .iter()
        .copied()
        .filter(|c| !matches!(c, Change::Offload(_)) && !regrouping(c))
        .collect();
    let on_gpu = search_gpus(setup, &on_gpu, capacity);
    let anywhere: Vec<Change> = levers.iter().copied().filter(|c| !regrouping(c)).collect();
    let with_offload = search_gpus(setup, &anywhere, capacity)
        .filter(|s| on_gpu.as_ref().is_none_or(|f| s.gpus < f.gpus));
    Advice {
        same_gpus,
        fewest_gpus: on_gpu,
        fewest_gpus_with_offload: with_offload,
    }
}

/// Levers that save memory without changing the GPU count, cheapest in compute first, skipping
/// those already applied or meaningless for the mode.
fn memory_levers(setup: &Setup) -> Vec<Change> {
    let mut levers = Vec::new();
    if !setup.flash_attention {
        levers.push(Change::FlashAttention);
    }
    let training = setup.mode != Mode::Inference;
    if training {
        for stage in (setup.zero.0 + 1)..=3 {
            levers.push(Change::Zero(ZeroStage(stage)));
        }
        levers.extend(expert_levers(setup));
        if Recompute::Selective as u8 > setup.recompute as u8 {
            levers.push(Change::Recompute(Recompute::Selective));
        }
        levers.extend(context_levers(setup));
        if Recompute::Full as u8 > setup.recompute as u8 {
            levers.push(Change::Recompute(Recompute::Full));
        }
    }
    for o in [Offload::Optimizer, Offload::All] {
        if o as u8 > setup.offload as u8 && (training || o == Offload::All) {
            levers.push(Change::Offload(o));
        }
    }
    levers
}

/// Shortest sequence for which context parallelism is offered: below it recomputation or more
/// GPUs are the usual answer (Megatron-LM's guidance is context parallelism for long contexts).
pub const CONTEXT_PARALLEL_FROM_SEQ: u64 = 16384;

/// Context-parallel degrees taken from the data-parallel GPUs (2, 4, 8, 16) for long sequences.
fn context_levers(setup: &Setup) -> Vec<Change> {
    if setup.seq < CONTEXT_PARALLEL_FROM_SEQ {
        return Vec::new();
    }
    let group = setup.dp * setup.cp;
    [2, 4, 8, 16]
        .into_iter()
        .filter(|&n| n > setup.cp && group % n == 0 && setup.seq % (2 * n) == 0)
        .map(Change::Cp)
        .collect()
}

/// Expert-parallel degrees for an MoE model in full training that divide its experts and the
/// GPUs of a pipeline stage (with tensor parallelism only under sequence parallelism, as
/// Megatron-LM requires).
fn expert_levers(setup: &Setup) -> Vec<Change> {
    let Some(a) = setup.arch().filter(|a| a.experts > 1) else {
        return Vec::new();
    };
    if setup.mode != Mode::Train || (setup.tp > 1 && !setup.sequence_parallel) {
        return Vec::new();
    }
    let ranks = setup.dp * setup.cp * setup.tp;
    [2, 4, 8, 16, 32, 64]
        .into_iter()
        .filter(|&n| n > setup.ep && a.experts % n == 0 && ranks % (n * setup.expert_tp()) == 0)
        .map(Change::Ep)
        .collect()
}

fn total_of(setup: &Setup) -> Option<u64> {
    estimate(setup).ok().map(|b| b.total)
}

/// Applies `levers` one at a time (later ones replace earlier ones of the same kind) on top of
/// `base_changes` until the setup fits, then drops every lever that is not needed.
fn fit_with_levers(
    setup: &Setup,
    levers: &[Change],
    base_changes: &[Change],
    capacity: u64,
) -> Option<Suggestion> {
    let with = |changes: &[Change]| {
        let mut s = setup.clone();
        for c in base_changes.iter().chain(changes) {
            c.apply(&mut s);
        }
        total_of(&s).filter(|t| *t <= capacity)
    };
    let mut chosen: Vec<Change> = Vec::new();
    let mut fits = with(&chosen);
    for lever in levers {
        if fits.is_some() {
            break;
        }
        chosen.retain(|c| std::mem::discriminant(c) != std::mem::discriminant(lever));
        chosen.push(*lever);
        fits = with(&chosen);
    }
    fits?;
    // Put back every lever that is not needed, most expensive first.
    let mut i = chosen.len();
    while i > 0 {
        i -= 1;
        let mut fewer = chosen.clone();
        fewer.remove(i);
        if with(&fewer).is_some() {
            chosen = fewer;
        }
    }
    let mut changes = base_changes.to_vec();
    changes.extend(chosen);
    let mut s = setup.clone();
    for c in &changes {
        c.apply(&mut s);
    }
    // Context parallelism takes its GPUs from data parallelism: say so, so that the changes
    // applied as options (cp, then dp) give the same GPUs.
    let moved_dp = s.dp != setup.dp && !changes.iter().any(|c| matches!(c, Change::Dp(_)));
    if moved_dp {
        changes.push(Change::Dp(s.dp));
    }
    Some(Suggestion {
        gpus: s.gpus(),
        total: total_of(&s)?,
        changes,
    })
}

/// The fewest GPUs over tensor/pipeline splits, context-parallel degrees (long sequences) and
/// data-parallel degrees, with expert parallelism as wide as each layout allows (MoE training) and
/// every lever in `levers` available; then the fewest levers at that GPU count.
fn search_gpus(setup: &Setup, levers: &[Change], capacity: u64) -> Option<Suggestion> {
    let mut all = setup.clone();
    for c in levers {
        c.apply(&mut all);
    }
    let mut best: Option<(u64, Vec<Change>)> = None;
    // Pipeline stages outermost: at equal GPU counts a tensor split (one node, no bubble) wins,
    // and context parallelism comes last (its ring traffic is the dearest).
    for pp in PP_DEGREES {
        for tp in TP_DEGREES {
            for cp in search_cp_degrees(&all) {
                let split = {
                    let mut changed = all.clone();
                    changed.tp = tp;
                    changed.pp = pp;
                    changed.cp = cp;
                    changed
                };
                let Some(dp) = smallest_dp(&split, capacity) else {
                    continue;
                };
                // The setup's own expert-parallel degree when it still fits, else the widest.
                let keeps_ep = total_of(&{
                    let mut changed = split.clone();
                    changed.dp = dp;
                    changed
                })
                .is_some_and(|t| t <= capacity);
                let ep = if keeps_ep {
                    split.ep
                } else {
                    widest_ep(&split, dp)
                };
                let gpus = dp * tp * pp * cp;
                let mut moves = Vec::new();
                if cp != setup.cp {
                    moves.push(Change::Cp(cp));
                }
                for (c, differs) in [
                    // Context parallelism re-divides the data-parallel GPUs: dp is said after it.
                    (Change::Dp(dp), dp != setup.dp || cp != setup.cp),
                    (Change::Tp(tp), tp != setup.tp),
                    (Change::Pp(pp), pp != setup.pp),
                    (Change::Ep(ep), ep != setup.ep),
                ] {
                    if differs {
                        moves.push(c);
                    }
                }
                // Fewer GPUs wins; at equal GPUs, fewer parallelism changes.
                let better = best
                    .as_ref()
                    .is_none_or(|(g, m)| gpus < *g || (gpus == *g && moves.len() < m.len()));
                if better {
                    best = Some((gpus, moves));
                }
            }
        }
    }
    let (_, moves) = best?;
    fit_with_levers(setup, levers, &moves, capacity)
}

/// Context-parallel degrees the GPU-count search tries: the setup's own, and from
/// [`CONTEXT_PARALLEL_FROM_SEQ`] tokens 2 to 16 (an estimate refuses those the setup cannot run).
fn search_cp_degrees(setup: &Setup) -> Vec<u64> {
    let mut degrees = vec![setup.cp];
    if setup.seq >= CONTEXT_PARALLEL_FROM_SEQ && setup.mode != Mode::Inference {
        degrees.extend([2, 4, 8, 16].into_iter().filter(|n| *n != setup.cp));
    }
    degrees
}

/// The widest expert-parallel degree for `setup` at `dp` data-parallel GPUs: for MoE training,
/// the largest of 1, 2, 4 … 64 that divides the experts and the GPUs of a pipeline stage
/// (dp × cp × tp ÷ etp), with tensor parallelism only under sequence parallelism as Megatron-LM
/// requires; otherwise the setup's own.
fn widest_ep(setup: &Setup, dp: u64) -> u64 {
    let Some(a) = setup.arch().filter(|a| a.experts > 1) else {
        return setup.ep;
    };
    if setup.mode != Mode::Train || (setup.tp > 1 && !setup.sequence_parallel) {
        return setup.ep;
    }
    let ranks = dp * setup.cp * setup.tp;
    [64, 32, 16, 8, 4, 2, 1]
        .into_iter()
        .find(|&n| a.experts % n == 0 && ranks % (n * setup.expert_tp()) == 0)
        .unwrap_or(setup.ep)
}

/// The smallest data-parallel degree up to [`MAX_SEARCH_DP`] with which `setup` fits, with
/// expert parallelism as wide as each degree allows ([`widest_ep`]; per-GPU memory never grows
/// with the data-parallel degree, so a binary search finds it).
fn smallest_dp(setup: &Setup, capacity: u64) -> Option<u64> {
    let fits = |dp: u64| {
        total_of(&{
            let mut changed = setup.clone();
            changed.ep = widest_ep(setup, dp);
            changed.dp = dp;
            changed
        })
        .is_some_and(|t| t <= capacity)
    };
    if !fits(MAX_SEARCH_DP) {
        return None;
    }
    let (mut lo, mut hi) = (1, MAX_SEARCH_DP);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::{find_gpu, find_model, ModelSpec};

    fn setup(model: &str, mode: Mode) -> Setup {
        let m = find_model(model).unwrap();
        {
            let mut changed = Setup::new(ModelSpec::preset(m.id).unwrap());
            changed.mode = mode;
            changed
        }
    }

    /// Llama 3 70B QLoRA at sequence 4096 with FlashAttention on two data-parallel GPUs.
    fn qlora_70b_on_two_gpus() -> Setup {
        setup("llama-3-70b", Mode::Qlora).with(|r| {
            r.dp = 2;
            r.flash_attention = true;
            r.seq = 4096;
        })
    }

    fn capacity(gpu: &str) -> u64 {
        find_gpu(gpu).unwrap().capacity_bytes
    }

    /// The first-time user's case: Llama 3 70B, QLoRA with FlashAttention, 2 × A100 80GB. It fits
    /// on the GPUs already there by recomputing, and on one GPU; FlashAttention and QLoRA, already
    /// on, are never suggested.
    #[test]
    fn qlora_70b_fits_with_recomputation_not_with_what_is_already_on() {
        let s = qlora_70b_on_two_gpus();
        let cap = capacity("a100-80gb");
        assert!(estimate(&s).unwrap().total > cap);
        let a = advise(&s, cap);
        let same = a.same_gpus.expect("fits on two GPUs");
        assert!(same
            .changes
            .iter()
            .any(|c| matches!(c, Change::Recompute(_))));
        assert!(!same.changes.contains(&Change::FlashAttention));
        let fewest = a.fewest_gpus.expect("fits somewhere");
        assert_eq!(fewest.gpus, 1, "{fewest:?}");
        assert!(fewest.total <= cap);
        assert!(fewest.changes.contains(&Change::Dp(1)));
    }

    /// 70B inference in BF16 (141 GB of weights) cannot fit one 80 GB GPU, but tensor parallel 2 does.
    #[test]
    fn inference_70b_suggests_tensor_parallel() {
        let s = {
            let mut changed = setup("llama-3-70b", Mode::Inference);
            changed.flash_attention = true;
            changed
        };
        let a = advise(&s, capacity("a100-80gb"));
        let fewest = a.fewest_gpus.expect("tp fits");
        assert_eq!(fewest.gpus, 2, "{fewest:?}");
        assert!(fewest.changes.contains(&Change::Tp(2)), "{fewest:?}");
        assert!(!fewest.changes.iter().any(|c| matches!(c, Change::Dp(_))));
    }

    #[test]
    fn a_setup_that_fits_needs_no_advice() {
        let s = setup("gpt2", Mode::Train);
        assert_eq!(advise(&s, capacity("h100-80gb")), Advice::default());
    }

    /// Every suggestion fits, and dropping any one of its memory levers makes it stop fitting.
    #[test]
    fn suggestions_fit_and_carry_no_needless_lever() {
        let cap = capacity("h100-80gb");
        for (model, mode) in [
            ("llama-3-8b", Mode::Train),
            ("llama-3-70b", Mode::Lora),
            ("mixtral-8x7b", Mode::Train),
        ] {
            let s = {
                let mut changed = setup(model, mode);
                changed.seq = 4096;
                changed.dp = 4;
                changed
            };
            let a = advise(&s, cap);
            for sug in [a.same_gpus, a.fewest_gpus, a.fewest_gpus_with_offload]
                .into_iter()
                .flatten()
            {
                let applied = sug.apply(&s);
                assert!(estimate(&applied).unwrap().total <= cap, "{model}: {sug:?}");
                for (i, c) in sug.changes.iter().enumerate() {
                    if matches!(c, Change::Dp(_) | Change::Tp(_) | Change::Pp(_)) {
                        continue;
                    }
                    let mut fewer = sug.clone();
                    fewer.changes.remove(i);
                    let t = estimate(&fewer.apply(&s)).unwrap().total;
                    assert!(t > cap, "{model}: {c} is not needed in {sug:?}");
                }
            }
        }
    }

    #[test]
    fn nothing_fits_a_tiny_gpu() {
        let s = setup("llama-3-70b", Mode::Train);
        let a = advise(&s, 1 << 30);
        assert_eq!(a.same_gpus, None);
        assert_eq!(a.fewest_gpus, None);
    }

    /// The page and the CLI print these sentences: the issue's QLoRA case names recomputation and
    /// never FlashAttention or QLoRA, which are already on.
    #[test]
    fn advice_sentences_name_the_levers_and_never_what_is_on() {
        let s = qlora_70b_on_two_gpus();
        let cap = capacity("a100-80gb");
        let lines = advise(&s, cap).lines(false, 2, "NVIDIA A100 80GB", Units::Gb);
        assert_eq!(lines[0].kind, AdviceKind::SameGpus);
        assert!(
            lines[0].text.starts_with("On the same 2 GPUs: "),
            "{lines:?}"
        );
        assert!(lines[0].text.contains("recomputation"), "{lines:?}");
        for l in &lines {
            assert!(!l.text.contains("FlashAttention"), "{}", l.text);
            assert!(!l.text.contains("QLoRA"), "{}", l.text);
        }
        assert!(lines
            .iter()
            .any(|l| l.text.starts_with("Fewest GPUs: 1 × NVIDIA A100 80GB")));
        assert!(advise(&s, cap).lines(true, 2, "x", Units::Gb).is_empty());
        let nothing = advise(&s, 1 << 30).lines(false, 2, "Tiny", Units::Gb);
        assert_eq!(nothing.len(), 1);
        assert_eq!(nothing[0].kind, AdviceKind::NothingFits);
        assert!(nothing[0].suggestion.is_none());
    }

    #[test]
    fn changes_serialize_as_option_value_and_words() {
        let json = serde_json::to_string(&Change::Tp(2)).unwrap();
        assert_eq!(
            json,
            r#"{"option":"tp","value":"2","words":"tensor parallel 2"}"#
        );
    }

    #[test]
    fn changes_read_as_words_and_as_options() {
        let s = Suggestion {
            changes: vec![Change::Recompute(Recompute::Full), Change::Tp(2)],
            gpus: 2,
            total: 0,
        };
        assert_eq!(
            s.describe(),
            "full recomputation (gradient checkpointing) and tensor parallel 2"
        );
        assert_eq!(Change::Tp(2).key(), "tp");
        assert_eq!(Change::Recompute(Recompute::Full).value(), "full");
        assert_eq!(Change::FlashAttention.value(), "1");
    }
}
