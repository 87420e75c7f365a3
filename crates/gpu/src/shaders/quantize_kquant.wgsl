// K-quant super-block quantizers (the math crate's quant/kquants*.rs, byte for byte llama.cpp's
// `quantize_row_q*_K_ref`). `params.variant` is the scheme's position in `KType::ALL`
// (0 = q2_k, 1 = q3_k, 2 = q4_k, 3 = q5_k, 4 = q6_k).
//
// `measure` runs once per 256-weight super-block and does the whole reference quantizer in that
// invocation (`quantize_block`), every float operation on bit patterns (common.wgsl) in the
// CPU's order: the sub-block fits, the quantized sub-block scales, the FP16 super-block scales
// and the codes re-derived from the stored scales. quantize_whole_blocks.wgsl (appended after
// this file) stores the bytes and says what each binding holds.

/// 1.5·2^23: llama.cpp's `nearest_int` adds it and reads the low mantissa bits.
const ROUNDER: u32 = 0x4b400000u;
/// 0.1f32 (the step between `make_qx_quants`' trial scales).
const TENTH: u32 = 0x3dcccccdu;
/// -128.0f32.
const MINUS_128: u32 = 0xc3000000u;
/// 63.0f32.
const SIXTY_THREE: u32 = 0x427c0000u;
/// 32.0f32.
const THIRTY_TWO: u32 = 0x42000000u;
/// 15.0f32.
const FIFTEEN: u32 = 0x41700000u;
/// -32.0f32.
const MINUS_32: u32 = 0xc2000000u;

/// The stored code of each weight of the super-block being quantized (Q6_K: 0..=63).
var<private> kq_codes: array<u32, 256>;
/// The stored scale bytes (Q6_K: sixteen two's complement bytes; Q2_K: sixteen bytes of 4-bit
/// scale and min; Q3_K: the 12 bytes of packed 6-bit scales; Q4_K, Q5_K: the 12 bytes of packed
/// 6-bit scales and mins).
var<private> kq_scales: array<u32, 16>;
/// The FP16 super-block scale `d` (low 16 bits) and, for Q2_K, Q4_K and Q5_K, `dmin` (high 16
/// bits).
var<private> kq_d: u32;

/// `nearest_int`: (v + 1.5·2^23)'s low 23 mantissa bits − 2^22, with the CPU's rounding and
/// its wrapped results for |v| ≥ 2^22, NaN and ±∞ (every caller clamps).
fn nearest_int(v: u32) -> i32 {
    return i32(f_add(v, ROUNDER) & 0x007fffffu) - 0x400000;
}

/// Sets the `n` codes from `kq_codes[at]` to 0.
fn clear_codes(at: u32, n: u32) {
    for (var i = 0u; i < n; i = i + 1u) {
        kq_codes[at + i] = 0u;
    }
}

/// The weight of largest magnitude among the 16 from `base` (first on ties, NaN never wins), and
/// 1 if the sub-block counts as zero (largest magnitude below `GROUP_MAX_EPS`: its codes are
/// then set to 0), else 0.
fn largest_or_clear(base: u32) -> vec2<u32> {
    let largest = signed_absmax(base, 16u);
    if (f_lt(largest.y, GROUP_MAX_EPS)) {
        clear_codes(base % QK_K, 16u);
        return vec2<u32>(largest.x, 1u);
    }
    return vec2<u32>(largest.x, 0u);
}

/// Σw·x·l and Σw·l² (w = x², in order) over the 16 weights from `base` with codes
/// `l = nearest_int(iscale·x)` clamped to `-nmax..nmax`: one candidate of `fit::symmetric`.
fn symmetric_sums(base: u32, iscale: u32, nmax: i32) -> vec2<u32> {
    var slx = 0u;
    var sl2 = 0u;
    for (var i = 0u; i < 16u; i = i + 1u) {
        let v = x[base + i];
        let lf = from_int(clamp(nearest_int(f_mul(iscale, v)), -nmax, nmax - 1));
        let w = f_mul(v, v);
        slx = f_add(slx, f_mul(f_mul(w, v), lf));
        sl2 = f_add(sl2, f_mul(f_mul(w, lf), lf));
    }
    return vec2<u32>(slx, sl2);
}

