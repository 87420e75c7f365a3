//! The tolerance of the GPU's measuring pass against the CPU (derived in measure.rs), and the
//! checks that the tests on lavapipe, in Chromium and of the CLI share.

use bitbudget_math::quant::lab::{HeatRun, MeasureSetup, PartSummary};
use bitbudget_math::quant::metrics::ErrorMetrics;

/// Relative bound on the GPU's Σe², Σx², Σx̂² (and so MSE and each block's squared error), and
/// on Σx·x̂ relative to √(Σx²·Σx̂²): γ₃₃ for u = 2⁻²⁴ is 1.97·10⁻⁶ (see the module docs),
/// rounded up.
pub const SUM_TOLERANCE: f64 = 2.5e-6;

/// Relative bound on the GPU's largest error: one f32 rounding of the CPU's f64 difference
/// (half an ulp, 2⁻²⁴ of it), plus [`MAX_ERROR_ABSOLUTE`] where the error is subnormal.
pub const MAX_ERROR_TOLERANCE: f64 = 1.0 / (1u64 << 24) as f64;

/// Absolute part of the largest error's bound: half the smallest subnormal f32 step, 2⁻¹⁵⁰.
pub const MAX_ERROR_ABSOLUTE: f64 = 1.0 / (1u128 << 100) as f64 / (1u64 << 50) as f64;

/// Whether the GPU's largest error `g` is within one f32 rounding of the CPU's `c`.
fn max_error_close(g: f64, c: f64) -> bool {
    g.to_bits() == c.to_bits()
        || (g - c).abs() <= MAX_ERROR_TOLERANCE * c.abs() + MAX_ERROR_ABSOLUTE
}

/// Whether `gpu`'s metrics are those of `cpu` within the stated tolerance: skipped and lost
/// equal; MSE and RMSE within [`SUM_TOLERANCE`] (relative); SQNR within the dB that the
/// tolerance of its two sums allows; cosine within 2·[`SUM_TOLERANCE`] (absolute); the largest
/// error within [`MAX_ERROR_TOLERANCE`]. Infinite and NaN results must match exactly. `Err`
/// names the first metric that differs.
pub fn metrics_within_tolerance(cpu: &ErrorMetrics, gpu: &ErrorMetrics) -> Result<(), String> {
    if (cpu.skipped, cpu.lost) != (gpu.skipped, gpu.lost) {
        return Err(format!(
            "skipped/lost: cpu {}/{} gpu {}/{}",
            cpu.skipped, cpu.lost, gpu.skipped, gpu.lost
        ));
    }
    let db = 10.0 / std::f64::consts::LN_10 * 2.0 * SUM_TOLERANCE;
    let checks = [
        ("mse", cpu.mse, gpu.mse, SUM_TOLERANCE * cpu.mse.abs()),
        ("rmse", cpu.rmse, gpu.rmse, SUM_TOLERANCE * cpu.rmse.abs()),
        ("sqnr_db", cpu.sqnr_db, gpu.sqnr_db, db),
        ("cosine", cpu.cosine, gpu.cosine, 2.0 * SUM_TOLERANCE),
        // Σ(x̂ − x) is within the tolerance of Σ|e| ≤ n · RMSE.
        (
            "mean_error",
            cpu.mean_error,
            gpu.mean_error,
            SUM_TOLERANCE * cpu.rmse.abs(),
        ),
        (
            "max_abs_error",
            cpu.max_abs_error,
            gpu.max_abs_error,
            MAX_ERROR_TOLERANCE * cpu.max_abs_error + MAX_ERROR_ABSOLUTE,
        ),
    ];
    for (name, c, g, bound) in checks {
        let same = c.to_bits() == g.to_bits() || (c.is_nan() && g.is_nan());
        let near = (c - g).abs() <= bound;
        if !same && !near {
            return Err(format!("{name}: cpu {c} gpu {g} (allowed ±{bound:e})"));
        }
    }
    Ok(())
}

/// Error-map runs summed per block: (values, Σe², finite pairs, lost) of each block touched.
fn per_block(runs: &[HeatRun], block: usize, offset: usize) -> Vec<(usize, f64, usize, bool)> {
    let mut out: Vec<(usize, f64, usize, bool)> = Vec::new();
    let mut in_block = offset;
    for r in runs {
        if out.is_empty() || in_block == 0 {
            out.push((0, 0.0, 0, false));
        }
        if let Some(b) = out.last_mut() {
            (b.0, b.1, b.2, b.3) = (b.0 + r.len, b.1 + r.se, b.2 + r.count, b.3 || r.lost);
        }
        in_block = (in_block + r.len) % block.max(1);
    }
    out
}

