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

/// Candidate scales evaluated side by side in [`scale_and_min`]: each lane keeps its own sums in
/// the reference's order, so the results are bit-identical, and the compiler can turn the lanes
/// into SIMD (SSE natively, simd128 in WebAssembly).
const LANES: usize = 8;

/// Fits `x ≈ scale·q − min` with codes `q` in `0..=nmax` and `min ≥ 0` (llama.cpp
/// `make_qkx2_quants`), minimising `Σ w·err` where `err` is the squared error, or the absolute
/// error when `use_mad`. Starting from the range `[min(x, 0), max(x)]`, it tries `nstep + 1`
/// candidate scales `(rmin + rdelta·is + nmax) / range`, solves the weighted least-squares scale
/// and offset for each candidate's codes, and keeps the first best. Returns `(scale, min)` (the
/// offset is subtracted on dequantizing) and writes the codes; a constant sub-block gives scale 0
/// with codes 0.
///
/// Candidates are computed `LANES` (8) at a time from the current min, then scanned in the
/// reference's order; a winner that moves the min (later candidates start from it) restarts the
/// batch after it: the same floats, the same choice as the sequential loop.
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
    let iscale = nmax as f32 / (max - min);
    let mut scale = 1.0 / iscale;
    let mut best_error = 0f32;
    let mut shifted = [0f32; N];
    for i in 0..N {
        shifted[i] = x[i] - min;
        let l = nearest_int(iscale * shifted[i]).clamp(0, nmax);
        codes[i] = l as u8;
        let diff = scale * l as f32 + min - x[i];
        best_error += weights[i] * error(diff);
    }
    if nstep < 1 {
        return (scale, -min);
    }
    let mut aux = [[0u8; LANES]; N];
    let mut first = 0;
    'batches: while first <= nstep {
        // Every candidate uses the current min, which a winning candidate replaces: the lanes
        // after a winner that moved min are recomputed in the next batch.
        let range = max - min;
        for (s, &v) in shifted.iter_mut().zip(x) {
            *s = v - min;
        }
        let mut iscale = [0f32; LANES];
        for (k, s) in iscale.iter_mut().enumerate() {
            *s = (rmin + rdelta * (first + k as i32) as f32 + nmax as f32) / range;
        }
        let (mut sum_l, mut sum_l2, mut sum_xl) = ([0f32; LANES], [0f32; LANES], [0f32; LANES]);
        for i in 0..N {
            let (w, xi, si) = (weights[i], x[i], shifted[i]);
            for k in 0..LANES {
                let l = nearest_int(iscale[k] * si).clamp(0, nmax);
                aux[i][k] = l as u8;
                let lf = l as f32;
                sum_l[k] += w * lf;
                sum_l2[k] += w * lf * lf;
                sum_xl[k] += w * lf * xi;
            }
        }
        let (mut this_scale, mut this_min) = ([0f32; LANES], [0f32; LANES]);
        let mut usable = [false; LANES];
        for k in 0..LANES {
            let det = sum_w * sum_l2[k] - sum_l[k] * sum_l[k];
            usable[k] = det > 0.0 && first + (k as i32) <= nstep;
            this_scale[k] = (sum_w * sum_xl[k] - sum_x * sum_l[k]) / det;
            this_min[k] = (sum_l2[k] * sum_x - sum_l[k] * sum_xl[k]) / det;
            if this_min[k] > 0.0 {
                this_min[k] = 0.0;
                this_scale[k] = sum_xl[k] / sum_l2[k];
            }
        }
        let mut cur_error = [0f32; LANES];
        for i in 0..N {
            for k in 0..LANES {
                let diff = this_scale[k] * aux[i][k] as f32 + this_min[k] - x[i];
                cur_error[k] += weights[i] * error(diff);
            }
        }
        for k in 0..LANES {
            if usable[k] && cur_error[k] < best_error {
                for i in 0..N {
                    codes[i] = aux[i][k];
                }
                best_error = cur_error[k];
                scale = this_scale[k];
                let moved = this_min[k].to_bits() != min.to_bits();
                min = this_min[k];
                if moved {
                    first += k as i32 + 1;
                    continue 'batches;
                }
            }
        }
        first += LANES as i32;
    }
    (scale, -min)
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
    let (max, amax) = signed_absmax(x);
    if amax < GROUP_MAX_EPS {
        codes.fill(0);
        return 0.0;
    }
    let iscale = -(nmax as f32) / max;
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
    // The 18 trial scales depend only on `max`, so they are evaluated LANES at a time and then
    // compared in the reference's order (is = −9 … −1, 1 … 9).
    let trials: [i32; 18] = [
        -9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ];
    let mut trial = [[0i8; LANES]; N];
    for batch in trials.chunks(LANES) {
        let mut iscale = [0f32; LANES];
        for (s, &is) in iscale.iter_mut().zip(batch) {
            *s = -(nmax as f32 + 0.1 * is as f32) / max;
        }
        let (mut slx, mut sl2) = ([0f32; LANES], [0f32; LANES]);
        for i in 0..N {
            let (xi, w) = (x[i], x[i] * x[i]);
            for k in 0..LANES {
                let l = nearest_int(iscale[k] * xi).clamp(-nmax, nmax - 1);
                trial[i][k] = (l + nmax) as i8;
                let lf = l as f32;
                slx[k] += w * xi * lf;
                sl2[k] += w * lf * lf;
            }
        }
        for k in 0..batch.len() {
            if sl2[k] > 0.0 && slx[k] * slx[k] > best * sl2[k] {
                for i in 0..N {
                    codes[i] = trial[i][k];
                }
                scale = slx[k] / sl2[k];
                best = scale * slx[k];
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The line-by-line port of `make_qkx2_quants`, kept as the reference for [`super::scale_and_min`].
    /// Fits `x ≈ scale·q − min` with codes `q` in `0..=nmax` and `min ≥ 0` (llama.cpp
    /// `make_qkx2_quants`), minimising `Σ w·err` where `err` is the squared error, or the absolute
    /// error when `use_mad`. Starting from the range `[min(x, 0), max(x)]`, it tries `nstep + 1`
    /// candidate scales `(rmin + 0.1·is + nmax) / range` (the `rdelta` step), solves the weighted
    /// least-squares scale and offset for each candidate's codes, and keeps the best. Returns
    /// `(scale, min)` (the offset is subtracted on dequantizing) and writes the codes; a constant
    /// sub-block gives scale 0 with codes 0.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scale_and_min_reference<const N: usize>(
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

    /// The line-by-line port of `make_qx_quants` (rmse_type 1), the reference for [`super::symmetric`].
    pub(super) fn symmetric_reference<const N: usize>(
        x: &[f32; N],
        nmax: i32,
        codes: &mut [i8; N],
    ) -> f32 {
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

    /// xorshift64, for reproducible inputs.
    fn sequence(seed: u64) -> impl FnMut() -> f32 {
        let mut state = seed;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        }
    }

    #[test]
    fn lane_parallel_fit_equals_the_line_by_line_port() {
        let mut next = sequence(0x9e37_79b9_7f4a_7c15);
        for case in 0..4000 {
            let spread = [1e-3f32, 1.0, 30.0, 1e5][case % 4];
            let mut x32 = [0f32; 32];
            for v in &mut x32 {
                *v = next() * spread + if case % 3 == 0 { 0.3 * spread } else { 0.0 };
            }
            if case % 7 == 0 {
                x32[case % 32] *= 40.0; // an outlier
            }
            // Q4_K / Q5_K weights and parameters.
            let sum_x2: f32 = x32.iter().map(|v| v * v).sum();
            let av = (sum_x2 / 32.0).sqrt();
            let w32 = x32.map(|v| av + v.abs());
            for (nmax, rmin, nstep) in [(15, -1.0, 20), (31, -0.5, 15)] {
                let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
                let fast = scale_and_min(&x32, &w32, nmax, rmin, 0.1, nstep, false, &mut a);
                let slow =
                    scale_and_min_reference(&x32, &w32, nmax, rmin, 0.1, nstep, false, &mut b);
                assert_eq!(
                    (fast.0.to_bits(), fast.1.to_bits(), a),
                    (slow.0.to_bits(), slow.1.to_bits(), b),
                    "{x32:?}"
                );
            }
            // Q2_K: 16 values, weights |x|, absolute error.
            let x16: [f32; 16] = x32[..16].try_into().unwrap();
            let w16 = x16.map(f32::abs);
            let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
            let fast = scale_and_min(&x16, &w16, 3, -0.5, 0.1, 15, true, &mut a);
            let slow = scale_and_min_reference(&x16, &w16, 3, -0.5, 0.1, 15, true, &mut b);
            assert_eq!(
                (fast.0.to_bits(), fast.1.to_bits(), a),
                (slow.0.to_bits(), slow.1.to_bits(), b),
                "{x16:?}"
            );
        }
    }

    #[test]
    fn lane_parallel_symmetric_fit_equals_the_line_by_line_port() {
        let mut next = sequence(0x2545_f491_4f6c_dd1d);
        for case in 0..6000 {
            let spread = [1e-3f32, 1.0, 30.0, 1e5][case % 4];
            let mut x = [0f32; 16];
            for v in &mut x {
                *v = next() * spread;
            }
            if case % 5 == 0 {
                x[case % 16] *= -25.0;
            }
            let (mut a, mut b) = ([0i8; 16], [0i8; 16]);
            let fast = symmetric(&x, 32, &mut a);
            let slow = symmetric_reference(&x, 32, &mut b);
            assert_eq!((fast.to_bits(), a), (slow.to_bits(), b), "{x:?}");
        }
    }
}