/// `fit::symmetric` on the 16 weights from `base` (llama.cpp `make_qx_quants`, `rmse_type` 1, no
/// importance) past its zero check, `vmax` being their weight of largest magnitude: writes
/// `l + nmax` to `kq_codes[base % 256 ..]` and returns the scale.
fn symmetric16(base: u32, nmax: i32, vmax: u32) -> u32 {
    let at = base % QK_K;
    let nmax_f = from_int(nmax);
    var best_iscale = f_div(nmax_f ^ SIGN, vmax);
    let start = symmetric_sums(base, best_iscale, nmax);
    var scale = 0u;
    if (!f_eq(start.y, 0u)) {
        scale = f_div(start.x, start.y);
    }
    var best = f_mul(scale, start.x);
    // The trial scales -(nmax + 0.1·is)/max for is = -9 … -1, 1 … 9, in that order.
    for (var t = 0; t < 18; t = t + 1) {
        let trial = select(t - 8, t - 9, t < 9);
        let iscale = f_div(f_add(nmax_f, f_mul(TENTH, from_int(trial))) ^ SIGN, vmax);
        let sums = symmetric_sums(base, iscale, nmax);
        let slx = sums.x;
        let sl2 = sums.y;
        if (f_lt(0u, sl2) && f_lt(f_mul(best, sl2), f_mul(slx, slx))) {
            best_iscale = iscale;
            scale = f_div(slx, sl2);
            best = f_mul(scale, slx);
        }
    }
    // The kept trial's codes (the same operations as when it was tried).
    for (var i = 0u; i < 16u; i = i + 1u) {
        let l = clamp(nearest_int(f_mul(best_iscale, x[base + i])), -nmax, nmax - 1);
        kq_codes[at + i] = u32(l + nmax);
    }
    return scale;
}

/// The sixteen sub-block fits of Q3_K and Q6_K (`fit_signed_sub_blocks`).
var<private> kq_fits: array<u32, 16>;

/// `fit_signed_sub_blocks`: fits the sixteen 16-weight sub-blocks from `base` with Q3_K's
/// `fit::q3` (nmax 4, when `q3`) or Q6_K's `fit::symmetric` (nmax 32) into `kq_fits`, and returns
/// the fit of largest magnitude (the first on ties; NaN never wins) and that magnitude.
fn fit_signed_sub_blocks(base: u32, q3: bool) -> vec2<u32> {
    var max_scale = 0u;
    var amax = 0u;
    for (var j = 0u; j < 16u; j = j + 1u) {
        // A sub-block that counts as zero fits to 0 with codes 0.
        let largest = largest_or_clear(base + 16u * j);
        var s = 0u;
        if (largest.y == 0u && q3) {
            s = q3_fit16(base + 16u * j, 4, largest.x);
        } else if (largest.y == 0u) {
            s = symmetric16(base + 16u * j, 32, largest.x);
        }
        kq_fits[j] = s;
        if (abs_above(s, amax)) {
            amax = s & ABS;
            max_scale = s;
        }
    }
    return vec2<u32>(max_scale, amax);
}

/// Q6_K's `quantize_block` for super-block b: fills `kq_codes`, `kq_scales` and `kq_d`.
fn q6_k(b: u32) {
    let base = b * QK_K;
    let largest = fit_signed_sub_blocks(base, false);
    let max_scale = largest.x;
    if (f_lt(largest.y, GROUP_MAX_EPS)) {
        clear_codes(0u, QK_K);
        for (var j = 0u; j < 16u; j = j + 1u) {
            kq_scales[j] = 0u;
        }
        kq_d = 0u;
        return;
    }
    let iscale = f_div(MINUS_128, max_scale);
    kq_d = ggml_f16(f_div(ONE, iscale));
    for (var j = 0u; j < 16u; j = j + 1u) {
        kq_scales[j] = u32(min(nearest_int(f_mul(iscale, kq_fits[j])), 127)) & 0xffu;
    }
    let d_all = f16_to_f32(kq_d);
    for (var j = 0u; j < 16u; j = j + 1u) {
        let sc = (i32(kq_scales[j] << 24u)) >> 24u;
        let d = f_mul(d_all, from_int(sc));
        if (f_eq(d, 0u)) {
            continue;
        }
        for (var i = 0u; i < 16u; i = i + 1u) {
            let l = clamp(nearest_int(f_div(x[base + 16u * j + i], d)), -32, 31);
            kq_codes[16u * j + i] = u32(l + 32);
        }
    }
}

