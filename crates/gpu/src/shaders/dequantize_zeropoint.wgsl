// Zero-point dequantizer (zeropoint.rs): (code − zero point) × scale, one invocation per weight;
// `params.variant` = 8 (one byte per code) or 4 (two codes per byte, weight 2i low).

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes, the block and the bit width.
// headers: per block the f32 scale then the zero point byte, [n / block][2].
// codes: the packed codes, four bytes to a word.
// table: unused by this kernel (one word).
// y: the weights as f32 bit patterns, [n].

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let b = i / params.block;
    var q = 0u;
    if (params.variant == 8u) {
        q = (codes[i / 4u] >> (8u * (i % 4u))) & 0xffu;
    } else {
        let k = i / 2u;
        let byte = (codes[k / 4u] >> (8u * (k % 4u))) & 0xffu;
        q = select(byte & 0xfu, byte >> 4u, i % 2u == 1u);
    }
    let zero_point = headers[2u * b + 1u] & 0xffu;
    y[i] = f_mul(from_int(i32(q) - i32(zero_point)), headers[2u * b]);
}
