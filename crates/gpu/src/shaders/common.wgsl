// Prelude of every kernel (prepended by shaders.rs): the dispatch parameters and exact f32
// arithmetic on bit patterns.
//
// Why integers: WGSL lets `/` be off by 2.5 ulp, lets implementations flush subnormals to zero,
// and gives `pack2x16float` no rounding guarantee. The CPU reference rounds every
// operation to nearest even with subnormals, so every float that reaches a stored byte is computed
// here on u32 bit patterns: add, mul, div and sqrt are correctly rounded (ties to even), with IEEE
// subnormals, infinities and NaN. Tensors travel as u32 words, never as f32, so no load or store
// can flush or canonicalize them either. NaN results are quiet NaNs: an invalid operation gives
// x86's default NaN, a NaN operand comes back quieted. Rust leaves NaN payloads unspecified, so
// the tests accept any NaN among dequantized weights; among quantized bytes a NaN can only be
// stored by NF4 double quantization of a tensor with an infinite block absmax (there the bytes
// match the x86 CPU the tests run on).

/// Parameters of one dispatch (binding 0 of every kernel). Sizes count within the current chunk.
struct Params {
    /// Invocations that do work: blocks, code words or elements, depending on the entry point.
    count: u32,
    /// Weights in the chunk.
    n: u32,
    /// Weights per block.
    block: u32,
    /// Scheme variant within a kernel family (see each file).
    variant: u32,
    /// An f32 bit pattern: the FP8 per-tensor scale, or the NF4 double-quantization mean.
    scalar: u32,
    /// Words per block of a strided per-block array: the dequantize kernels' `headers` (2 when
    /// the host split the stored blocks, 4 when they are the quantize kernels' `blocks`), and
    /// `double_quantize`'s input and output (1, or 4 in `blocks` layout).
    stride: u32,
    /// The tensor index of the chunk's first weight, low and high halves (the FP4 kernels'
    /// stochastic rounding draws by tensor index; 0 elsewhere).
    first_lo: u32,
    /// See `first_lo`.
    first_hi: u32,
    /// Format facts (FP8: mantissa bits, f32 exponent field of the smallest normal, largest
    /// finite pattern, NaN pattern), or the NVFP4 and MXFP4 kernels' options
    /// (fp4_options.wgsl).
    consts: vec4<u32>,
}

const WORKGROUP: u32 = 64u;
const SIGN: u32 = 0x80000000u;
const ABS: u32 = 0x7fffffffu;
const INF: u32 = 0x7f800000u;
const QNAN: u32 = 0x7fc00000u;
/// x86's default NaN (what `0 × ∞` gives on the CPU the tests run on).
const DEFAULT_NAN: u32 = 0xffc00000u;
const ONE: u32 = 0x3f800000u;

/// The flat invocation index of a 2-D dispatch (x is capped at the per-dimension limit).
fn flat_index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * WORKGROUP;
}

/// `e8m0_to_f32_half`: 2^(e-127) / 2, subnormal for e < 2.
fn e8m0_half(e: u32) -> u32 {
    if (e < 2u) {
        return 0x00200000u << e;
    }
    return (e - 1u) << 23u;
}

fn is_nan(a: u32) -> bool {
    return (a & ABS) > INF;
}

fn is_zero(a: u32) -> bool {
    return (a & ABS) == 0u;
}

/// Finite: neither infinite nor NaN.
fn is_finite(a: u32) -> bool {
    return (a & ABS) < INF;
}

/// A NaN operand, quieted.
fn propagate_nan(a: u32, b: u32) -> u32 {
    if (is_nan(a)) {
        return a | 0x00400000u;
    }
    return b | 0x00400000u;
}

/// Total order key of a non-NaN value (−0 and +0 still differ; callers treat zeros first).
fn order_key(a: u32) -> u32 {
    if ((a & SIGN) != 0u) {
        return ~a;
    }
    return a | SIGN;
}

/// IEEE `a < b`: false when either is NaN; −0 equals +0.
fn f_lt(a: u32, b: u32) -> bool {
    if (is_nan(a) || is_nan(b) || (is_zero(a) && is_zero(b))) {
        return false;
    }
    return order_key(a) < order_key(b);
}

