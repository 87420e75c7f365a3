// IQ4_NL quantizer (the math crate's iq4_nl.rs `quantize_block`, byte for byte llama.cpp's
// `quantize_iq4_nl` without an importance matrix: `quantize_row_iq4_nl_impl` with ntry 7).
// `measure` runs once per 32-weight block and does the whole search in that invocation
// (`quantize_block`), every float operation on bit patterns (common.wgsl) in the CPU's order:
// the start scale −max/−127, the least-squares refit, the 15 trial scales (t − 127)/max, the FP16
// scale and the indices re-picked with the unrounded scale. quantize_whole_blocks.wgsl (appended
// after this file) stores the 18-byte blocks; the bindings are as it says, except:
// table: the 16 non-linear levels `KVALUES_IQ4NL` as f32 bits, [16].

/// Weights per block.
/// -127.0f32 (the first level, `v0`).
const LEVEL_0: u32 = 0xc2fe0000u;
/// 2.0f32.
const TWO: u32 = 0x40000000u;

/// The index of each weight of the block being quantized.
var<private> nl_codes: array<u32, 32>;
/// The FP16 scale of the block being quantized.
var<private> nl_d: u32;
/// The 15 midpoints between neighbouring levels, (a + b) / 2 in f32 (`MIDPOINTS`).
var<private> nl_mid: array<u32, 15>;

/// `nearest_level`'s index of y: how many midpoints y is not below; ties go up, NaN gives 15.
fn level_index(y: u32) -> u32 {
    var index = 0u;
    for (var i = 0u; i < 15u; i = i + 1u) {
        if (!f_lt(y, nl_mid[i])) {
            index = index + 1u;
        }
    }
    return index;
}

/// Σw·q·x and Σw·q² (w = x²) over the block from `base` with each weight's level picked at
/// `id · x`; writes the indices when `keep`.
fn level_sums(base: u32, id: u32, keep: bool) -> vec2<u32> {
    var sumqx = 0u;
    var sumq2 = 0u;
    for (var j = 0u; j < QK4_NL; j = j + 1u) {
        let v = x[base + j];
        let l = level_index(f_mul(id, v));
        if (keep) {
            nl_codes[j] = l;
        }
        let q = table[l];
        let w = f_mul(v, v);
        sumqx = f_add(sumqx, f_mul(f_mul(w, q), v));
        sumq2 = f_add(sumq2, f_mul(f_mul(w, q), q));
    }
    return vec2<u32>(sumqx, sumq2);
}

/// Quantizes block b into `nl_codes` and `nl_d`.
fn quantize_block(b: u32) {
    let base = b * QK4_NL;
    for (var i = 0u; i < 15u; i = i + 1u) {
        nl_mid[i] = f_div(f_add(table[i], table[i + 1u]), TWO);
    }
    let largest = signed_absmax(base, QK4_NL);
    let vmax = largest.x;
    var d = 0u;
    if (f_le(GROUP_MAX_EPS, largest.y)) {
        d = f_div(vmax ^ SIGN, LEVEL_0);
        let start = level_sums(base, f_div(ONE, d), false);
        d = 0u;
        if (f_lt(0u, start.y)) {
            d = f_div(start.x, start.y);
        }
        var best = f_mul(d, start.x);
        for (var t = -7; t <= 7; t = t + 1) {
            let id = f_div(f_add(from_int(t), LEVEL_0), vmax);
            let sums = level_sums(base, id, false);
            if (f_lt(0u, sums.y) && f_lt(f_mul(best, sums.y), f_mul(sums.x, sums.x))) {
                d = f_div(sums.x, sums.y);
                best = f_mul(d, sums.x);
            }
        }
    }
    var id = 0u;
    if (!f_eq(d, 0u)) {
        id = f_div(ONE, d);
    }
    for (var j = 0u; j < QK4_NL; j = j + 1u) {
        nl_codes[j] = level_index(f_mul(id, x[base + j]));
    }
    nl_d = ggml_f16(d);
}

/// Bytes per stored block.
fn block_bytes() -> u32 {
    return IQ4_NL_BYTES;
}

/// Byte p of the block just quantized: `d` (FP16), then byte j holds weight j's index (low
/// nibble) and weight j + 16's (high).
fn block_byte(p: u32) -> u32 {
    if (p < 2u) {
        return (nl_d >> (8u * p)) & 0xffu;
    }
    return nl_codes[p - 2u] | (nl_codes[p - 2u + 16u] << 4u);
}
