//! `bitbudget scaling`: per-tensor FP8 scaling over a sequence of tensors, Transformer Engine's
//! delayed scaling (the scale from the amax history of the steps before) against current scaling
//! (the scale from the tensor itself): the scale each used, the values each saturated or flushed
//! to zero, and the error.

use crate::commands::quantize::read_f32;
use crate::io::emit;
use bitbudget_math::format::FormatId;
use bitbudget_math::numbers::short;
use bitbudget_math::quant::delayed::{drifting_sequence, simulate, AmaxAlgo, DelayedRecipe};
use clap::Args;

/// Arguments of `scaling`.
#[derive(Args)]
#[command(
    after_help = "With no files, a synthetic tensor whose spread is multiplied by --growth each step."
)]
pub struct ScalingArgs {
    /// Raw little-endian f32 files, one tensor per step, in order.
    files: Vec<String>,
    /// The FP8 format: e4m3 (forward) or e5m2 (gradients).
    #[arg(long, default_value = "e4m3", value_parser = fp8_format)]
    format: FormatId,
    /// Steps of amax history (Transformer Engine's amax_history_len).
    #[arg(long, default_value_t = 1024)]
    amax_history_len: usize,
    /// max (the history's largest) or most-recent (Transformer Engine's amax_compute_algo).
    #[arg(long, default_value = "max", value_parser = |s: &str| s.parse::<AmaxAlgo>())]
    amax_compute_algo: AmaxAlgo,
    /// Powers of two of headroom: scale = max / amax / 2^margin.
    #[arg(long, default_value_t = 0)]
    margin: u32,
    /// Synthetic sequence: the spread's factor per step.
    #[arg(
        long,
        default_value_t = 2.0,
        conflicts_with = "files",
        allow_hyphen_values = true
    )]
    growth: f32,
    /// Synthetic sequence: steps.
    #[arg(long, default_value_t = 8, conflicts_with = "files")]
    steps: usize,
    /// Synthetic sequence: values per tensor.
    #[arg(long, default_value_t = 65_536, conflicts_with = "files")]
    values: usize,
    /// Synthetic sequence: the seed of its normal values.
    #[arg(long, default_value_t = 0, conflicts_with = "files")]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn fp8_format(s: &str) -> Result<FormatId, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "e4m3" | "f8e4m3" => Ok(FormatId::F8E4M3),
        "e5m2" | "f8e5m2" => Ok(FormatId::F8E5M2),
        _ => Err(format!("'{s}' is not an FP8 format: e4m3 or e5m2")),
    }
}

/// The most steps and values of a synthetic sequence.
const MAX_STEPS: usize = 1000;
const MAX_VALUES: usize = 1 << 24;

fn sequence(a: &ScalingArgs) -> Result<Vec<Vec<f32>>, String> {
    if !a.files.is_empty() {
        return a.files.iter().map(|f| read_f32(f)).collect();
    }
    if !(a.growth.is_finite() && a.growth > 0.0 && a.growth <= 1e6) {
        return Err(format!(
            "--growth {} must be a number above 0 and at most 1e6",
            a.growth
        ));
    }
    if a.steps == 0 || a.steps > MAX_STEPS {
        return Err(format!("--steps takes 1 to {MAX_STEPS}"));
    }
    if a.values == 0 || a.values > MAX_VALUES {
        return Err(format!("--values takes 1 to {MAX_VALUES}"));
    }
    if a.steps * a.values > MAX_VALUES {
        return Err(format!(
            "--steps × --values is {}: at most {MAX_VALUES} values in all",
            a.steps * a.values
        ));
    }
    // The last step's spread, against f32's range (the values are normal, a few units wide).
    let last = (a.growth as f64).powi(a.steps as i32 - 1);
    if !(1e-30..=1e30).contains(&last) {
        return Err(format!(
            "--growth {} over {} steps leaves f32's range: fewer steps or a growth nearer 1",
            a.growth, a.steps
        ));
    }
    Ok(drifting_sequence(a.steps, a.values, a.growth, a.seed))
}

/// Runs `scaling`.
pub fn run(a: ScalingArgs) -> Result<(), String> {
    let recipe = DelayedRecipe {
        format: a.format,
        history: a.amax_history_len,
        algo: a.amax_compute_algo,
        margin: a.margin,
    };
    let steps = simulate(&sequence(&a)?, recipe).map_err(|e| e.to_string())?;
    if a.json {
        let doc = serde_json::json!({ "recipe": recipe, "steps": steps });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        return emit(&(text + "\n"));
    }
    let mut out = format!(
        "{} per tensor: delayed scaling (amax history {}, {}, margin {}) against current scaling\n\
         step        amax | delayed: scale  saturated  flushed  SQNR dB | current: scale  saturated  flushed  SQNR dB\n",
        a.format.label(),
        recipe.history,
        match recipe.algo {
            AmaxAlgo::Max => "max",
            AmaxAlgo::MostRecent => "most recent",
        },
        recipe.margin
    );
    let db = |v: f64| {
        if v.is_finite() {
            format!("{v:.1}")
        } else if v == f64::INFINITY {
            "exact".into()
        } else {
            "lost".into()
        }
    };
    for (i, s) in steps.iter().enumerate() {
        out.push_str(&format!(
            "{i:>4} {:>11} | {:>14} {:>10} {:>8} {:>8} | {:>14} {:>10} {:>8} {:>8}\n",
            short(s.amax.into(), 5),
            short(s.delayed.scale.into(), 5),
            s.delayed.saturated,
            s.delayed.flushed,
            db(s.delayed.sqnr_db),
            short(s.current.scale.into(), 5),
            s.current.saturated,
            s.current.flushed,
            db(s.current.sqnr_db)
        ));
    }
    emit(&out)
}
