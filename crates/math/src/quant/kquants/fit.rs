//! The per-sub-block searches of llama.cpp's K-quant reference quantizers (ggml-quants.c
//! `make_qkx2_quants`, `make_qx_quants` with `rmse_type = 1`, `make_q3_quants` with `do_rmse`),
//! ported operation for operation in `f32` so that the chosen scales and codes are identical.
//!
//! None of them allocates: codes go to caller-provided arrays.

use super::f4::F4;
use super::{nearest_int, x86_nan};

/// A sub-block whose largest magnitude is below this is all zero (llama.cpp `GROUP_MAX_EPS`).
pub const GROUP_MAX_EPS: f32 = 1e-15;

/// The value of largest magnitude (the first one on ties) and that magnitude; NaN never wins.
#[inline]
fn signed_absmax(x: &[f32]) -> (f32, f32) {
    let (mut max, mut amax) = (0f32, 0f32);
    for &v in x {
        let a = v.abs();
        if a > amax {
            amax = a;
            max = v;
        }
    }
    (max, amax)
}

/// The largest magnitude of a scaled value for which clamping to the code range before rounding
/// with [`F4::round_even_small`] equals [`nearest_int`] followed by the clamp (below 2^22 both are
/// exact).
const SAFE_REACH: f32 = 4_000_000.0;

/// Where every scaled value is below [`SAFE_REACH`] in magnitude (always, for finite sub-blocks
/// of sane range): `t` clamped to `lo..=hi` (integers) and rounded to an integer, ties to even, in the
/// float domain, which equals `nearest_int(t).clamp(lo, hi)` there and needs no integer lanes.
#[inline(always)]
fn clamped_code(t: F4, lo: F4, hi: F4) -> F4 {
    t.pmax(lo).pmin(hi).round_even_small()
}

/// The codes re-derived from a sub-block's stored scale, four at a time: for each `x`,
/// `nearest_int(t).clamp(lo, hi) − lo` with `t = (x + offset) / d` (or `x / d` without an
/// offset), the same f32 operations as the reference's loop. Lanes whose `t` is at least
/// [`SAFE_REACH`] in magnitude or NaN take `nearest_int` itself. `xs` is a multiple of 4 long
/// and `out` as long: `out[i]` receives `cast(code)` of `xs[i]`.
pub(crate) fn divided_codes<T>(
    xs: &[f32],
    offset: Option<f32>,
    d: f32,
    lo: i32,
    hi: i32,
    out: &mut [T],
    cast: impl Fn(u8) -> T,
) {
    let (dv, lov, hiv) = (F4::splat(d), F4::splat(lo as f32), F4::splat(hi as f32));
    let reach = F4::splat(SAFE_REACH);
    for (x4, out4) in xs.chunks_exact(4).zip(out.chunks_exact_mut(4)) {
        let x = F4::new([x4[0], x4[1], x4[2], x4[3]]);
        let t = match offset {
            Some(m) => x.add(F4::splat(m)).div(dv),
            None => x.div(dv),
        };
        let codes = if t.abs().lt(reach).all() {
            clamped_code(t, lov, hiv).to_array().map(|f| f as i32)
        } else {
            // Out of reach, infinite or NaN: one lane at a time, with x86's NaN made explicit.
            std::array::from_fn(|k| {
                let v = x4[k];
                let s = offset.map_or(v, |m| x86_nan(v, m, v + m));
                nearest_int(x86_nan(s, d, s / d)).clamp(lo, hi)
            })
        };
        for (o, code) in out4.iter_mut().zip(codes) {
            *o = cast((code - lo) as u8);
        }
    }
}

/// Lanes of sub-blocks, four per [`F4`]; [`scale_and_min`] takes up to 16 sub-blocks.
const MAX_VECTORS: usize = 4;

