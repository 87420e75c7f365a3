// K-quant super-block quantizers (the math crate's quant/kquants*.rs, byte for byte llama.cpp's
// `quantize_row_q*_K_ref`). `params.variant` is the scheme's position in `KType::ALL`
// (4 = q6_k; the other K-quants have no quantize kernel yet).
//
// `measure` runs once per 256-weight super-block and does the whole reference quantizer in that
// invocation, every float operation on bit patterns (common.wgsl) in the CPU's order: the
// sub-block fits, the quantized sub-block scales, the FP16 super-block scale and the codes
// re-derived from the stored scales. A block's bytes (e.g. 210 for Q6_K) need not start or end
// on a word: the words wholly inside the block go straight to `codes`; the block's first bytes
// that share a word with the previous block, and its last bytes that share one with the next,
// come back as the block's `blocks` words 0 and 1, each at its place in that word (other bytes
// zero). `quantize` then runs once per code word: a word inside one block is left as `measure`
// wrote it, a shared word is the two parts joined.
//
// Bindings (quantize_bindings.wgsl), for this kernel:
// params: count (super-blocks for `measure`, code words for `quantize`), n (weights), variant.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this family (one word).
// blocks: per super-block [shared first bytes, shared last bytes, 0, 0], [n / 256][4].
// codes: the stored blocks back to back, four bytes to a word little-endian,
// [ceil(n / 256 × block bytes / 4)].

const QK_K: u32 = 256u;
/// 1.5·2^23: llama.cpp's `nearest_int` adds it and reads the low mantissa bits.
const ROUNDER: u32 = 0x4b400000u;
/// 1e-15f32 (`GROUP_MAX_EPS`): a sub-block below this largest magnitude is all zero.
const GROUP_MAX_EPS: u32 = 0x26901d7du;
/// 0.1f32 (the step between `make_qx_quants`' trial scales).
const TENTH: u32 = 0x3dcccccdu;
/// -128.0f32.
const MINUS_128: u32 = 0xc3000000u;

/// The stored code of each weight of the super-block being quantized (Q6_K: 0..=63).
var<private> kq_codes: array<u32, 256>;
/// Each sub-block's stored scale byte (Q6_K: a two's complement byte).
var<private> kq_scales: array<u32, 16>;
/// The FP16 super-block scale `d` (low 16 bits).
var<private> kq_d: u32;

/// `nearest_int`: (v + 1.5·2^23)'s low 23 mantissa bits − 2^22, with the CPU's rounding and
/// its wrapped results for |v| ≥ 2^22, NaN and ±∞ (every caller clamps).
fn nearest_int(v: u32) -> i32 {
    return i32(f_add(v, ROUNDER) & 0x007fffffu) - 0x400000;
}

/// `ggml_f16`: `f16_bits`, and a NaN keeps its sign.
fn ggml_f16(v: u32) -> u32 {
    var h = f16_bits(v);
    if (is_nan(v)) {
        h = h | ((v >> 16u) & 0x8000u);
    }
    return h;
}

/// `|v| > amax` for a non-NaN, non-negative `amax` (f32's `abs` then `>`: a NaN `v` never wins).
fn abs_above(v: u32, amax: u32) -> bool {
    let a = v & ABS;
    return a <= INF && a > amax;
}