/// Byte p of the Q6_K block in `kq_*` (kquants/q6_k.rs: `ql[128]`, `qh[64]`, `scales[16]`, `d`).
fn q6_k_byte(p: u32) -> u32 {
    if (p < 128u) {
        let h = p / 64u;
        let k = (p % 64u) / 32u;
        let l = p % 32u;
        let low = kq_codes[128u * h + 32u * k + l] & 0xfu;
        let high = kq_codes[128u * h + 32u * (k + 2u) + l] & 0xfu;
        return low | (high << 4u);
    }
    if (p < 192u) {
        let h = (p - 128u) / 32u;
        let l = p % 32u;
        var byte = 0u;
        for (var k = 0u; k < 4u; k = k + 1u) {
            byte = byte | (((kq_codes[128u * h + 32u * k + l] >> 4u) & 3u) << (2u * k));
        }
        return byte;
    }
    if (p < 208u) {
        return kq_scales[p - 192u];
    }
    return (kq_d >> (8u * (p - 208u))) & 0xffu;
}

/// The weights of the sub-block being fitted by `scale_and_min`.
var<private> kq_w: array<u32, 32>;

/// Fills `kq_w` with Q4_K's and Q5_K's weights `sqrt(Σx²/32) + |x|` for the 32 weights from
/// `base` (`fit_k4_k5`).
fn k4_k5_weights(base: u32) {
    var sum_x2 = 0u;
    for (var i = 0u; i < 32u; i = i + 1u) {
        let v = x[base + i];
        sum_x2 = f_add(sum_x2, f_mul(v, v));
    }
    let av_x = f_sqrt(f_div(sum_x2, THIRTY_TWO));
    for (var i = 0u; i < 32u; i = i + 1u) {
        kq_w[i] = f_add(av_x, x[base + i] & ABS);
    }
}

/// The error of `diff` that `scale_and_min` minimises: |diff| when `mad`, else diff².
fn fit_error(diff: u32, mad: bool) -> u32 {
    if (mad) {
        return diff & ABS;
    }
    return f_mul(diff, diff);
}