/// Fits `L` sub-blocks at once, each as llama.cpp's `make_qkx2_quants` does: `x ≈ scale·q − min`
/// with codes `q` in `0..=nmax` and `min ≥ 0`, minimising `Σ w·err` where `err` is the squared
/// error, or the absolute error when `use_mad`. Starting from the range `[min(x, 0), max(x)]`, it
/// tries `nstep + 1` candidate scales `(rmin + rdelta·is + nmax) / range` in order, solves the
/// weighted least-squares scale and offset for each candidate's codes, and keeps a candidate when
/// it lowers the error; a kept candidate's offset is the `min` that later candidates start from.
/// Returns per sub-block `(scale, min)` (the offset is subtracted on dequantizing) and writes the
/// codes; a constant sub-block gives scale 0 with codes 0.
///
/// The data are transposed: `x[i][k]` is value i of sub-block k (likewise `weights` and `codes`).
/// Every lane runs the reference's sequential loop on its own sub-block, with the same f32
/// operations in the same order, so the results are bit-identical with it, and the lanes become
/// SIMD (SSE natively, simd128 in WebAssembly).
#[allow(clippy::too_many_arguments)]
pub fn scale_and_min<const N: usize, const L: usize>(
    x: &[[f32; L]; N],
    weights: &[[f32; L]; N],
    nmax: i32,
    rmin: f32,
    rdelta: f32,
    nstep: i32,
    use_mad: bool,
    codes: &mut [[u8; L]; N],
) -> ([f32; L], [f32; L]) {
    const { assert!(L % 4 == 0 && L / 4 <= MAX_VECTORS) };
    let nv = L / 4;
    let zero = F4::splat(0.0);
    let vectors = |a: &[f32; L]| {
        let mut v = [zero; MAX_VECTORS];
        for (k, vk) in v.iter_mut().enumerate().take(nv) {
            *vk = F4::new([a[4 * k], a[4 * k + 1], a[4 * k + 2], a[4 * k + 3]]);
        }
        v
    };
    let xv: [[F4; MAX_VECTORS]; N] = std::array::from_fn(|i| vectors(&x[i]));
    let wv: [[F4; MAX_VECTORS]; N] = std::array::from_fn(|i| vectors(&weights[i]));
    let error = |d: F4| if use_mad { d.abs() } else { d.mul(d) };
    let top = F4::splat(nmax as f32);
    let (mut min, mut max) = (xv[0], xv[0]);
    let mut sum_w = wv[0];
    let mut sum_x = [zero; MAX_VECTORS];
    let mut has_nan = [zero.is_nan(); MAX_VECTORS];
    for v in 0..nv {
        sum_x[v] = sum_w[v].mul(xv[0][v]);
        has_nan[v] = xv[0][v].is_nan();
    }
    for i in 1..N {
        for v in 0..nv {
            let xi = xv[i][v];
            min[v] = F4::select(xi.lt(min[v]), xi, min[v]);
            max[v] = F4::select(xi.gt(max[v]), xi, max[v]);
            sum_w[v] = sum_w[v].add(wv[i][v]);
            sum_x[v] = sum_x[v].add(wv[i][v].mul(xi));
            has_nan[v] = has_nan[v].or(xi.is_nan());
        }
    }
    // The smallest value before `min` is capped at 0: with `max` it bounds every `x − min`.
    let lowest = min;
    let mut constant = [zero.is_nan(); MAX_VECTORS];
    let mut iscale = [zero; MAX_VECTORS];
    let mut scale = [zero; MAX_VECTORS];
    for v in 0..nv {
        min[v] = F4::select(min[v].gt(zero), zero, min[v]);
        constant[v] = max[v].eq(min[v]);
        iscale[v] = top.div(max[v].sub(min[v]));
        scale[v] = F4::splat(1.0).div(iscale[v]);
    }
    let start_min = min;
    // Each lane's largest |x − min| (infinite where NaN), which bounds every scaled value
    // `iscale·(x − min)`. Since `x − min` rounds monotonically in x, it is the larger of
    // `|lowest − min|` and `|max − min|` unless some x is NaN.
    let reach_of = |v: usize, min: F4| {
        let (a, b) = (lowest[v].sub(min).abs(), max[v].sub(min).abs());
        let r = F4::select(a.gt(b), a, b);
        let nan = has_nan[v].or(a.is_nan()).or(b.is_nan());
        F4::select(nan, F4::splat(f32::INFINITY), r)
    };
    // Whether every scaled value `iscale·(x − min)` is below SAFE_REACH in magnitude.
    let safe_for = |iscale: &[F4; MAX_VECTORS], reach: &[F4; MAX_VECTORS]| {
        (0..nv).all(|v| {
            iscale[v]
                .abs()
                .mul(reach[v])
                .lt(F4::splat(SAFE_REACH))
                .all()
        })
    };
    let mut best_error = [zero; MAX_VECTORS];
    // With at most two vectors (Q4_K, Q5_K) the best codes are not copied on each keep: the
    // scale and min that gave them are kept, and the codes recomputed from them at the end with
    // the same operations. With four (Q2_K) the copies measured faster in WebAssembly (the kept
    // scales and mins crowd the registers).
    let recompute = nv <= 2;
    let (mut best_iscale, mut best_shift) = (iscale, min);
    let mut aux = [[zero; MAX_VECTORS]; N];
    let reach: [F4; MAX_VECTORS] = std::array::from_fn(|v| reach_of(v, min[v]));
    shifted_codes(
        nv,
        &iscale,
        &min,
        &xv,
        safe_for(&iscale, &reach),
        nmax,
        &mut aux,
    );
    for i in 0..N {
        for v in 0..nv {
            let diff = scale[v].mul(aux[i][v]).add(min[v]).sub(xv[i][v]);
            best_error[v] = best_error[v].add(wv[i][v].mul(error(diff)));
        }
    }
    let mut best_codes = [[zero; MAX_VECTORS]; N];
    if !recompute {
        best_codes = aux;
    }
    // The candidate scales (llama.cpp's `for is in 0..=nstep` loop). `x − min` changes only when
    // a kept candidate moves `min`: computed then, with its reach.
    let mut shifted = [[zero; MAX_VECTORS]; N];
    let mut reach = reach;
    let mut min_changed = true;
    // llama.cpp skips the search when nstep < 1.
    let trials = 0..=if nstep >= 1 { nstep } else { -1 };
    for is in trials {
        let step = F4::splat(rmin + rdelta * is as f32 + nmax as f32);
        if min_changed {
            for v in 0..nv {
                for i in 0..N {
                    shifted[i][v] = xv[i][v].sub(min[v]);
                }
                reach[v] = reach_of(v, min[v]);
            }
            min_changed = false;
        }
        for v in 0..nv {
            iscale[v] = step.div(max[v].sub(min[v]));
        }
        let safe = safe_for(&iscale, &reach);
        // The branch is taken once per trial, outside the loop over the values.
        let (sl, sl2, sxl) = if safe {
            // No NaN here, so the lower clamp is `max_zero` (one instruction in WebAssembly,
            // where LLVM turns `pmax(t, 0)` into two).
            codes_and_sums(nv, &iscale, &shifted, &xv, &wv, &mut aux, |t| {
                t.max_zero().pmin(top).round_even_small()
            })
        } else {
            codes_and_sums(nv, &iscale, &shifted, &xv, &wv, &mut aux, |t| {
                F4::new(t.to_array().map(|t| nearest_int(t).clamp(0, nmax) as f32))
            })
        };
        let (mut this_scale, mut this_min, mut usable) = (
            [zero; MAX_VECTORS],
            [zero; MAX_VECTORS],
            [zero.is_nan(); MAX_VECTORS],
        );
        for v in 0..nv {
            let det = sum_w[v].mul(sl2[v]).sub(sl[v].mul(sl[v]));
            usable[v] = det.gt(zero);
            let s = sum_w[v].mul(sxl[v]).sub(sum_x[v].mul(sl[v])).div(det);
            let m = sl2[v].mul(sum_x[v]).sub(sl[v].mul(sxl[v])).div(det);
            let positive = m.gt(zero);
            this_min[v] = F4::select(positive, zero, m);
            this_scale[v] = F4::select(positive, sxl[v].div(sl2[v]), s);
        }
        let mut cur = [zero; MAX_VECTORS];
        for i in 0..N {
            for v in 0..nv {
                let diff = this_scale[v].mul(aux[i][v]).add(this_min[v]).sub(xv[i][v]);
                cur[v] = cur[v].add(wv[i][v].mul(error(diff)));
            }
        }
        for v in 0..nv {
            let keep = usable[v].and(cur[v].lt(best_error[v]));
            if keep.any() {
                best_error[v] = F4::select(keep, cur[v], best_error[v]);
                scale[v] = F4::select(keep, this_scale[v], scale[v]);
                if recompute {
                    best_iscale[v] = F4::select(keep, iscale[v], best_iscale[v]);
                    best_shift[v] = F4::select(keep, min[v], best_shift[v]);
                } else {
                    for i in 0..N {
                        best_codes[i][v] = F4::select(keep, aux[i][v], best_codes[i][v]);
                    }
                }
                min_changed |= keep.and(this_min[v].bits_ne(min[v])).any();
                min[v] = F4::select(keep, this_min[v], min[v]);
            }
        }
    }
    if recompute {
        let reach: [F4; MAX_VECTORS] = std::array::from_fn(|v| reach_of(v, best_shift[v]));
        let safe = safe_for(&best_iscale, &reach);
        shifted_codes(
            nv,
            &best_iscale,
            &best_shift,
            &xv,
            safe,
            nmax,
            &mut best_codes,
        );
    }
    // A constant sub-block: scale 0, codes 0 and its starting min.
    let (mut scales, mut neg_mins) = ([0f32; L], [0f32; L]);
    for v in 0..nv {
        let sc = F4::select(constant[v], zero, scale[v]);
        let m = F4::select(constant[v], start_min[v], min[v]);
        scales[4 * v..4 * v + 4].copy_from_slice(&sc.to_array());
        neg_mins[4 * v..4 * v + 4].copy_from_slice(&m.neg().to_array());
        for i in 0..N {
            let c = F4::select(constant[v], zero, best_codes[i][v]).to_array();
            for (out, f) in codes[i][4 * v..4 * v + 4].iter_mut().zip(c) {
                *out = f as u8;
            }
        }
    }
    (scales, neg_mins)
}