/// IEEE `a <= b`.
fn f_le(a: u32, b: u32) -> bool {
    if (is_nan(a) || is_nan(b)) {
        return false;
    }
    if (is_zero(a) && is_zero(b)) {
        return true;
    }
    return order_key(a) <= order_key(b);
}

/// IEEE `a == b`.
fn f_eq(a: u32, b: u32) -> bool {
    return f_le(a, b) && f_le(b, a);
}

/// Rust `f32::min` as the CPU reference's folds use it: a NaN operand gives the other one; on
/// equal values (±0) the accumulator `acc` is kept.
fn f_min(acc: u32, v: u32) -> u32 {
    return keep_or_take(acc, v, f_lt(v, acc));
}

/// Rust `f32::max`, with the same rules as `f_min`.
fn f_max(acc: u32, v: u32) -> u32 {
    return keep_or_take(acc, v, f_lt(acc, v));
}

/// The fold step of `f_min` and `f_max`: `v` when the accumulator is NaN or `v` is `better`,
/// else `acc`; a NaN `v` is never taken.
fn keep_or_take(acc: u32, v: u32, better: bool) -> u32 {
    if (!is_nan(v) && (is_nan(acc) || better)) {
        return v;
    }
    return acc;
}

/// Rounds and packs `(sig / 2^30) × 2^(e − 127)` (sig < 2^31, with its leading one at bit 30
/// when e ≥ 1; the 7 bits below the f32 mantissa are round bits, bit 0 sticky) to nearest even:
/// overflow gives ∞, results below the normal range become subnormal or ±0.
fn round_pack(sign: u32, e_in: i32, sig_in: u32) -> u32 {
    var e = e_in;
    var sig = sig_in;
    if (e > 254) {
        return sign | INF;
    }
    if (e < 1) {
        let shift = u32(1 - e);
        if (shift >= 31u) {
            sig = select(0u, 1u, sig != 0u);
        } else {
            sig = (sig >> shift) | select(0u, 1u, (sig << (32u - shift)) != 0u);
        }
        e = 1;
    }
    let round_bits = sig & 0x7fu;
    sig = (sig + 0x40u) >> 7u;
    if (round_bits == 0x40u) {
        sig = sig & ~1u;
    }
    // The implicit bit (bit 23) adds one to the exponent field; a rounding carry to 2^24 moves
    // the exponent up once more (to ∞ from the largest binade), as it should.
    return sign | ((u32(e - 1) << 23u) + sig);
}

/// Shifts a nonzero `sig` so its leading one sits at bit 30 (right shifts keep a sticky bit),
/// adjusting `e`, then rounds and packs.
fn normalize_round_pack(sign: u32, e: i32, sig: u32) -> u32 {
    let lz = i32(countLeadingZeros(sig)) - 1;
    if (lz >= 0) {
        return round_pack(sign, e - lz, sig << u32(lz));
    }
    return round_pack(sign, e + 1, (sig >> 1u) | (sig & 1u));
}

/// Significand with its leading one at bit 23 (subnormals normalized) and the matching biased
/// exponent (below 1 for subnormals), of a nonzero finite `a`.
fn unpack(a: u32) -> vec2<i32> {
    let field = (a >> 23u) & 0xffu;
    let man = a & 0x007fffffu;
    if (field == 0u) {
        let shift = countLeadingZeros(man) - 8u;
        return vec2<i32>(i32(man << shift), 1 - i32(shift));
    }
    return vec2<i32>(i32(man | 0x00800000u), i32(field));
}

