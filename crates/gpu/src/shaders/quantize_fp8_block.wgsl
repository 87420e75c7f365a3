// FP8 E4M3 with an FP32 scale per 128×128 block of a row-major tensor of `params.block` columns
// (codec.rs `Scheme::Fp8Block`, fp8_tiles.rs `quantize_blocks`): the scale is the block's largest
// finite |x| over 448 (`fp8_scale`); codes are x / scale rounded to nearest even and saturated
// (fp8.rs `encode_saturating`); a block without a finite non-zero value has scale 0 and codes 0.
// Blocks at the right and bottom edges are partial. `measure` runs once per block (row-major
// block order), `quantize` once per code word; the host puts each band's scales before its codes.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes, the columns in `block`, and `consts`: E4M3's minifloat facts.
// x: the chunk's weights (whole rows) as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: per block [scale, 0, 0, 0], [bands × ⌈block / 128⌉][4].
// codes: one E4M3 byte per weight in the tensor's order, four to a word, [n / 4 rounded up].

/// Blocks per band of 128 rows.
fn blocks_across() -> u32 {
    return (params.block + 127u) / 128u;
}

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    let cols = params.block;
    let rows = params.n / cols;
    let r0 = (b / blocks_across()) * 128u;
    let c0 = (b % blocks_across()) * 128u;
    let r1 = min(r0 + 128u, rows);
    let c1 = min(c0 + 128u, cols);
    var amax = 0u;
    for (var r = r0; r < r1; r = r + 1u) {
        for (var c = c0; c < c1; c = c + 1u) {
            // |x| as bits orders as the values do; NaN and ±inf (bits ≥ INF) are left out.
            let a = x[r * cols + c] & ABS;
            if (a < INF && a > amax) {
                amax = a;
            }
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
            let r = i / params.block;
            let c = i % params.block;
            let scale = blocks[4u * ((r / 128u) * blocks_across() + c / 128u)];
            var y = 0u;
            if (!is_zero(scale)) {
                y = f_div(x[i], scale);
            }
            word = word | (minifloat_saturating(y, params.consts) << (8u * k));
        }
    }
    return word;
}