/// The codes `nearest_int(iscale · (x − shift)).clamp(0, nmax)` of [`scale_and_min`]'s `nv`
/// vectors of lanes, with the float-domain rounding when `safe` (every scaled value below
/// [`SAFE_REACH`] in magnitude, NaN excluded) and the reference's integer trick otherwise: the
/// branch is taken once, outside the loop.
#[inline(always)]
fn shifted_codes<const N: usize>(
    nv: usize,
    iscale: &[F4; MAX_VECTORS],
    shift: &[F4; MAX_VECTORS],
    xv: &[[F4; MAX_VECTORS]; N],
    safe: bool,
    nmax: i32,
    out: &mut [[F4; MAX_VECTORS]; N],
) {
    let top = F4::splat(nmax as f32);
    if safe {
        for i in 0..N {
            for v in 0..nv {
                let t = iscale[v].mul(xv[i][v].sub(shift[v]));
                out[i][v] = t.max_zero().pmin(top).round_even_small();
            }
        }
    } else {
        for i in 0..N {
            for v in 0..nv {
                let t = iscale[v].mul(xv[i][v].sub(shift[v]));
                out[i][v] = F4::new(t.to_array().map(|t| nearest_int(t).clamp(0, nmax) as f32));
            }
        }
    }
}

/// One trial of [`scale_and_min`] over its `nv` vectors of lanes: each code `aux = code(iscale ·
/// shifted)`, and the sums `Σw·l`, `Σw·l·l` and `Σw·l·x` in the reference's order (`w·l` first).
#[inline(always)]
fn codes_and_sums<const N: usize>(
    nv: usize,
    iscale: &[F4; MAX_VECTORS],
    shifted: &[[F4; MAX_VECTORS]; N],
    xv: &[[F4; MAX_VECTORS]; N],
    wv: &[[F4; MAX_VECTORS]; N],
    aux: &mut [[F4; MAX_VECTORS]; N],
    code: impl Fn(F4) -> F4,
) -> ([F4; MAX_VECTORS], [F4; MAX_VECTORS], [F4; MAX_VECTORS]) {
    let zero = F4::splat(0.0);
    let (mut sl, mut sl2, mut sxl) = (
        [zero; MAX_VECTORS],
        [zero; MAX_VECTORS],
        [zero; MAX_VECTORS],
    );
    for i in 0..N {
        for v in 0..nv {
            let lf = code(iscale[v].mul(shifted[i][v]));
            aux[i][v] = lf;
            let wl = wv[i][v].mul(lf);
            sl[v] = sl[v].add(wl);
            sl2[v] = sl2[v].add(wl.mul(lf));
            sxl[v] = sxl[v].add(wl.mul(xv[i][v]));
        }
    }
    (sl, sl2, sxl)
}