/// Whether `got` is within `relative` of `want` (or the same infinity, or both NaN).
fn close(got: f64, want: f64, relative: f64) -> bool {
    got == want || (got - want).abs() <= relative * want.abs() || (got.is_nan() && want.is_nan())
}

/// Whether a part's summary from the GPU (`gpu`) is the CPU reference's (`cpu`,
/// `bitbudget_math::quant::lab::summarize` under the same `setup`): value bins, fine error bins
/// and counts identical, each error-map block's values, pairs and lost flag identical, its Σe²
/// and the sums within [`SUM_TOLERANCE`], the largest error within [`MAX_ERROR_TOLERANCE`] (and [`MAX_ERROR_ABSOLUTE`]).
/// `Err` names the first thing that differs.
pub fn summary_within_tolerance(
    gpu: &PartSummary,
    cpu: &PartSummary,
    setup: &MeasureSetup,
) -> Result<(), String> {
    let first_diff =
        |g: &[u64], c: &[u64]| (0..c.len().max(g.len())).find(|i| g.get(*i) != c.get(*i));
    let widen = |v: &[u32]| v.iter().map(|c| *c as u64).collect::<Vec<_>>();
    let (gv, cv) = (widen(&gpu.dequantized), widen(&cpu.dequantized));
    if let Some(i) = first_diff(&gv, &cv) {
        return Err(format!(
            "value bin {i}: GPU {:?} CPU {:?}",
            gv.get(i),
            cv.get(i)
        ));
    }
    if gpu.errors.exponent() != cpu.errors.exponent() {
        return Err(format!(
            "error range 2^{:?}: CPU 2^{:?}",
            gpu.errors.exponent(),
            cpu.errors.exponent()
        ));
    }
    let (ge, ce) = (gpu.errors.fine_counts(), cpu.errors.fine_counts());
    if let Some(i) = first_diff(&ge, &ce) {
        return Err(format!("fine error bin {i}: GPU {} CPU {}", ge[i], ce[i]));
    }
    let (g, c) = (&gpu.sums, &cpu.sums);
    if (g.counted, g.skipped, g.lost) != (c.counted, c.skipped, c.lost) {
        return Err(format!(
            "counted/skipped/lost: GPU {}/{}/{} CPU {}/{}/{}",
            g.counted, g.skipped, g.lost, c.counted, c.skipped, c.lost
        ));
    }
    let cross = SUM_TOLERANCE * (c.sx * c.sy).sqrt();
    let sums = [
        ("Σe²", g.se, c.se, close(g.se, c.se, SUM_TOLERANCE)),
        ("Σx²", g.sx, c.sx, close(g.sx, c.sx, SUM_TOLERANCE)),
        ("Σx̂²", g.sy, c.sy, close(g.sy, c.sy, SUM_TOLERANCE)),
        ("Σx·x̂", g.sxy, c.sxy, (g.sxy - c.sxy).abs() <= cross),
        // Within the tolerance of Σ|e| ≤ √(n · Σe²).
        (
            "Σ(x − x̂)",
            g.sd,
            c.sd,
            (g.sd - c.sd).abs() <= SUM_TOLERANCE * (c.counted as f64 * c.se).sqrt(),
        ),
        (
            "largest error",
            g.max_abs_error,
            c.max_abs_error,
            max_error_close(g.max_abs_error, c.max_abs_error),
        ),
    ];
    if let Some((name, gs, cs, _)) = sums.iter().find(|s| !s.3) {
        return Err(format!("{name}: GPU {gs:e} CPU {cs:e}"));
    }
    let (block, offset) = (setup.heat_block, setup.heat_offset);
    let (gb, cb) = (
        per_block(&gpu.heat, block, offset),
        per_block(&cpu.heat, block, offset),
    );
    if gb.len() != cb.len() {
        return Err(format!(
            "error-map blocks: GPU {} CPU {}",
            gb.len(),
            cb.len()
        ));
    }
    for (k, (gr, cr)) in gb.iter().zip(&cb).enumerate() {
        if (gr.0, gr.2, gr.3) != (cr.0, cr.2, cr.3) || !close(gr.1, cr.1, SUM_TOLERANCE) {
            return Err(format!("error-map block {k}: GPU {gr:?} CPU {cr:?}"));
        }
    }
    Ok(())
}
