// GGML block quantizers (ggml.rs): 32 weights per block. `params.variant`: 0 = q8_0, 1 = q4_0,
// 2 = q4_1, 3 = q5_0, 4 = q5_1. `measure` runs once per block, `quantize` once per code word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the variant.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this family (one word).
// blocks: per block [scale header word, 0, 1/d, min], [n / 32][4].
// codes: each block's code bytes (q8_0: 32, q4: 16, q5: 4 of fifth bits then 16) back to back,
// four to a word little-endian, [n / 32 × code bytes / 4].


/// llama.cpp's `1/d`, 0 for a zero scale.
fn inverse(d: u32) -> u32 {
    if (is_zero(d)) {
        return 0u;
    }
    return f_div(ONE, d);
}

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    let base = b * QK;
    var header = 0u;
    var id = 0u;
    var lo = 0u;
    switch params.variant {
        case 0u: {
            let amax = absmax_of(base, QK);
            let d = f_div(amax, 0x42fe0000u); // / 127
            header = f16_bits(d);
            id = inverse(d);
        }
        case 1u, 3u: {
            // The weight of largest magnitude, first on ties; divided by -8 (q4_0) or -16 (q5_0).
            var best = 0u;
            var amax = 0u;
            for (var j = 0u; j < QK; j = j + 1u) {
                let v = x[base + j];
                let a = v & ABS;
                if (a <= INF && a > amax) {
                    amax = a;
                    best = v;
                }
            }
            let d = f_div(best, select(0xc1000000u, 0xc1800000u, params.variant == 3u));
            header = f16_bits(d);
            id = inverse(d);
        }
        default: {
            var hi = 0xff800000u; // -inf
            lo = INF;
            for (var j = 0u; j < QK; j = j + 1u) {
                let v = x[base + j];
                lo = f_min(lo, v);
                hi = f_max(hi, v);
            }
            // (max - min) / 15 (q4_1) or / 31 (q5_1)
            let d = f_div(f_sub(hi, lo), select(0x41700000u, 0x41f80000u, params.variant == 4u));
            header = f16_bits(d) | (f16_bits(lo) << 16u);
            id = inverse(d);
        }
    }
    return vec4<u32>(header, 0u, id, lo);
}

/// The 4- or 5-bit code of weight j of block b (before packing).
fn small_code(b: u32, j: u32) -> u32 {
    let v = x[b * QK + j];
    let id = blocks[4u * b + 2u];
    switch params.variant {
        case 1u: {
            return trunc_code(f_add(f_mul(v, id), 0x41080000u), 15u); // + 8.5
        }
        case 3u: {
            return trunc_code(f_add(f_mul(v, id), 0x41840000u), 31u); // + 16.5
        }
        case 2u: {
            return trunc_code(f_add(f_mul(f_sub(v, blocks[4u * b + 3u]), id), 0x3f000000u), 15u);
        }
        default: {
            return trunc_code(f_add(f_mul(f_sub(v, blocks[4u * b + 3u]), id), 0x3f000000u), 31u);
        }
    }
}

/// Word r of a 4-bit nibble area: byte j holds weight j (low) and weight j + 16 (high).
fn nibble_word(b: u32, r: u32) -> u32 {
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let j = 4u * r + k;
        let byte = (small_code(b, j) & 0xfu) | ((small_code(b, j + 16u) & 0xfu) << 4u);
        word = word | (byte << (8u * k));
    }
    return word;
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    var word = 0u;
    switch params.variant {
        case 0u: {
            let b = w / 8u;
            let id = blocks[4u * b + 2u];
            for (var k = 0u; k < 4u; k = k + 1u) {
                let j = 4u * (w % 8u) + k;
                word = word | (code_i8(f_mul(x[b * QK + j], id)) << (8u * k));
            }
        }
        case 1u, 2u: {
            word = nibble_word(w / 4u, w % 4u);
        }
        default: {
            let b = w / 5u;
            let r = w % 5u;
            if (r == 0u) {
                for (var j = 0u; j < QK; j = j + 1u) {
                    word = word | (((small_code(b, j) >> 4u) & 1u) << j);
                }
            } else {
                word = nibble_word(b, r - 1u);
            }
        }
    }
    return word;
}