/// `fit::symmetric` on the 16 weights from `base` (llama.cpp `make_qx_quants`, `rmse_type` 1, no
/// importance): writes `l + nmax` to `kq_codes[base % 256 ..]` and returns the scale.
fn symmetric16(base: u32, nmax: i32) -> u32 {
    let at = base % QK_K;
    var vmax = 0u;
    var amax = 0u;
    for (var i = 0u; i < 16u; i = i + 1u) {
        let v = x[base + i];
        if (abs_above(v, amax)) {
            amax = v & ABS;
            vmax = v;
        }
    }
    if (f_lt(amax, GROUP_MAX_EPS)) {
        for (var i = 0u; i < 16u; i = i + 1u) {
            kq_codes[at + i] = 0u;
        }
        return 0u;
    }
    let nmax_f = from_int(nmax);
    var best_iscale = f_div(nmax_f ^ SIGN, vmax);
    var sumlx = 0u;
    var suml2 = 0u;
    for (var i = 0u; i < 16u; i = i + 1u) {
        let v = x[base + i];
        let lf = from_int(clamp(nearest_int(f_mul(best_iscale, v)), -nmax, nmax - 1));
        let w = f_mul(v, v);
        sumlx = f_add(sumlx, f_mul(f_mul(w, v), lf));
        suml2 = f_add(suml2, f_mul(f_mul(w, lf), lf));
    }
    var scale = 0u;
    if (!f_eq(suml2, 0u)) {
        scale = f_div(sumlx, suml2);
    }
    var best = f_mul(scale, sumlx);
    // The trial scales -(nmax + 0.1·is)/max for is = -9 … -1, 1 … 9, in that order.
    for (var t = 0; t < 18; t = t + 1) {
        let trial = select(t - 8, t - 9, t < 9);
        let iscale = f_div(f_add(nmax_f, f_mul(TENTH, from_int(trial))) ^ SIGN, vmax);
        var slx = 0u;
        var sl2 = 0u;
        for (var i = 0u; i < 16u; i = i + 1u) {
            let v = x[base + i];
            let lf = from_int(clamp(nearest_int(f_mul(iscale, v)), -nmax, nmax - 1));
            let w = f_mul(v, v);
            slx = f_add(slx, f_mul(f_mul(w, v), lf));
            sl2 = f_add(sl2, f_mul(f_mul(w, lf), lf));
        }
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

/// Q6_K's `quantize_block` for super-block b: fills `kq_codes`, `kq_scales` and `kq_d`.
fn q6_k(b: u32) {
    let base = b * QK_K;
    var scales: array<u32, 16>;
    var max_scale = 0u;
    var amax = 0u;
    for (var j = 0u; j < 16u; j = j + 1u) {
        let s = symmetric16(base + 16u * j, 32);
        scales[j] = s;
        if (abs_above(s, amax)) {
            amax = s & ABS;
            max_scale = s;
        }
    }
    if (f_lt(amax, GROUP_MAX_EPS)) {
        for (var i = 0u; i < QK_K; i = i + 1u) {
            kq_codes[i] = 0u;
        }
        for (var j = 0u; j < 16u; j = j + 1u) {
            kq_scales[j] = 0u;
        }
        kq_d = 0u;
        return;
    }
    let iscale = f_div(MINUS_128, max_scale);
    kq_d = ggml_f16(f_div(ONE, iscale));
    for (var j = 0u; j < 16u; j = j + 1u) {
        kq_scales[j] = u32(min(nearest_int(f_mul(iscale, scales[j])), 127)) & 0xffu;
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

/// Bytes per stored block of the variant.
fn block_bytes() -> u32 {
    return 210u;
}

/// Byte p of the block just quantized.
fn block_byte(p: u32) -> u32 {
    return q6_k_byte(p);
}

/// Quantizes super-block b (called by the shared `measure` entry point): writes its inner words
/// to `codes` and returns the parts of the words it shares with its neighbours.
fn block_words(b: u32) -> vec4<u32> {
    q6_k(b);
    let size = block_bytes();
    let first = b * size;
    let last = first + size - 1u;
    var shared_first = 0u;
    var shared_last = 0u;
    for (var w = first / 4u; w <= last / 4u; w = w + 1u) {
        var word = 0u;
        for (var k = 0u; k < 4u; k = k + 1u) {
            let p = 4u * w + k;
            if (p >= first && p <= last) {
                word = word | (block_byte(p - first) << (8u * k));
            }
        }
        if (4u * w < first) {
            shared_first = word;
        } else if (4u * w + 3u > last) {
            shared_last = word;
        } else if (w < arrayLength(&codes)) {
            codes[w] = word;
        }
    }
    return vec4<u32>(shared_first, shared_last, 0u, 0u);
}

/// Code word w (called by the shared `quantize` entry point): as `measure` left it inside a
/// block, else the shared parts of the two blocks it spans (the last block's alone at the end).
fn code_word(w: u32) -> u32 {
    let size = block_bytes();
    let b = (4u * w) / size;
    if ((4u * w + 3u) / size == b) {
        return codes[w];
    }
    var word = blocks[4u * b + 1u];
    if (b + 1u < params.n / QK_K) {
        word = word | blocks[4u * (b + 1u)];
    }
    return word;
}