/// `fit::scale_and_min` for one sub-block of `n` (16 or 32) weights from `base` under the
/// weights in `kq_w` (llama.cpp `make_qkx2_quants`, `rdelta` 0.1; absolute error when `mad`, else
/// squared), as one lane of the CPU's side-by-side evaluation runs it: writes the codes to
/// `kq_codes[base % 256 ..]` and returns (scale, −min).
fn scale_and_min(base: u32, n: u32, nmax: i32, rmin: u32, nstep: i32, mad: bool) -> vec2<u32> {
    let at = base % QK_K;
    var aux: array<u32, 32>;
    let x0 = x[base];
    var vmin = x0;
    var vmax = x0;
    var sum_w = kq_w[0];
    var sum_x = f_mul(kq_w[0], x0);
    for (var i = 1u; i < n; i = i + 1u) {
        let v = x[base + i];
        if (f_lt(v, vmin)) {
            vmin = v;
        }
        if (f_lt(vmax, v)) {
            vmax = v;
        }
        sum_w = f_add(sum_w, kq_w[i]);
        sum_x = f_add(sum_x, f_mul(kq_w[i], v));
    }
    if (f_lt(0u, vmin)) {
        vmin = 0u;
    }
    let constant = f_eq(vmax, vmin);
    let top = from_int(nmax);
    var iscale = f_div(top, f_sub(vmax, vmin));
    var scale = f_div(ONE, iscale);
    let start_min = vmin;
    var best_error = 0u;
    for (var i = 0u; i < n; i = i + 1u) {
        let v = x[base + i];
        let l = clamp(nearest_int(f_mul(iscale, f_sub(v, vmin))), 0, nmax);
        kq_codes[at + i] = u32(l);
        let diff = f_sub(f_add(f_mul(scale, from_int(l)), vmin), v);
        best_error = f_add(best_error, f_mul(kq_w[i], fit_error(diff, mad)));
    }
    for (var trial = 0; trial <= nstep; trial = trial + 1) {
        let step = f_add(f_add(rmin, f_mul(TENTH, from_int(trial))), top);
        iscale = f_div(step, f_sub(vmax, vmin));
        var sl = 0u;
        var sl2 = 0u;
        var sxl = 0u;
        for (var i = 0u; i < n; i = i + 1u) {
            let v = x[base + i];
            let l = clamp(nearest_int(f_mul(iscale, f_sub(v, vmin))), 0, nmax);
            aux[i] = u32(l);
            let lf = from_int(l);
            let wl = f_mul(kq_w[i], lf);
            sl = f_add(sl, wl);
            sl2 = f_add(sl2, f_mul(wl, lf));
            sxl = f_add(sxl, f_mul(wl, v));
        }
        let det = f_sub(f_mul(sum_w, sl2), f_mul(sl, sl));
        let s = f_div(f_sub(f_mul(sum_w, sxl), f_mul(sum_x, sl)), det);
        let m = f_div(f_sub(f_mul(sl2, sum_x), f_mul(sl, sxl)), det);
        let positive = f_lt(0u, m);
        let this_min = select(m, 0u, positive);
        var this_scale = s;
        if (positive) {
            this_scale = f_div(sxl, sl2);
        }
        var cur = 0u;
        for (var i = 0u; i < n; i = i + 1u) {
            let diff = f_sub(f_add(f_mul(this_scale, from_int(i32(aux[i]))), this_min), x[base + i]);
            cur = f_add(cur, f_mul(kq_w[i], fit_error(diff, mad)));
        }
        if (f_lt(0u, det) && f_lt(cur, best_error)) {
            best_error = cur;
            scale = this_scale;
            vmin = this_min;
            for (var i = 0u; i < n; i = i + 1u) {
                kq_codes[at + i] = aux[i];
            }
        }
    }
    if (constant) {
        clear_codes(at, n);
        return vec2<u32>(0u, start_min ^ SIGN);
    }
    return vec2<u32>(scale, vmin ^ SIGN);
}

/// Q4_K's and Q5_K's `quantize_k4_k5` for super-block b (codes `0..=top`, the fit's `rmin` and
/// `nstep`): fills `kq_codes`, `kq_scales` (the 12 packed bytes) and `kq_d` (`d`, `dmin`).
fn k4_k5(b: u32, top: i32, rmin: u32, nstep: i32) {
    let base = b * QK_K;
    var scales: array<u32, 8>;
    var mins: array<u32, 8>;
    var max_scale = 0u;
    var max_min = 0u;
    for (var j = 0u; j < 8u; j = j + 1u) {
        k4_k5_weights(base + 32u * j);
        let fit = scale_and_min(base + 32u * j, 32u, top, rmin, nstep, false);
        scales[j] = fit.x;
        mins[j] = fit.y;
    }
    for (var j = 0u; j < 8u; j = j + 1u) {
        if (f_lt(max_scale, scales[j])) {
            max_scale = scales[j];
        }
        if (f_lt(max_min, mins[j])) {
            max_min = mins[j];
        }
    }
    var inv_scale = 0u;
    if (f_lt(0u, max_scale)) {
        inv_scale = f_div(SIXTY_THREE, max_scale);
    }
    var inv_min = 0u;
    if (f_lt(0u, max_min)) {
        inv_min = f_div(SIXTY_THREE, max_min);
    }
    var ls: array<u32, 8>;
    var lm: array<u32, 8>;
    for (var j = 0u; j < 8u; j = j + 1u) {
        // C stores nearest_int in a uint8_t (wrapping) before MIN(63, ·).
        ls[j] = min(u32(nearest_int(f_mul(inv_scale, scales[j]))) & 0xffu, 63u);
        lm[j] = min(u32(nearest_int(f_mul(inv_min, mins[j]))) & 0xffu, 63u);
    }
    // pack_scale_min_k4
    for (var j = 0u; j < 12u; j = j + 1u) {
        kq_scales[j] = 0u;
    }
    for (var j = 0u; j < 8u; j = j + 1u) {
        if (j < 4u) {
            kq_scales[j] = ls[j];
            kq_scales[j + 4u] = lm[j];
        } else {
            kq_scales[j + 4u] = (ls[j] & 0xfu) | ((lm[j] & 0xfu) << 4u);
            kq_scales[j - 4u] = kq_scales[j - 4u] | ((ls[j] >> 4u) << 6u);
            kq_scales[j] = kq_scales[j] | ((lm[j] >> 4u) << 6u);
        }
    }
    let d16 = ggml_f16(f_div(max_scale, SIXTY_THREE));
    let dmin16 = ggml_f16(f_div(max_min, SIXTY_THREE));
    kq_d = d16 | (dmin16 << 16u);
    let d_all = f16_to_f32(d16);
    let dmin_all = f16_to_f32(dmin16);
    for (var j = 0u; j < 8u; j = j + 1u) {
        let d = f_mul(d_all, from_int(i32(ls[j])));
        if (f_eq(d, 0u)) {
            continue;
        }
        let dm = f_mul(dmin_all, from_int(i32(lm[j])));
        for (var i = 0u; i < 32u; i = i + 1u) {
            let v = x[base + 32u * j + i];
            let l = clamp(nearest_int(f_div(f_add(v, dm), d)), 0, top);
            kq_codes[32u * j + i] = u32(l);
        }
    }
}

