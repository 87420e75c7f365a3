// Absmax INT8 dequantizer (absmax.rs): code × scale, one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the block.
// headers: per block the f32 scale, [n / block][2].
// codes: one int8 per weight, four to a word.
// table: unused by this kernel (one word).
// y: the weights as f32 bit patterns, [n].

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let q = (i32(codes[i / 4u] >> (8u * (i % 4u))) << 24u) >> 24u;
    y[i] = f_mul(from_int(q), headers[2u * (i / params.block)]);
}
