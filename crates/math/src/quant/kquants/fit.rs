//! The per-sub-block searches of llama.cpp's K-quant reference quantizers (ggml-quants.c
//! `make_qkx2_quants`, `make_qx_quants` with `rmse_type = 1`, `make_q3_quants` with `do_rmse`),
//! ported operation for operation in `f32` so that the chosen scales and codes are identical.
//!
//! None of them allocates: codes go to caller-provided arrays.

use super::nearest_int;

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

/// Fits `x ≈ scale·q − min` with codes `q` in `0..=nmax` and `min ≥ 0` (llama.cpp
/// `make_qkx2_quants`), minimising `Σ w·err` where `err` is the squared error, or the absolute
/// error when `use_mad`. Starting from the range `[min(x, 0), max(x)]`, it tries `nstep + 1`
/// candidate scales `(rmin + 0.1·is + nmax) / range` (the `rdelta` step), solves the weighted
/// least-squares scale and offset for each candidate's codes, and keeps the best. Returns
/// `(scale, min)` (the offset is subtracted on dequantizing) and writes the codes; a constant
/// sub-block gives scale 0 with codes 0.
#[allow(clippy::too_many_arguments)]
pub fn scale_and_min<const N: usize>(
    x: &[f32; N],
    weights: &[f32; N],
    nmax: i32,
    rmin: f32,
    rdelta: f32,
    nstep: i32,
    use_mad: bool,
    codes: &mut [u8; N],
) -> (f32, f32) {
    let mut min = x[0];
    let mut max = x[0];
    let mut sum_w = weights[0];
    let mut sum_x = sum_w * x[0];
    for i in 1..N {
        if x[i] < min {
            min = x[i];
        }
        if x[i] > max {
            max = x[i];
        }
        let w = weights[i];
        sum_w += w;
        sum_x += w * x[i];
    }
    if min > 0.0 {
        min = 0.0;
    }
    if max == min {
        codes.fill(0);
        return (0.0, -min);
    }
    let error = |d: f32| if use_mad { d.abs() } else { d * d };
    let mut iscale = nmax as f32 / (max - min);
    let mut scale = 1.0 / iscale;
    let mut best_error = 0f32;
    for i in 0..N {
        let l = nearest_int(iscale * (x[i] - min)).clamp(0, nmax);
        codes[i] = l as u8;
        let diff = scale * l as f32 + min - x[i];
        best_error += weights[i] * error(diff);
    }
    if nstep < 1 {
        return (scale, -min);
    }
    let mut aux = [0u8; N];
    for is in 0..=nstep {
        iscale = (rmin + rdelta * is as f32 + nmax as f32) / (max - min);
        let (mut sum_l, mut sum_l2, mut sum_xl) = (0f32, 0f32, 0f32);
        for i in 0..N {
            let l = nearest_int(iscale * (x[i] - min)).clamp(0, nmax);
            aux[i] = l as u8;
            let w = weights[i];
            let lf = l as f32;
            sum_l += w * lf;
            sum_l2 += w * lf * lf;
            sum_xl += w * lf * x[i];
        }
        let det = sum_w * sum_l2 - sum_l * sum_l;
        if det > 0.0 {
            let mut this_scale = (sum_w * sum_xl - sum_x * sum_l) / det;
            let mut this_min = (sum_l2 * sum_x - sum_l * sum_xl) / det;
            if this_min > 0.0 {
                this_min = 0.0;
                this_scale = sum_xl / sum_l2;
            }
            let mut cur_error = 0f32;
            for i in 0..N {
                let diff = this_scale * aux[i] as f32 + this_min - x[i];
                cur_error += weights[i] * error(diff);
            }
            if cur_error < best_error {
                *codes = aux;
                best_error = cur_error;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    (scale, -min)
}

/// Fits a signed scale to `x` with codes `l` in `-nmax..nmax` under weights `x²` (llama.cpp
/// `make_qx_quants` with `rmse_type = 1` and no importance): starts from `l = nearest(-nmax/max ·
/// x)` where `max` is the value of largest magnitude, refits the least-squares scale
/// `Σw·x·l / Σw·l²`, then tries the 18 scales `-(nmax + 0.1·is)/max` for `is` in ±1..=±9 and keeps
/// the one with the largest `(Σw·x·l)² / Σw·l²`. Writes `l + nmax` (in `0..2·nmax`) and returns
/// the scale (negative when `max` is positive, since the start divides by `-max`); an all-zero
/// sub-block gives 0 with codes 0.
pub fn symmetric<const N: usize>(x: &[f32; N], nmax: i32, codes: &mut [i8; N]) -> f32 {
    let (max, amax) = signed_absmax(x);
    if amax < GROUP_MAX_EPS {
        codes.fill(0);
        return 0.0;
    }
    let mut iscale = -(nmax as f32) / max;
    let (mut sumlx, mut suml2) = (0f32, 0f32);
    for i in 0..N {
        let l = nearest_int(iscale * x[i]).clamp(-nmax, nmax - 1);
        codes[i] = (l + nmax) as i8;
        let w = x[i] * x[i];
        let lf = l as f32;
        sumlx += w * x[i] * lf;
        suml2 += w * lf * lf;
    }
    let mut scale = if suml2 != 0.0 { sumlx / suml2 } else { 0.0 };
    let mut best = scale * sumlx;
    let mut trial = [0i8; N];
    for is in (-9..=9).filter(|&is| is != 0) {
        iscale = -(nmax as f32 + 0.1 * is as f32) / max;
        sumlx = 0.0;
        suml2 = 0.0;
        for i in 0..N {
            let l = nearest_int(iscale * x[i]).clamp(-nmax, nmax - 1);
            trial[i] = (l + nmax) as i8;
            let w = x[i] * x[i];
            let lf = l as f32;
            sumlx += w * x[i] * lf;
            suml2 += w * lf * lf;
        }
        if suml2 > 0.0 && sumlx * sumlx > best * suml2 {
            *codes = trial;
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    scale
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