/// Byte r of `pack_nibbles` (Q4_K's and Q5_K's `qs`): weight 64c + l low, 64c + l + 32 high.
fn nibble_byte(r: u32) -> u32 {
    let c = r / 32u;
    let l = r % 32u;
    return (kq_codes[64u * c + l] & 0xfu) | ((kq_codes[64u * c + l + 32u] & 0xfu) << 4u);
}

/// Byte p of the Q4_K or Q5_K block in `kq_*` (`d`, `dmin`, `scales[12]`, Q5_K's `qh[32]`
/// (bit 4 of weight i at bit i / 32 of byte i % 32), `qs[128]`).
fn k4_k5_byte(p: u32, fifth: bool) -> u32 {
    if (p < 4u) {
        return (kq_d >> (8u * p)) & 0xffu;
    }
    if (p < 16u) {
        return kq_scales[p - 4u];
    }
    if (!fifth) {
        return nibble_byte(p - 16u);
    }
    if (p < 48u) {
        var byte = 0u;
        for (var k = 0u; k < 8u; k = k + 1u) {
            byte = byte | (((kq_codes[32u * k + p - 16u] >> 4u) & 1u) << k);
        }
        return byte;
    }
    return nibble_byte(p - 48u);
}

/// `fit::q3` on the 16 weights from `base` (llama.cpp `make_q3_quants` with `do_rmse`) past its
/// zero check, `vmax` being their weight of largest magnitude: writes `l + nmax` to
/// `kq_codes[base % 256 ..]` and returns the scale.
fn q3_fit16(base: u32, nmax: i32, vmax: u32) -> u32 {
    let at = base % QK_K;
    let iscale = f_div(from_int(nmax) ^ SIGN, vmax);
    var l: array<i32, 16>;
    var sumlx = 0u;
    var suml2 = 0u;
    for (var i = 0u; i < 16u; i = i + 1u) {
        let v = x[base + i];
        l[i] = clamp(nearest_int(f_mul(iscale, v)), -nmax, nmax - 1);
        let w = f_mul(v, v);
        let lf = from_int(l[i]);
        sumlx = f_add(sumlx, f_mul(f_mul(w, v), lf));
        suml2 = f_add(suml2, f_mul(f_mul(w, lf), lf));
    }
    for (var sweep = 0; sweep < 5; sweep = sweep + 1) {
        var changed = false;
        for (var i = 0u; i < 16u; i = i + 1u) {
            let v = x[base + i];
            let w = f_mul(v, v);
            let li = from_int(l[i]);
            var slx = f_sub(sumlx, f_mul(f_mul(w, v), li));
            if (f_lt(0u, slx)) {
                var sl2 = f_sub(suml2, f_mul(f_mul(w, li), li));
                let new_l = clamp(nearest_int(f_div(f_mul(v, sl2), slx)), -nmax, nmax - 1);
                if (new_l != l[i]) {
                    let nf = from_int(new_l);
                    slx = f_add(slx, f_mul(f_mul(w, v), nf));
                    sl2 = f_add(sl2, f_mul(f_mul(w, nf), nf));
                    let better = f_lt(f_mul(f_mul(sumlx, sumlx), sl2), f_mul(f_mul(slx, slx), suml2));
                    if (f_lt(0u, sl2) && better) {
                        l[i] = new_l;
                        sumlx = slx;
                        suml2 = sl2;
                        changed = true;
                    }
                }
            }
        }
        if (!changed) {
            break;
        }
    }
    for (var i = 0u; i < 16u; i = i + 1u) {
        kq_codes[at + i] = u32(l[i] + nmax);
    }
    if (f_lt(0u, suml2)) {
        return f_div(sumlx, suml2);
    }
    return 0u;
}

