// NF4 dequantizer (scheme.rs): code value × block absmax, one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the block.
// headers: per block the f32 absmax, [n / block][2].
// codes: block/2 bytes per block (weight 2i in the low nibble), four to a word.
// table: `NF4_CODE` as f32 bits, [16].
// y: the weights as f32 bit patterns, [n].

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let k = i / 2u;
    let byte = (codes[k / 4u] >> (8u * (k % 4u))) & 0xffu;
    let code = select(byte & 0xfu, byte >> 4u, i % 2u == 1u);
    y[i] = f_mul(table[code], headers[2u * (i / params.block)]);
}
