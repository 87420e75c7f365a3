// NF4 (nf4.rs): absmax per block of `params.block` weights, 4-bit codes of the NormalFloat table,
// and QLoRA's double quantization of the block absmax values. `measure` runs once per block,
// `quantize` once per code word, `double_quantize` once per 256 block scales.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes; `scalar` is the mean of the absmax values (double_quantize only).
// x: the chunk's weights as f32 bit patterns, [n]; for double_quantize the n block absmax
// values, `params.stride` words apart (1, or 4 when x is the `blocks` of `measure`).
// table: `NF4_CODE`, the 16 code values ascending, as f32 bits.
// blocks: per block [absmax, 0, 0, 0], [n / block][4]; for double_quantize the reconstructed
// absmax values, `params.stride` words apart, [count × 256][params.stride] (the other words are
// not written).
// codes: block/2 bytes per block (weight 2i in the low nibble), four to a word,
// [n / 2 / 4 rounded up].

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl).
fn block_words(b: u32) -> vec4<u32> {
    let amax = absmax_of(b * params.block, params.block);
    return vec4<u32>(amax, 0u, 0u, 0u);
}

/// `nf4::nearest_code`: the nearest table entry, the lower one on ties, 0 for NaN.
fn nearest_code(v: u32) -> u32 {
    var above = 0u;
    for (var i = 0u; i < 16u; i = i + 1u) {
        if (f_le(table[i], v)) {
            above = i + 1u;
        }
    }
    let lo = min(max(above, 1u) - 1u, 14u);
    let err_hi = f_sub(table[lo + 1u], v) & ABS;
    let err_lo = f_sub(table[lo], v) & ABS;
    return select(lo, lo + 1u, f_lt(err_hi, err_lo));
}

fn code(i: u32) -> u32 {
    let m = blocks[4u * (i / params.block)];
    if (is_zero(m)) {
        return 7u;
    }
    return nearest_code(f_div(x[i], m));
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let i = 8u * w + 2u * k;
        if (i < params.n) {
            word = word | ((code(i) | (code(i + 1u) << 4u)) << (8u * k));
        }
    }
    return word;
}

/// Double quantization of 256 absmax values (`nf4::quantize_with_mean`): centred on the mean,
/// absmax INT8 with one f32 scale, then reconstructed as code × scale + mean.
@compute @workgroup_size(64)
fn double_quantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let g = flat_index(gid, groups);
    if (g >= params.count) {
        return;
    }
    let mean = params.scalar;
    let first = g * 256u;
    let last = min(first + 256u, params.n);
    var amax = 0u;
    let at = params.stride;
    for (var i = first; i < last; i = i + 1u) {
        amax = absmax_step(amax, f_sub(x[at * i], mean));
    }
    let scale = f_div(amax, 0x42fe0000u); // / 127
    for (var i = first; i < last; i = i + 1u) {
        var q = 0;
        if (!is_zero(scale)) {
            q = (i32(code_i8(f_div(f_sub(x[at * i], mean), scale))) << 24u) >> 24u;
        }
        blocks[at * i] = f_add(f_mul(from_int(q), scale), mean);
    }
}
