//! The fits against line-by-line ports of llama.cpp's searches. They run natively (SSE2
//! vectors) and in WebAssembly (simd128 vectors).

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
    let Some((max, mut scale, mut best)) = super::symmetric_start(x, nmax, codes) else {
        return 0.0;
    };
    let mut trial = [0i8; N];
    for is in (-9..=9).filter(|&is| is != 0) {
        let iscale = -(nmax as f32 + 0.1 * is as f32) / max;
        let (sumlx, suml2) = super::symmetric_sums(x, iscale, nmax, &mut trial);
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

/// Runs the lane version on `L` sub-blocks and the line-by-line port on each, and compares.
#[allow(clippy::too_many_arguments)]
fn compare_lanes<const N: usize, const L: usize>(
    blocks: &[[f32; N]; L],
    weights: &[[f32; N]; L],
    nmax: i32,
    rmin: f32,
    nstep: i32,
    use_mad: bool,
) {
    let mut xt = [[0f32; L]; N];
    let mut wt = [[0f32; L]; N];
    for k in 0..L {
        for i in 0..N {
            xt[i][k] = blocks[k][i];
            wt[i][k] = weights[k][i];
        }
    }
    let mut codes = [[0u8; L]; N];
    let (scales, mins) = scale_and_min(&xt, &wt, nmax, rmin, 0.1, nstep, use_mad, &mut codes);
    for k in 0..L {
        let mut expected = [0u8; N];
        let (s, m) = scale_and_min_reference(
            &blocks[k],
            &weights[k],
            nmax,
            rmin,
            0.1,
            nstep,
            use_mad,
            &mut expected,
        );
        let ours: Vec<u8> = codes.iter().map(|row| row[k]).collect();
        assert_eq!(
            (scales[k].to_bits(), mins[k].to_bits(), &ours[..]),
            (s.to_bits(), m.to_bits(), &expected[..]),
            "sub-block {:?}",
            blocks[k]
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn lane_parallel_fit_equals_the_line_by_line_port() {
    let mut next = sequence(0x9e37_79b9_7f4a_7c15);
    for case in 0..1500 {
        let mut b32 = [[0f32; 32]; 8];
        let mut b16 = [[0f32; 16]; 16];
        for (k, block) in b32.iter_mut().enumerate() {
            let spread = [1e-3f32, 1.0, 30.0, 1e5, 1e-40, 3e37][(case + k) % 6];
            let offset = if (case + k) % 3 == 0 {
                0.3 * spread
            } else {
                0.0
            };
            for v in block.iter_mut() {
                *v = next() * spread + offset;
            }
            if (case + k) % 7 == 0 {
                block[(case + k) % 32] *= 40.0; // an outlier
            }
            if (case + k) % 11 == 0 {
                *block = [0.25; 32]; // constant
            }
            if (case + k) % 13 == 0 {
                // Non-finite values and a range that overflows.
                block[(case + k) % 32] =
                    [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3e38][case % 4];
                block[(case + 5) % 32] = -3e38;
            }
            b16[2 * k].copy_from_slice(&block[..16]);
            b16[2 * k + 1].copy_from_slice(&block[16..]);
        }
        // Q4_K / Q5_K weights and parameters.
        let w32 = b32.map(|b| {
            let av = (b.iter().map(|v| v * v).sum::<f32>() / 32.0).sqrt();
            b.map(|v| av + v.abs())
        });
        compare_lanes(&b32, &w32, 15, -1.0, 20, false);
        compare_lanes(&b32, &w32, 31, -0.5, 15, false);
        // Q2_K: weights |x|, absolute error.
        compare_lanes(&b16, &b16.map(|b| b.map(f32::abs)), 3, -0.5, 15, true);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn float_domain_code_rounding_equals_nearest_int_below_the_safe_reach() {
    let mut next = sequence(0x51_7cc1_b727_220a);
    let mut probes = vec![0.0f32, -0.0, 0.5, 1.5, 2.5, 14.5, 15.5, 16.0, -0.5, -3.5];
    probes.extend([SAFE_REACH, -SAFE_REACH, 1e-40, -1e-40].map(|v| v.next_down()));
    for _ in 0..200_000 {
        let r = next();
        probes.push(r * 80.0);
        probes.push((r * 80.0).round() + 0.5); // a tie
        probes.push(r * 2.0 * SAFE_REACH);
    }
    for (lo, top) in [(0, 3), (0, 15), (0, 31), (-32, 31), (-4, 3)] {
        for &t in &probes {
            // Compared as numbers: WebAssembly's rounding gives −0 for t in (−0.5, 0), which is
            // the code 0 as well, and adds nothing different to a sum.
            let expected = nearest_int(t).clamp(lo, top) as f32;
            let got = clamped_code(F4::splat(t), F4::splat(lo as f32), F4::splat(top as f32))
                .to_array()[0];
            assert!(
                got == expected,
                "{t} into {lo}..={top}: {got} != {expected}"
            );
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn vector_code_rederivation_equals_the_reference_loop() {
    let mut next = sequence(0x1234_5678_9abc_def1);
    for case in 0..20_000 {
        let mut x = [0f32; 16];
        for v in &mut x {
            *v = next() * [1.0f32, 1e6, 1e-30, 3e38][case % 4];
        }
        if case % 7 == 0 {
            x[case % 16] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0][case % 4];
        }
        let d = [0.01f32, 1e-38, 1e-7, -0.3, 5e30][case % 5];
        let offset = [None, Some(0.25f32), Some(1e7)][case % 3];
        let (lo, hi) = [(0, 3), (-4, 3), (0, 15), (-32, 31)][case % 4];
        let mut got = [0u8; 16];
        divided_codes(&x, offset, d, lo, hi, &mut got, |c| c);
        let want = x.map(|v| {
            let t = match offset {
                Some(m) => (v + m) / d,
                None => v / d,
            };
            (nearest_int(t).clamp(lo, hi) - lo) as u8
        });
        assert_eq!(got, want, "{x:?} {offset:?} / {d} into {lo}..={hi}");
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
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
        if case % 9 == 0 {
            x[(case / 9) % 16] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][case % 3];
        }
        let (mut a, mut b) = ([0i8; 16], [0i8; 16]);
        let fast = symmetric(&x, 32, &mut a);
        let slow = symmetric_reference(&x, 32, &mut b);
        assert_eq!((fast.to_bits(), a), (slow.to_bits(), b), "{x:?}");
    }
}
