// Absmax INT8 (absmax.rs): scale = absmax / 127 per block of `params.block` weights, codes
// x / scale rounded half away from zero. `measure` runs once per block, `quantize` once per code
// word.

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the block.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: per block [scale, 0, 0, 0], [n / block][4].
// codes: one byte per weight, four to a word, [n / 4 rounded up].

@compute @workgroup_size(64)
fn measure(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = flat_index(gid, groups);
    if (b >= params.count || b >= arrayLength(&blocks) / 4u) {
        return;
    }
    var amax = 0u;
    for (var j = 0u; j < params.block; j = j + 1u) {
        amax = absmax_step(amax, x[b * params.block + j]);
    }
    blocks[4u * b] = f_div(amax, 0x42fe0000u); // / 127
    blocks[4u * b + 1u] = 0u;
    blocks[4u * b + 2u] = 0u;
    blocks[4u * b + 3u] = 0u;
}

@compute @workgroup_size(64)
fn quantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let w = flat_index(gid, groups);
    if (w >= params.count || w >= arrayLength(&codes)) {
        return;
    }
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
    codes[w] = word;
}
