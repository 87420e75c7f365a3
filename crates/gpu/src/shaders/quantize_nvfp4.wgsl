// NVFP4 (nvfp4.rs `quantize_block`, as llama.cpp's `quantize_row_nvfp4_ref`): 64 weights per
// block in four 16-weight sub-blocks, each with a UE4M3 scale byte for amax / 6, and E2M1 codes
// picked by the smallest f32 error (or stochastically, and of rotated values: fp4_options.wgsl).
// `measure` runs once per block, `quantize` once per code word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// x: the chunk's weights as f32 bit patterns, [n].
// table: [0..256) `ue4m3_to_f32(b) × 0.5` for every scale byte, [256..272) `KVALUES_MXFP4` as
//   f32 bits.
// blocks: per block [the four scale bytes, little-endian, 0, 0, 0], [n / 64][4].
// codes: 32 bytes per block (per sub-block s the 8 bytes @8s: byte j holds weight 16s + j low
//   and 16s + j + 8 high), [n / 64 × 8].

/// `ue4m3_from_f32` (llama.cpp `ggml_fp32_to_ue4m3`) of the f32 `v`: 0 unless v > 0; clamped to
/// 448; the mantissa cut to 3 bits and rounded half up; subnormals `trunc(v·512 + 0.5)` capped
/// at 7; 0x7E at and above 256.
fn ue4m3(v: u32) -> u32 {
    if (!f_lt(0u, v)) {
        return 0u;
    }
    let bits = select(v, 0x43e00000u, f_lt(0x43e00000u, v));
    var e = i32((bits >> 23u) & 0xffu) - 127 + 7;
    if (e <= 0) {
        // 512 = 0x44000000, 0.5 = 0x3f000000.
        return trunc_code(f_add(f_mul(bits, 0x44000000u), 0x3f000000u), 7u);
    }
    if (e >= 15) {
        return 0x7eu;
    }
    var man = ((bits >> 20u) & 7u) + ((bits >> 19u) & 1u);
    if (man > 7u) {
        man = 0u;
        e = e + 1;
        if (e >= 15) {
            return 0x7eu;
        }
    }
    return (u32(e) << 3u) | man;
}

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl):
/// the four sub-block scale bytes packed in the first, from the values as quantized (rotated
/// with RHT on, fp4_options.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    var packed = 0u;
    for (var s = 0u; s < 4u; s = s + 1u) {
        var v = rht_forward(weights16(64u * b + 16u * s));
        var amax = 0u;
        for (var j = 0u; j < 16u; j = j + 1u) {
            let a = v[j] & ABS;
            if (f_lt(amax, a)) {
                amax = a;
            }
        }
        // 6 = 0x40c00000.
        packed = packed | (ue4m3(f_div(amax, 0x40c00000u)) << (8u * s));
    }
    return vec4<u32>(packed, 0u, 0u, 0u);
}

/// `best_code`: the first of the 16 codes whose `KVALUES_MXFP4[i]·d − v` is smallest in
/// magnitude (NaN: code 0).
fn best_code(v: u32, d: u32) -> u32 {
    var best = 0u;
    var best_err = f_sub(f_mul(table[256u], d), v) & ABS;
    for (var i = 1u; i < 16u; i = i + 1u) {
        let err = f_sub(f_mul(table[256u + i], d), v) & ABS;
        if (f_lt(err, best_err)) {
            best = i;
            best_err = err;
        }
    }
    return best;
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl): its four
/// bytes lie in one sub-block; with SR on, each code is `sr_code` of weight `at`'s draw.
fn code_word(w: u32) -> u32 {
    let b = w / 8u;
    let s = (w % 8u) / 2u;
    let d = table[(blocks[4u * b] >> (8u * s)) & 0xffu];
    var v = rht_forward(weights16(64u * b + 16u * s));
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let j = (4u * (w % 8u) + k) % 8u;
        let at = 64u * b + 16u * s + j;
        var byte: u32;
        if (sr_on()) {
            byte = sr_code(v[j], d, draw(at)) | (sr_code(v[j + 8u], d, draw(at + 8u)) << 4u);
        } else {
            byte = best_code(v[j], d) | (best_code(v[j + 8u], d) << 4u);
        }
        word = word | (byte << (8u * k));
    }
    return word;
}