/// a + b, correctly rounded (ties to even).
fn f_add(a: u32, b: u32) -> u32 {
    if (is_nan(a) || is_nan(b)) {
        return propagate_nan(a, b);
    }
    let a_inf = (a & ABS) == INF;
    let b_inf = (b & ABS) == INF;
    if (a_inf && b_inf) {
        return select(DEFAULT_NAN, a, a == b);
    }
    if (a_inf) {
        return a;
    }
    if (b_inf) {
        return b;
    }
    if (is_zero(a) && is_zero(b)) {
        return a & b;
    }
    if (is_zero(a)) {
        return b;
    }
    if (is_zero(b)) {
        return a;
    }
    var big = a;
    var small = b;
    if ((a & ABS) < (b & ABS)) {
        big = b;
        small = a;
    }
    let ub = unpack(big);
    let us = unpack(small);
    let sig_big = u32(ub.x) << 7u;
    var sig_small = u32(us.x) << 7u;
    let d = u32(ub.y - us.y);
    if (d >= 31u) {
        sig_small = 1u;
    } else if (d > 0u) {
        sig_small = (sig_small >> d) | select(0u, 1u, (sig_small << (32u - d)) != 0u);
    }
    let sign = big & SIGN;
    if (((big ^ small) & SIGN) == 0u) {
        let sum = sig_big + sig_small;
        if (sum >= 0x80000000u) {
            return round_pack(sign, ub.y + 1, (sum >> 1u) | (sum & 1u));
        }
        return round_pack(sign, ub.y, sum);
    }
    let diff = sig_big - sig_small;
    if (diff == 0u) {
        return 0u;
    }
    return normalize_round_pack(sign, ub.y, diff);
}

/// a − b, correctly rounded.
fn f_sub(a: u32, b: u32) -> u32 {
    if (is_nan(b)) {
        return propagate_nan(a, b);
    }
    return f_add(a, b ^ SIGN);
}

/// The 64-bit product of two u32, as (high, low).
fn mul_wide(x: u32, y: u32) -> vec2<u32> {
    let x0 = x & 0xffffu;
    let x1 = x >> 16u;
    let y0 = y & 0xffffu;
    let y1 = y >> 16u;
    let p00 = x0 * y0;
    let p01 = x0 * y1;
    let p10 = x1 * y0;
    let p11 = x1 * y1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (p00 & 0xffffu) | (mid << 16u);
    let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(hi, lo);
}

/// a × b, correctly rounded (ties to even).
fn f_mul(a: u32, b: u32) -> u32 {
    if (is_nan(a) || is_nan(b)) {
        return propagate_nan(a, b);
    }
    let sign = (a ^ b) & SIGN;
    if ((a & ABS) == INF || (b & ABS) == INF) {
        if (is_zero(a) || is_zero(b)) {
            return DEFAULT_NAN;
        }
        return sign | INF;
    }
    if (is_zero(a) || is_zero(b)) {
        return sign;
    }
    let ua = unpack(a);
    let ub = unpack(b);
    // (sa / 2^23)(sb / 2^23) = P / 2^46, and P >> 16 puts that at bit 30 with a sticky bit.
    let p = mul_wide(u32(ua.x), u32(ub.x));
    var sig = (p.x << 16u) | (p.y >> 16u) | select(0u, 1u, (p.y & 0xffffu) != 0u);
    var e = ua.y + ub.y - 127;
    if (sig >= 0x80000000u) {
        sig = (sig >> 1u) | (sig & 1u);
        e = e + 1;
    }
    return round_pack(sign, e, sig);
}

/// a / b, correctly rounded (ties to even): a 31-bit restoring division of the significands,
/// with the remainder as sticky bit.
fn f_div(a: u32, b: u32) -> u32 {
    if (is_nan(a) || is_nan(b)) {
        return propagate_nan(a, b);
    }
    let sign = (a ^ b) & SIGN;
    let a_inf = (a & ABS) == INF;
    let b_inf = (b & ABS) == INF;
    if (a_inf && b_inf) {
        return DEFAULT_NAN;
    }
    if (a_inf) {
        return sign | INF;
    }
    if (b_inf) {
        return sign;
    }
    if (is_zero(b)) {
        return select(sign | INF, DEFAULT_NAN, is_zero(a));
    }
    if (is_zero(a)) {
        return sign;
    }
    let ua = unpack(a);
    let ub = unpack(b);
    var rem = u32(ua.x);
    let divisor = u32(ub.x);
    var e = ua.y - ub.y + 127;
    if (rem < divisor) {
        rem = rem << 1u;
        e = e - 1;
    }
    var q = 0u;
    for (var i = 0u; i < 31u; i = i + 1u) {
        q = q << 1u;
        if (rem >= divisor) {
            rem = rem - divisor;
            q = q | 1u;
        }
        rem = rem << 1u;
    }
    return round_pack(sign, e, q | select(0u, 1u, rem != 0u));
}