/// Codes `nearest_int(iscale·x) + nmax` (clamped to 0..2·nmax) into `codes`, and the sums
/// `(Σw·x·l, Σw·l²)` under weights `x²`, in llama.cpp's order (`make_qx_quants`' inner loop).
pub(super) fn symmetric_sums<const N: usize>(
    x: &[f32; N],
    iscale: f32,
    nmax: i32,
    codes: &mut [i8; N],
) -> (f32, f32) {
    let (mut sumlx, mut suml2) = (0f32, 0f32);
    for i in 0..N {
        let l = nearest_int(iscale * x[i]).clamp(-nmax, nmax - 1);
        codes[i] = (l + nmax) as i8;
        let w = x[i] * x[i];
        let lf = l as f32;
        sumlx += w * x[i] * lf;
        suml2 += w * lf * lf;
    }
    (sumlx, suml2)
}

/// The start shared by [`symmetric`] and its line-by-line reference: codes from the scale
/// `-nmax / max` (`max` the value of largest magnitude), then the least-squares scale
/// `Σw·x·l / Σw·l²` under weights `x²`. Returns `(max, scale, scale·Σw·x·l)`, or `None` (codes
/// all 0) for a sub-block whose largest magnitude is below [`GROUP_MAX_EPS`].
fn symmetric_start<const N: usize>(
    x: &[f32; N],
    nmax: i32,
    codes: &mut [i8; N],
) -> Option<(f32, f32, f32)> {
    let (max, amax) = signed_absmax(x);
    if amax < GROUP_MAX_EPS {
        codes.fill(0);
        return None;
    }
    let (sumlx, suml2) = symmetric_sums(x, -(nmax as f32) / max, nmax, codes);
    let scale = if suml2 != 0.0 { sumlx / suml2 } else { 0.0 };
    Some((max, scale, scale * sumlx))
}

