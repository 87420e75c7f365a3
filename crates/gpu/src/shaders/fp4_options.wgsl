// The FP4 options of fp4_options.rs (bitbudget-math) for the NVFP4 and MXFP4 kernels, prepended
// to their four families by shaders.rs, after the constants it writes from the Rust source
// (`HADAMARD`, `HADAMARD_SCALE`, `MIX32_*`, `UNIFORM_BITS`, the flags `RHT_ON` and `SR_ON`).
// Every step is the CPU's, on f32 bit patterns with common.wgsl's correctly rounded arithmetic,
// so the bytes are the CPU's.
//
// `params.consts`, for these kernels: (flags, the RHT's sign mask with bit k set where position
// k's sign is −1, SR's seed key `seed_key(seed)`, unused). `params.first_lo` and
// `params.first_hi`: the tensor index of the chunk's first weight (SR's counter).

/// Whether the random Hadamard transform is on.
fn rht_on() -> bool {
    return (params.consts.x & RHT_ON) != 0u;
}

/// Whether stochastic rounding is on.
fn sr_on() -> bool {
    return (params.consts.x & SR_ON) != 0u;
}

/// `rotation::walsh_hadamard`: the 16-point butterflies (a + b, a − b) in the CPU's order, then
/// every value times 1/4 (exact).
fn walsh_hadamard(input: array<u32, HADAMARD>) -> array<u32, HADAMARD> {
    var v = input;
    for (var h = 1u; h < HADAMARD; h = h * 2u) {
        for (var i = 0u; i < HADAMARD; i = i + 2u * h) {
            for (var j = i; j < i + h; j = j + 1u) {
                let a = v[j];
                let b = v[j + h];
                v[j] = f_add(a, b);
                v[j + h] = f_sub(a, b);
            }
        }
    }
    for (var k = 0u; k < HADAMARD; k = k + 1u) {
        v[k] = f_mul(v[k], HADAMARD_SCALE);
    }
    return v;
}

/// Each value times its position's sign, ±1 (as the CPU's `v *= s`, NaN quieted).
fn signed(input: array<u32, HADAMARD>) -> array<u32, HADAMARD> {
    var v = input;
    for (var k = 0u; k < HADAMARD; k = k + 1u) {
        v[k] = f_mul(v[k], select(ONE, ONE | SIGN, ((params.consts.y >> k) & 1u) != 0u));
    }
    return v;
}

/// The values a group of 16 weights is quantized as: `rotation::rotate` when RHT is on (signs,
/// then the transform), else the weights themselves.
fn rht_forward(v: array<u32, HADAMARD>) -> array<u32, HADAMARD> {
    if (!rht_on()) {
        return v;
    }
    return walsh_hadamard(signed(v));
}

/// The inverse, `rotation::unrotate` (the transform, then the signs), when RHT is on.
fn rht_inverse(v: array<u32, HADAMARD>) -> array<u32, HADAMARD> {
    if (!rht_on()) {
        return v;
    }
    return signed(walsh_hadamard(v));
}

/// `mix32`: Wellons' lowbias32 (u32 multiplication wraps, as `wrapping_mul`).
fn mix32(input: u32) -> u32 {
    var x = input;
    x = x ^ (x >> MIX32_SHIFT_0);
    x = x * MIX32_MULTIPLIER_0;
    x = x ^ (x >> MIX32_SHIFT_1);
    x = x * MIX32_MULTIPLIER_1;
    x = x ^ (x >> MIX32_SHIFT_2);
    return x;
}

/// `uniform24(seed, index)` for the weight at `at` in the chunk: the tensor index
/// `first + at` as two u32 halves (with the carry), hashed with the seed's key.
fn draw(at: u32) -> u32 {
    let lo = params.first_lo + at;
    let hi = params.first_hi + select(0u, 1u, lo < at);
    return mix32(lo ^ mix32(hi ^ params.consts.z)) >> (32u - UNIFORM_BITS);
}

/// `rounds_up(a, b, u)`: whether u · b < a · 2^UNIFORM_BITS exactly, for finite 0 ≤ a ≤ b
/// (f32 bits, b > 0). With a = ma · 2^ea and b = mb · 2^eb (24-bit significands), u · mb
/// (< 2^48) is compared with ma · 2^(ea + 24 − eb) as u32 pairs: a ≤ b keeps the shift at most
/// 25; a negative shift compares with the right side rounded up (the left is a whole number).
fn rounds_up(a: u32, b: u32, u: u32) -> bool {
    if (is_zero(a)) {
        return false;
    }
    let pa = unpack(a);
    let pb = unpack(b);
    let ma = u32(pa.x);
    let left = mul_wide(u, u32(pb.x));
    let t = pa.y + i32(UNIFORM_BITS) - pb.y;
    if (t >= 0) {
        let s = u32(min(t, 31));
        var right = vec2<u32>(0u, ma);
        if (s > 0u) {
            right = vec2<u32>(ma >> (32u - s), ma << s);
        }
        return left.x < right.x || (left.x == right.x && left.y < right.y);
    }
    if (t <= -i32(UNIFORM_BITS)) {
        // ma < 2^24 ≤ 2^-t: the right side is in (0, 1], rounded up 1.
        return left.x == 0u && left.y == 0u;
    }
    let s = u32(-t);
    return left.x == 0u && left.y < ((ma + (1u << s) - 1u) >> s);
}

/// `sr_code(v, d, u)`: the E2M1 code (`KVALUES_MXFP4` index, at `table[256..272)`) that
/// stochastic rounding gives `v` with half scale `d`: the lower grid neighbour k · d of |v|, or
/// the upper one when `rounds_up`; code 7 beyond 12 · d; 0 for non-finite `v` or d = 0; +8 for a
/// negative `v` whose magnitude does not round to 0.
fn sr_code(v: u32, d: u32, u: u32) -> u32 {
    if (!is_finite(v) || is_zero(d)) {
        return 0u;
    }
    let a = v & ABS;
    var i = 0u;
    while (i < 7u && f_le(f_mul(table[257u + i], d), a)) {
        i = i + 1u;
    }
    if (i < 7u) {
        let lo = f_mul(table[256u + i], d);
        let hi = f_mul(table[257u + i], d);
        if (rounds_up(f_sub(a, lo), f_sub(hi, lo), u)) {
            i = i + 1u;
        }
    }
    if (f_lt(v, 0u) && i != 0u) {
        return i + 8u;
    }
    return i;
}