/// Q3_K's `quantize_block` for super-block b: fills `kq_codes`, `kq_scales` (12 packed bytes)
/// and `kq_d`.
fn q3_k(b: u32) {
    let base = b * QK_K;
    let max_scale = fit_signed_sub_blocks(base, true).x;
    // Each sub-block's 6-bit field (its scale + 32), 0 when nothing was stored.
    var fields: array<i32, 16>;
    for (var j = 0u; j < 12u; j = j + 1u) {
        kq_scales[j] = 0u;
    }
    kq_d = 0u;
    if (!f_eq(max_scale, 0u)) {
        let iscale = f_div(MINUS_32, max_scale);
        for (var j = 0u; j < 16u; j = j + 1u) {
            // C keeps nearest_int in an int8_t (wrapping) before clamping.
            let wrapped = i32(u32(nearest_int(f_mul(iscale, kq_fits[j]))) << 24u) >> 24u;
            let l = u32(clamp(wrapped, -32, 31) + 32);
            fields[j] = i32(l);
            if (j < 8u) {
                kq_scales[j] = l & 0xfu;
            } else {
                kq_scales[j - 8u] = kq_scales[j - 8u] | ((l & 0xfu) << 4u);
            }
            kq_scales[8u + j % 4u] = kq_scales[8u + j % 4u] | ((l >> 4u) << (2u * (j / 4u)));
        }
        kq_d = ggml_f16(f_div(ONE, iscale));
    }
    let d_all = f16_to_f32(kq_d);
    for (var j = 0u; j < 16u; j = j + 1u) {
        let d = f_mul(d_all, from_int(fields[j] - 32));
        if (f_eq(d, 0u)) {
            continue;
        }
        for (var i = 0u; i < 16u; i = i + 1u) {
            let l = clamp(nearest_int(f_div(x[base + 16u * j + i], d)), -4, 3);
            kq_codes[16u * j + i] = u32(l + 4);
        }
    }
}

/// Byte r of `pack_crumbs` with `shift`: bits shift..shift+2 of weights 128h + 32k + l (k = 0..4)
/// in byte 32h + l.
fn crumb_byte(r: u32, shift: u32) -> u32 {
    let h = r / 32u;
    let l = r % 32u;
    var byte = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        byte = byte | (((kq_codes[128u * h + 32u * k + l] >> shift) & 3u) << (2u * k));
    }
    return byte;
}

/// Byte r of `pack_bit_plane` with `shift`: bit `shift` of weight i at bit i / 32 of byte i % 32.
fn plane_byte(r: u32, shift: u32) -> u32 {
    var byte = 0u;
    for (var k = 0u; k < 8u; k = k + 1u) {
        byte = byte | (((kq_codes[32u * k + r] >> shift) & 1u) << k);
    }
    return byte;
}

/// Byte p of the Q3_K block in `kq_*` (`hmask[32]`, `qs[64]`, `scales[12]`, `d`).
fn q3_k_byte(p: u32) -> u32 {
    if (p < 32u) {
        return plane_byte(p, 2u);
    }
    if (p < 96u) {
        return crumb_byte(p - 32u, 0u);
    }
    if (p < 108u) {
        return kq_scales[p - 96u];
    }
    return (kq_d >> (8u * (p - 108u))) & 0xffu;
}