/// sqrt(a), correctly rounded: a digit-by-digit integer square root of the significand scaled
/// to 54 bits, with the remainder as sticky bit (a square root never falls on a midpoint). −0
/// gives −0, +∞ gives +∞, a negative value the default NaN, a NaN comes back quieted.
fn f_sqrt(a: u32) -> u32 {
    if (is_nan(a)) {
        return a | 0x00400000u;
    }
    if (is_zero(a) || a == INF) {
        return a;
    }
    if ((a & SIGN) != 0u) {
        return DEFAULT_NAN;
    }
    let u = unpack(a);
    var sig = u32(u.x);
    // a = (sig / 2^23) × 2^e with e even after this.
    var e = u.y - 127;
    if ((e & 1) != 0) {
        sig = sig << 1u;
        e = e - 1;
    }
    // The radicand sig × 2^29 (54 bits) as two words; its root has 27 bits.
    let hi = sig >> 3u;
    let lo = sig << 29u;
    var root = 0u;
    var rem = 0u;
    for (var k = 0u; k < 27u; k = k + 1u) {
        let pos = 52u - 2u * k;
        var pair = 0u;
        if (pos >= 32u) {
            pair = (hi >> (pos - 32u)) & 3u;
        } else {
            pair = (lo >> pos) & 3u;
        }
        rem = (rem << 2u) | pair;
        let trial = (root << 2u) | 1u;
        root = root << 1u;
        if (rem >= trial) {
            rem = rem - trial;
            root = root | 1u;
        }
    }
    return round_pack(0u, 127 + e / 2, (root << 4u) | select(0u, 1u, rem != 0u));
}

/// The f32 bits of a small integer (|k| < 2^24: exact).
fn from_int(k: i32) -> u32 {
    return bitcast<u32>(f32(k));
}

/// round_ties_even(|a| × 2^k) for a finite `a` whose scaled magnitude is at most 2^24: the
/// integer count of 2^-k steps (FP16 and FP8 subnormals).
fn steps_ties_even(a: u32, k: i32) -> u32 {
    let field = (a >> 23u) & 0xffu;
    var sig = a & 0x007fffffu;
    var e = i32(field);
    if (field == 0u) {
        e = 1;
    } else {
        sig = sig | 0x00800000u;
    }
    // |a| × 2^k = sig × 2^(e − 150 + k)
    let shift = 150 - e - k;
    if (shift <= 0) {
        return sig << u32(-shift);
    }
    if (shift > 25) {
        return 0u;
    }
    let s = u32(shift);
    let q = sig >> s;
    let rest = sig & ((1u << s) - 1u);
    let half = 1u << (s - 1u);
    if (rest > half || (rest == half && (q & 1u) == 1u)) {
        return q + 1u;
    }
    return q;
}

/// Rust `f32::round` (half away from zero) of a finite or infinite `a`, as f32 bits.
fn f_round(a: u32) -> u32 {
    let field = (a >> 23u) & 0xffu;
    if (field >= 150u || is_nan(a)) {
        return a;
    }
    let sign = a & SIGN;
    if (field < 126u) {
        return sign;
    }
    let sig = (a & 0x007fffffu) | 0x00800000u;
    let s = 150u - field;
    let k = (sig + (1u << (s - 1u))) >> s;
    return sign | from_int(i32(k));
}

/// Rust `f32::trunc` then `max(0.0)` then `as u32`, then `min(top)` (GGML's 4/5-bit codes):
/// NaN and negatives give 0, anything at or above top + 1 gives top.
fn trunc_code(a: u32, top: u32) -> u32 {
    if (is_nan(a) || (a & SIGN) != 0u) {
        return 0u;
    }
    let field = a >> 23u;
    if (field < 127u) {
        return 0u;
    }
    if (field >= 150u) {
        return top;
    }
    let k = ((a & 0x007fffffu) | 0x00800000u) >> (150u - field);
    return min(k, top);
}

