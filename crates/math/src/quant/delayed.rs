//! Per-tensor FP8 scaling over a sequence of tensors, delayed against current. Transformer
//! Engine's `DelayedScaling` recipe (`transformer_engine/common/recipe`, TE 1.x and 2.x) keeps a
//! history of each FP8 tensor's amax over the last `amax_history_len` steps and quantizes step
//! t with a scale computed from the history of the steps before it: amax = the history's largest
//! (`amax_compute_algo="max"`, the default) or its most recent entry (`"most_recent"`), scale =
//! format max / amax / 2^margin, the scale kept as it was while the history holds no amax (TE
//! starts at 1). A tensor that grows faster than the history follows is quantized with a
//! scale that is too large: its largest values saturate to ±max. One that shrinks below what
//! the history remembers (under `max`) is quantized with too small a scale: its small values flush
//! to zero. Current scaling (`Float8CurrentScaling`, tensorwise) takes the scale from the tensor
//! itself, one extra pass over it: nothing saturates, and only values more than the format's
//! range below the largest flush.
//!
//! Codes are the per-tensor FP8 scheme's ([`super::codec::fp8_encode`]): x ÷ (1 / scale)
//! rounded to nearest even, saturating.

use super::metrics::error_metrics;
use crate::format::fp8::{e4m3, e5m2, Fp8Codec};
use crate::format::FormatId;
use serde::Serialize;

/// How the history's amaxes become one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AmaxAlgo {
    /// The largest of the history (TE's default).
    Max,
    /// The previous step's.
    MostRecent,
}

impl std::str::FromStr for AmaxAlgo {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "max" => Ok(AmaxAlgo::Max),
            "most-recent" => Ok(AmaxAlgo::MostRecent),
            _ => Err(format!(
                "'{s}' is not an amax algorithm: max or most-recent"
            )),
        }
    }
}

/// The longest amax history accepted (TE's default is 1024).
pub const MAX_HISTORY: usize = 1 << 16;

/// A delayed-scaling recipe for one FP8 tensor.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DelayedRecipe {
    /// E4M3 (forward tensors) or E5M2 (gradients in TE's HYBRID format).
    pub format: FormatId,
    /// Steps the history keeps, 1 to [`MAX_HISTORY`].
    pub history: usize,
    /// How the history becomes the amax.
    pub algo: AmaxAlgo,
    /// Powers of two of headroom: scale = max / amax / 2^margin, 0 to 16.
    pub margin: u32,
}

impl Default for DelayedRecipe {
    /// Transformer Engine's defaults: E4M3, a history of 1024, `max`, margin 0.
    fn default() -> Self {
        DelayedRecipe {
            format: FormatId::F8E4M3,
            history: 1024,
            algo: AmaxAlgo::Max,
            margin: 0,
        }
    }
}

/// What quantizing one tensor with one scale did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The scale the values were multiplied by before rounding.
    pub scale: f32,
    /// Values beyond ±max after scaling, stored as ±max.
    pub saturated: usize,
    /// Nonzero values that came back 0.
    pub flushed: usize,
    /// Signal to quantization noise, dB (+inf when exact).
    pub sqnr_db: f64,
}

/// One step of the sequence.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Step {
    /// The tensor's own largest finite magnitude.
    pub amax: f32,
    /// Quantized with the scale from the history of the steps before.
    pub delayed: Outcome,
    /// Quantized with the scale from the tensor itself.
    pub current: Outcome,
}

/// Why a sequence cannot be simulated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DelayedError {
    /// A format other than E4M3 or E5M2.
    Format(FormatId),
    /// A history of 0 or beyond [`MAX_HISTORY`].
    History(usize),
    /// A margin beyond 16.
    Margin(u32),
    /// No tensors, or an empty one.
    Empty,
}

impl std::fmt::Display for DelayedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DelayedError::Format(id) => write!(f, "{id} is not an FP8 format: use e4m3 or e5m2"),
            DelayedError::History(n) => write!(
                f,
                "an amax history of {n} steps: it takes 1 to {MAX_HISTORY}"
            ),
            DelayedError::Margin(m) => write!(f, "a margin of {m}: it takes 0 to 16"),
            DelayedError::Empty => write!(f, "the sequence needs at least one non-empty tensor"),
        }
    }
}

impl std::error::Error for DelayedError {}

fn codec(id: FormatId) -> Result<&'static Fp8Codec, DelayedError> {
    match id {
        FormatId::F8E4M3 => Ok(e4m3()),
        FormatId::F8E5M2 => Ok(e5m2()),
        other => Err(DelayedError::Format(other)),
    }
}

/// The largest finite magnitude of `x` (0 for none).
fn amax_of(x: &[f32]) -> f32 {
    x.iter()
        .map(|v| v.abs())
        .filter(|m| m.is_finite())
        .fold(0.0, f32::max)
}

/// Quantizes `x` with `scale` and measures what happened.
fn quantize(codec: &Fp8Codec, max: f32, x: &[f32], scale: f32) -> Outcome {
    let mut codes = Vec::with_capacity(x.len());
    codec.encode_divided(x, 1.0 / scale, &mut codes);
    let back: Vec<f32> = codes.iter().map(|&b| codec.decode(b) / scale).collect();
    let saturated = x
        .iter()
        .filter(|v| v.is_finite() && (*v * scale).abs() > max)
        .count();
    let flushed = x
        .iter()
        .zip(&back)
        .filter(|(v, b)| **v != 0.0 && v.is_finite() && **b == 0.0)
        .count();
    Outcome {
        scale,
        saturated,
        flushed,
        sqnr_db: error_metrics(x, &back).sqnr_db,
    }
}