/// Q2_K's `quantize_block` for super-block b: fills `kq_codes`, `kq_scales` (16 bytes) and `kq_d`
/// (`d`, `dmin`).
fn q2_k(b: u32) {
    let base = b * QK_K;
    var scales: array<u32, 16>;
    var mins: array<u32, 16>;
    for (var j = 0u; j < 16u; j = j + 1u) {
        for (var i = 0u; i < 16u; i = i + 1u) {
            kq_w[i] = x[base + 16u * j + i] & ABS;
        }
        let fit = scale_and_min(base + 16u * j, 16u, 3, 0xbf000000u, 15, true); // rmin -0.5
        scales[j] = fit.x;
        mins[j] = fit.y;
    }
    var max_scale = 0u;
    var max_min = 0u;
    for (var j = 0u; j < 16u; j = j + 1u) {
        if (f_lt(max_scale, scales[j])) {
            max_scale = scales[j];
        }
        if (f_lt(max_min, mins[j])) {
            max_min = mins[j];
        }
    }
    for (var j = 0u; j < 16u; j = j + 1u) {
        kq_scales[j] = 0u;
    }
    var d16 = 0u;
    if (f_lt(0u, max_scale)) {
        let iscale = f_div(FIFTEEN, max_scale);
        for (var j = 0u; j < 16u; j = j + 1u) {
            kq_scales[j] = u32(nearest_int(f_mul(iscale, scales[j]))) & 0xffu;
        }
        d16 = ggml_f16(f_div(max_scale, FIFTEEN));
    }
    var dmin16 = 0u;
    if (f_lt(0u, max_min)) {
        let iscale = f_div(FIFTEEN, max_min);
        for (var j = 0u; j < 16u; j = j + 1u) {
            let m = (u32(nearest_int(f_mul(iscale, mins[j]))) << 4u) & 0xffu;
            kq_scales[j] = kq_scales[j] | m;
        }
        dmin16 = ggml_f16(f_div(max_min, FIFTEEN));
    }
    kq_d = d16 | (dmin16 << 16u);
    let d_all = f16_to_f32(d16);
    let dmin_all = f16_to_f32(dmin16);
    for (var j = 0u; j < 16u; j = j + 1u) {
        let packed = kq_scales[j];
        let d = f_mul(d_all, from_int(i32(packed & 0xfu)));
        if (f_eq(d, 0u)) {
            continue;
        }
        let dm = f_mul(dmin_all, from_int(i32(packed >> 4u)));
        for (var i = 0u; i < 16u; i = i + 1u) {
            let v = x[base + 16u * j + i];
            kq_codes[16u * j + i] = u32(clamp(nearest_int(f_div(f_add(v, dm), d)), 0, 3));
        }
    }
}

/// Byte p of the Q2_K block in `kq_*` (`scales[16]`, `qs[64]`, `d`, `dmin`).
fn q2_k_byte(p: u32) -> u32 {
    if (p < 16u) {
        return kq_scales[p];
    }
    if (p < 80u) {
        return crumb_byte(p - 16u, 0u);
    }
    return (kq_d >> (8u * (p - 80u))) & 0xffu;
}

/// Bytes per stored block of the variant.
fn block_bytes() -> u32 {
    switch params.variant {
        case 0u: {
            return Q2_K_BYTES;
        }
        case 1u: {
            return Q3_K_BYTES;
        }
        case 2u: {
            return Q4_K_BYTES;
        }
        case 3u: {
            return Q5_K_BYTES;
        }
        default: {
            return Q6_K_BYTES;
        }
    }
}

/// Quantizes super-block b into `kq_*`.
fn quantize_block(b: u32) {
    switch params.variant {
        case 0u: {
            q2_k(b);
        }
        case 1u: {
            q3_k(b);
        }
        case 2u: {
            k4_k5(b, 15, 0xbf800000u, 20); // rmin -1, nstep 20
        }
        case 3u: {
            k4_k5(b, 31, 0xbf000000u, 15); // rmin -0.5, nstep 15
        }
        default: {
            q6_k(b);
        }
    }
}

/// Byte p of the block just quantized.
fn block_byte(p: u32) -> u32 {
    switch params.variant {
        case 0u: {
            return q2_k_byte(p);
        }
        case 1u: {
            return q3_k_byte(p);
        }
        case 2u, 3u: {
            return k4_k5_byte(p, params.variant == 3u);
        }
        default: {
            return q6_k_byte(p);
        }
    }
}