/// `kernels::code_i8`: clamp to ±127, round half away from zero, NaN gives 0; the code as a
/// two's complement byte.
fn code_i8(y: u32) -> u32 {
    if (is_nan(y)) {
        return 0u;
    }
    var k = 127u;
    if ((y & ABS) < 0x42fe0000u) {
        let field = (y >> 23u) & 0xffu;
        if (field < 126u) {
            k = 0u;
        } else {
            let sig = (y & 0x007fffffu) | 0x00800000u;
            let s = 150u - field;
            k = (sig + (1u << (s - 1u))) >> s;
        }
    }
    if ((y & SIGN) != 0u) {
        return (0u - k) & 0xffu;
    }
    return k;
}

/// Largest |x| so far, skipping NaN (`kernels::absmax`): |x| bit patterns order as their values.
fn absmax_step(m: u32, v: u32) -> u32 {
    let a = v & ABS;
    if (a > INF) {
        return m;
    }
    return max(m, a);
}

/// `half::f32_to_f16_bits`: nearest even, ≥ 65520 gives ±∞, NaN gives 0x7E00.
fn f16_bits(v: u32) -> u32 {
    let sign = (v >> 16u) & 0x8000u;
    let a = v & ABS;
    if (a > INF) {
        return 0x7e00u;
    }
    if (a >= 0x477ff000u) {
        return sign | 0x7c00u;
    }
    if (a < 0x38800000u) {
        return sign | steps_ties_even(a, 24);
    }
    let odd = (a >> 13u) & 1u;
    return sign | ((a - (112u << 23u) + 0x0fffu + odd) >> 13u);
}

/// `half::f16_bits_to_f32` (exact; NaN keeps sign and payload).
fn f16_to_f32(h: u32) -> u32 {
    let sign = (h & 0x8000u) << 16u;
    let field = (h >> 10u) & 0x1fu;
    let man = h & 0x03ffu;
    if (field == 0u) {
        if (man == 0u) {
            return sign;
        }
        let shift = countLeadingZeros(man) - 21u;
        let e = 113u - shift;
        return sign | (e << 23u) | (((man << shift) & 0x03ffu) << 13u);
    }
    if (field == 0x1fu) {
        return sign | INF | (man << 13u);
    }
    return sign | ((field + 112u) << 23u) | (man << 13u);
}

/// `half::f32_to_bf16_bits`: the upper half with ties to even; NaN gives 0x7FC0.
fn bf16_bits(v: u32) -> u32 {
    if ((v & ABS) > INF) {
        return 0x7fc0u;
    }
    return (v + 0x7fffu + ((v >> 16u) & 1u)) >> 16u;
}

/// A minifloat's code for the f32 `v` (FP8's `Fp8Codec::encode_saturating`, MX elements'
/// `Minifloat::encode` with `Overflow::Saturate`): nearest even, saturating at the largest
/// finite value (±∞ included), NaN to the NaN pattern. `consts`: (mantissa bits, f32 exponent
/// field of the smallest normal value, largest finite pattern, NaN pattern).
fn minifloat_saturating(v: u32, consts: vec4<u32>) -> u32 {
    let man_bits = consts.x;
    let min_normal_field = consts.y;
    let sign = (v >> 24u) & 0x80u;
    let a = v & ABS;
    if (a > INF) {
        return consts.w;
    }
    var magnitude = 0u;
    if ((a >> 23u) < min_normal_field) {
        // Subnormal range: count steps of the subnormal quantum 2^(emin - man_bits).
        let emin = i32(min_normal_field) - 127;
        magnitude = steps_ties_even(a, i32(man_bits) - emin);
    } else {
        let drop = 23u - man_bits;
        let rebias = (min_normal_field - 1u) << 23u;
        let odd = (a >> drop) & 1u;
        magnitude = (a - rebias + (1u << (drop - 1u)) - 1u + odd) >> drop;
    }
    return sign | min(magnitude, consts.z);
}