/// Quantizes each tensor of `sequence` in turn under `recipe`'s delayed scale and under current
/// scaling. Errors: a format other than FP8, a history or margin out of range, an empty sequence
/// or tensor. NaN and ±inf values are left out of the amaxes, as TE's amax kernels do not (they
/// propagate), so that one bad value does not end the demonstration.
pub fn simulate(sequence: &[Vec<f32>], recipe: DelayedRecipe) -> Result<Vec<Step>, DelayedError> {
    let codec = codec(recipe.format)?;
    if recipe.history == 0 || recipe.history > MAX_HISTORY {
        return Err(DelayedError::History(recipe.history));
    }
    if recipe.margin > 16 {
        return Err(DelayedError::Margin(recipe.margin));
    }
    if sequence.is_empty() || sequence.iter().any(Vec::is_empty) {
        return Err(DelayedError::Empty);
    }
    let max = recipe.format.max_value() as f32;
    let headroom = 2f32.powi(recipe.margin as i32);
    let scale_for = |amax: f32, previous: f32| {
        let s = max / amax / headroom;
        if amax > 0.0 && s.is_finite() {
            s
        } else {
            previous
        }
    };
    let mut history: Vec<f32> = Vec::new();
    let mut scale = 1.0f32;
    let mut steps = Vec::with_capacity(sequence.len());
    for x in sequence {
        let amax = amax_of(x);
        let delayed = quantize(codec, max, x, scale);
        let current = quantize(codec, max, x, scale_for(amax, 1.0));
        steps.push(Step {
            amax,
            delayed,
            current,
        });
        history.push(amax);
        if history.len() > recipe.history {
            history.remove(0);
        }
        let from_history = match recipe.algo {
            AmaxAlgo::Max => history.iter().copied().fold(0.0, f32::max),
            AmaxAlgo::MostRecent => amax,
        };
        scale = scale_for(from_history, scale);
    }
    Ok(steps)
}

/// A sequence of `steps` tensors of `len` normal values (seeded) whose spread is multiplied by
/// `growth` each step (1 keeps it steady, 2 doubles it, 0.5 halves it): an activation or
/// gradient whose magnitude drifts during training.
pub fn drifting_sequence(steps: usize, len: usize, growth: f32, seed: u64) -> Vec<Vec<f32>> {
    let base = super::generate::generate(super::generate::Distribution::Normal, 1, len, 1.0, seed);
    (0..steps)
        .map(|t| {
            let k = growth.powi(t as i32);
            base.iter().map(|v| v * k).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_growing_tensor_saturates_under_the_delayed_scale_and_not_under_current_scaling() {
        let seq = drifting_sequence(6, 4096, 4.0, 1);
        let steps = simulate(&seq, DelayedRecipe::default()).unwrap();
        // Step 0 uses TE's initial scale 1: the normal values fit E4M3 as they are.
        assert_eq!(steps[0].delayed.scale, 1.0);
        for s in &steps[1..] {
            assert!(s.delayed.saturated > 0, "{s:?}");
            assert_eq!(s.current.saturated, 0, "{s:?}");
            assert!(s.current.sqnr_db > s.delayed.sqnr_db, "{s:?}");
            // The delayed scale is the previous step's amax: a quarter of this one.
            let lagging = 448.0 / (s.amax / 4.0);
            assert!((s.delayed.scale / lagging - 1.0).abs() < 1e-5, "{s:?}");
        }
    }

    #[test]
    fn a_shrinking_tensor_flushes_under_a_max_history_but_follows_most_recent() {
        let seq = drifting_sequence(8, 4096, 1.0 / 16.0, 2);
        let max = simulate(&seq, DelayedRecipe::default()).unwrap();
        let recent = simulate(
            &seq,
            DelayedRecipe {
                algo: AmaxAlgo::MostRecent,
                ..DelayedRecipe::default()
            },
        )
        .unwrap();
        let last = seq.len() - 1;
        assert!(
            max[last].delayed.flushed > max[last].current.flushed,
            "{:?}",
            max[last]
        );
        assert!(recent[last].delayed.flushed < max[last].delayed.flushed);
        // A history of one step behaves as most_recent.
        let one = simulate(
            &seq,
            DelayedRecipe {
                history: 1,
                ..DelayedRecipe::default()
            },
        )
        .unwrap();
        assert_eq!(one, recent);
    }

    #[test]
    fn bad_recipes_say_what_they_take() {
        let seq = drifting_sequence(2, 8, 1.0, 3);
        let r = DelayedRecipe::default();
        for (bad, says) in [
            (
                DelayedRecipe {
                    format: FormatId::Bf16,
                    ..r
                },
                "not an FP8 format",
            ),
            (DelayedRecipe { history: 0, ..r }, "1 to 65536"),
            (DelayedRecipe { margin: 99, ..r }, "0 to 16"),
        ] {
            assert!(simulate(&seq, bad).unwrap_err().to_string().contains(says));
        }
        assert_eq!(simulate(&[], r), Err(DelayedError::Empty));
        assert_eq!("most_recent".parse(), Ok(AmaxAlgo::MostRecent));
        assert!("mean".parse::<AmaxAlgo>().is_err());
        // An all-zero step keeps the scale; a NaN is left out of the amax.
        let zeros = vec![vec![0.0; 4], vec![1.0, f32::NAN, -2.0, 0.5]];
        let s = simulate(&zeros, r).unwrap();
        assert_eq!(s[1].delayed.scale, 1.0);
        assert_eq!(s[1].amax, 2.0);
    }
}
