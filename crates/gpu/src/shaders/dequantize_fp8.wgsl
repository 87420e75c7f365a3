// FP8 dequantizer (scheme.rs): the pattern's value × the per-tensor scale, one invocation per
// weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes; `scalar` is the per-tensor scale.
// headers: unused (the scale travels in params.scalar; one word).
// codes: one FP8 byte per weight, four to a word.
// table: the value of every FP8 pattern as f32 bits, from the CPU codec, [256].
// y: the weights as f32 bit patterns, [n].

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let b = (codes[i / 4u] >> (8u * (i % 4u))) & 0xffu;
    y[i] = f_mul(table[b], params.scalar);
}
