// FP8 E4M3 with an FP32 scale per tile of `params.block` weights (codec.rs `Scheme::Fp8Tile`,
// fp8_tiles.rs): the scale is the tile's largest finite |x| over 448 (`fp8_scale`); codes are
// x / scale rounded to nearest even and saturated (fp8.rs `encode_saturating`); a tile without a
// finite non-zero value has scale 0 and codes 0. `measure` runs once per tile, `quantize` once
// per code word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes, the tile, and `consts`: E4M3's minifloat facts (tables.rs `fp8_consts`).
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: per tile [scale, 0, 0, 0], [n / block][4].
// codes: one E4M3 byte per weight, four to a word, [n / 4 rounded up].

/// Tile b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    var amax = 0u;
    let start = b * params.block;
    for (var j = 0u; j < params.block; j = j + 1u) {
        // |x| as bits orders as the values do; NaN and ±inf (bits ≥ INF) are left out.
        let a = x[start + j] & ABS;
        if (a < INF && a > amax) {
            amax = a;
        }
    }
    return vec4<u32>(f_div(amax, 0x43e00000u), 0u, 0u, 0u); // scale = amax / 448
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let i = 4u * w + k;
        if (i < params.n) {
            let scale = blocks[4u * (i / params.block)];
            var y = 0u;
            if (!is_zero(scale)) {
                y = f_div(x[i], scale);
            }
            word = word | (minifloat_saturating(y, params.consts) << (8u * k));
        }
    }
    return word;
}
