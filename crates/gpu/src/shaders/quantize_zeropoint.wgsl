// Asymmetric min-max quantization (zeropoint.rs) to `params.variant` = 8 (uint8) or 4 bits, per
// block of `params.block` weights. `measure` runs once per block, `quantize` once per code word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes, the block and the bit width.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: per block [scale, zero point (integer), 0, zero point (f32 bits)], [n / block][4].
// codes: one byte (8 bits) or nibble (4 bits, weight 2i low) per weight, four bytes to a word.

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    let top = from_int(i32((1u << params.variant) - 1u));
    // The range widened to include 0, NaN skipped.
    var lo = 0u;
    var hi = 0u;
    for (var j = 0u; j < params.block; j = j + 1u) {
        let v = x[b * params.block + j];
        if (!is_nan(v)) {
            lo = f_min(lo, v);
            hi = f_max(hi, v);
        }
    }
    let scale = f_div(f_sub(hi, lo), top);
    var zero_point = 0u;
    var stored_scale = 0u;
    if (!is_zero(scale) && is_finite(scale)) {
        stored_scale = scale;
        // round(-lo / scale) clamped to [0, top]
        zero_point = f_round(f_div(lo ^ SIGN, scale));
        if (f_lt(zero_point, 0u)) {
            zero_point = 0u;
        }
        if (f_lt(top, zero_point)) {
            zero_point = top;
        }
    }
    return vec4<u32>(stored_scale, u32(bitcast<f32>(zero_point & ABS)), 0u, zero_point);
}

fn code(i: u32) -> u32 {
    let b = i / params.block;
    let scale = blocks[4u * b];
    let zero_point = blocks[4u * b + 3u];
    if (is_zero(scale)) {
        return 0u;
    }
    let v = x[i];
    if (is_nan(v)) {
        return blocks[4u * b + 1u];
    }
    // (round(v / scale) + zero point) clamped to [0, top], as an integer.
    let top = (1u << params.variant) - 1u;
    let q = f_add(f_round(f_div(v, scale)), zero_point);
    if ((q & SIGN) != 0u) {
        return 0u;
    }
    if (f_lt(from_int(i32(top)), q)) {
        return top;
    }
    return u32(bitcast<f32>(q));
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        var byte = 0u;
        if (params.variant == 8u) {
            let i = 4u * w + k;
            if (i < params.n) {
                byte = code(i);
            }
        } else {
            let i = 8u * w + 2u * k;
            if (i < params.n) {
                byte = code(i) | (code(i + 1u) << 4u);
            }
        }
        word = word | (byte << (8u * k));
    }
    return word;
}
