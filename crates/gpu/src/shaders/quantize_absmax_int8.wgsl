// Absmax INT8 (absmax.rs): scale = absmax / 127 per block of `params.block` weights, codes
// x / scale rounded half away from zero. `measure` runs once per block, `quantize` once per code
// word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the block.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: per block [scale, 0, 0, 0], [n / block][4].
// codes: one byte per weight, four to a word, [n / 4 rounded up].

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    let amax = absmax_of(b * params.block, params.block);
    return vec4<u32>(f_div(amax, 0x42fe0000u), 0u, 0u, 0u); // scale = amax / 127
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let i = 4u * w + k;
        if (i < params.n) {
            let scale = blocks[4u * (i / params.block)];
            if (!is_zero(scale)) {
                word = word | (code_i8(f_div(x[i], scale)) << (8u * k));
            }
        }
    }
    return word;
}