/// Fits a signed scale to `x` with codes `l` in `-nmax..nmax` under weights `x²` (llama.cpp
/// `make_qx_quants` with `rmse_type = 1` and no importance): starts from `l = nearest(-nmax/max ·
/// x)` where `max` is the value of largest magnitude, refits the least-squares scale
/// `Σw·x·l / Σw·l²`, then tries the 18 scales `-(nmax + 0.1·is)/max` for `is` in ±1..=±9 and keeps
/// the one with the largest `(Σw·x·l)² / Σw·l²` (evaluated side by side, compared in order).
/// Writes `l + nmax` (in `0..2·nmax`) and returns
/// the scale (negative when `max` is positive, since the start divides by `-max`); an all-zero
/// sub-block gives 0 with codes 0.
pub fn symmetric<const N: usize>(x: &[f32; N], nmax: i32, codes: &mut [i8; N]) -> f32 {
    let Some((max, mut scale, mut best)) = symmetric_start(x, nmax, codes) else {
        return 0.0;
    };
    // The 18 trial scales depend only on `max`, so they are evaluated four at a time (the last
    // vector repeats is = 9 twice, unused) and then compared in the reference's order
    // (is = −9 … −1, 1 … 9).
    const TRIALS: [i32; 20] = [
        -9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9,
    ];
    let mut iscale = [F4::splat(0.0); 5];
    for (v, s) in iscale.iter_mut().enumerate() {
        *s = F4::new([0, 1, 2, 3].map(|k| -(nmax as f32 + 0.1 * TRIALS[4 * v + k] as f32) / max));
    }
    // For finite x, |iscale·x| ≤ (nmax + 0.9)·|x|/|max| is at most about nmax + 1: the float
    // rounding of `clamped_code` equals nearest_int there. Infinities and NaN take the
    // reference's integer trick.
    // The branch is taken once, outside the loop over the values.
    let (lo, hi) = (F4::splat(-nmax as f32), F4::splat((nmax - 1) as f32));
    let mut trial = [[F4::splat(0.0); 5]; N];
    let (slx, sl2) = if x.iter().all(|v| v.is_finite()) {
        symmetric_trials(x, &iscale, &mut trial, |t| clamped_code(t, lo, hi))
    } else {
        symmetric_trials(x, &iscale, &mut trial, |t| {
            F4::new(
                t.to_array()
                    .map(|t| nearest_int(t).clamp(-nmax, nmax - 1) as f32),
            )
        })
    };
    let (slx, sl2) = (slx.map(F4::to_array), sl2.map(F4::to_array));
    for t in 0..18 {
        let (v, k) = (t / 4, t % 4);
        if sl2[v][k] > 0.0 && slx[v][k] * slx[v][k] > best * sl2[v][k] {
            for i in 0..N {
                codes[i] = (trial[i][v].to_array()[k] as i32 + nmax) as i8;
            }
            scale = slx[v][k] / sl2[v][k];
            best = scale * slx[v][k];
        }
    }
    scale
}

