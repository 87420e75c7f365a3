// MXFP4 (ggml.rs, llama.cpp `quantize_row_mxfp4_ref`): 32 weights per block, an E8M0 exponent
// and E2M1 codes (rounded stochastically, and of rotated values, with the options of
// fp4_options.wgsl). `measure` runs once per block, `quantize` once per code word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// x: the chunk's weights as f32 bit patterns, [n].
// table: [0..256) the exponent thresholds: e = the number of t in 1..256 with
// table[t] <= absmax bits (derived from the CPU reference, see tables.rs); [256..272)
// `KVALUES_MXFP4` (E2M1 values doubled: 0, 1, 2, 3, 4, 6, 8, 12, then negated) as f32 bits.
// blocks: per block [e, 0, d = 2^(e-127)/2 as f32 bits, 0], [n / 32][4].
// codes: 16 bytes per block (byte j: weight j low, weight j + 16 high), [n / 32 × 4].


/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
/// The exponent comes from the values as quantized (rotated with RHT on, fp4_options.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    var amax = 0u;
    for (var g = 0u; g < QK; g = g + 16u) {
        var v = rht_forward(weights16(b * QK + g));
        for (var k = 0u; k < 16u; k = k + 1u) {
            amax = absmax_step(amax, v[k]);
        }
    }
    // Binary search: the thresholds are non-decreasing in t.
    var lo = 0u; // table[t] <= amax for every t in 1..=lo
    var hi = 256u; // table[t] > amax for every t in hi..256
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (table[mid] <= amax) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return vec4<u32>(lo, 0u, e8m0_half(lo), 0u);
}

/// `best_mxfp4_index`: the nearest of ±k·d (first on ties, 0 for a zero or non-finite weight).
fn best_index(v: u32, d: u32) -> u32 {
    if (!is_finite(v)) {
        return 0u;
    }
    let a = v & ABS;
    // The first magnitude above |v| (8 if none): counts down, and the u32 wrap below 0 ends it.
    var above = 8u;
    for (var i = 7u; i < 8u; i = i - 1u) {
        if (f_lt(a, f_mul(d, table[256u + i]))) {
            above = i;
        }
    }
    let lo = min(max(above, 1u) - 1u, 6u);
    let err_hi = f_sub(f_mul(d, table[257u + lo]), a) & ABS;
    let err_lo = f_sub(f_mul(d, table[256u + lo]), a) & ABS;
    let i = select(lo, lo + 1u, f_lt(err_hi, err_lo));
    if (i == 0u || !f_lt(v, 0u)) {
        return i;
    }
    return i + 8u;
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl); with SR on,
/// each code is `sr_code` of weight `at`'s draw.
fn code_word(w: u32) -> u32 {
    let b = w / 4u;
    let d = blocks[4u * b + 2u];
    var low = rht_forward(weights16(b * QK));
    var high = rht_forward(weights16(b * QK + 16u));
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let j = 4u * (w % 4u) + k;
        let at = b * QK + j;
        var byte: u32;
        if (sr_on()) {
            byte = sr_code(low[j], d, draw(at)) | (sr_code(high[j], d, draw(at + 16u)) << 4u);
        } else {
            byte = best_index(low[j], d) | (best_index(high[j], d) << 4u);
        }
        word = word | (byte << (8u * k));
    }
    return word;
}