/// The trials of [`symmetric`], four per vector: each trial's codes `code(iscale · x)` and its
/// sums `Σw·x·l` and `Σw·l·l` under weights `w = x²`, in the reference's order.
#[inline(always)]
fn symmetric_trials<const N: usize>(
    x: &[f32; N],
    iscale: &[F4; 5],
    trial: &mut [[F4; 5]; N],
    code: impl Fn(F4) -> F4,
) -> ([F4; 5], [F4; 5]) {
    let zero = F4::splat(0.0);
    let (mut slx, mut sl2) = ([zero; 5], [zero; 5]);
    for i in 0..N {
        let xi = F4::splat(x[i]);
        let w = xi.mul(xi);
        let wx = w.mul(xi);
        for v in 0..5 {
            let lf = code(iscale[v].mul(xi));
            trial[i][v] = lf;
            slx[v] = slx[v].add(wx.mul(lf));
            sl2[v] = sl2[v].add(w.mul(lf).mul(lf));
        }
    }
    (slx, sl2)
}

/// Q3_K's fit (llama.cpp `make_q3_quants` with `do_rmse`): codes `l` in `-nmax..nmax` start from
/// `nearest(-nmax/max · x)`; then up to five sweeps move single codes to
/// `nearest(x·Σl² / Σx·l)` (the other codes' least-squares optimum) when that raises
/// `(Σw·x·l)² / Σw·l²` with weights `x²`. Writes `l + nmax` and returns `Σw·x·l / Σw·l²` (0 when
/// that denominator is not positive); an all-zero sub-block gives 0 with codes 0.
pub fn q3<const N: usize>(x: &[f32; N], nmax: i32, codes: &mut [i8; N]) -> f32 {
    let (max, amax) = signed_absmax(x);
    if amax < GROUP_MAX_EPS {
        codes.fill(0);
        return 0.0;
    }
    let iscale = -(nmax as f32) / max;
    let (mut sumlx, mut suml2) = (0f32, 0f32);
    let mut l = [0i32; N];
    for i in 0..N {
        l[i] = nearest_int(iscale * x[i]).clamp(-nmax, nmax - 1);
        let w = x[i] * x[i];
        let lf = l[i] as f32;
        sumlx += w * x[i] * lf;
        suml2 += w * lf * lf;
    }
    for _ in 0..5 {
        let mut changed = false;
        for i in 0..N {
            let w = x[i] * x[i];
            let li = l[i] as f32;
            let mut slx = sumlx - w * x[i] * li;
            if slx > 0.0 {
                let mut sl2 = suml2 - w * li * li;
                let new_l = nearest_int(x[i] * sl2 / slx).clamp(-nmax, nmax - 1);
                if new_l != l[i] {
                    let nf = new_l as f32;
                    slx += w * x[i] * nf;
                    sl2 += w * nf * nf;
                    if sl2 > 0.0 && slx * slx * suml2 > sumlx * sumlx * sl2 {
                        l[i] = new_l;
                        sumlx = slx;
                        suml2 = sl2;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for (c, li) in codes.iter_mut().zip(l) {
        *c = (li + nmax) as i8;
    }
    if suml2 > 0.0 {
        sumlx / suml2
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests;
