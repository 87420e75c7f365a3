// MXFP4 dequantizer (ggml.rs `dequantize_block`), one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// headers: per block the E8M0 exponent in the low byte, [n / 32][2].
// codes: 16 bytes per block (byte j: weight j low, weight j + 16 high), [n / 32 × 4].
// table: [256..272) `KVALUES_MXFP4` (E2M1 values doubled) as f32 bits.
// y: the weights as f32 bit patterns, [n].

fn e8m0_half(e: u32) -> u32 {
    if (e < 2u) {
        return 0x00200000u << e;
    }
    return (e - 1u) << 23u;
}

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let b = i / 32u;
    let j = i % 32u;
    let k = b * 16u + j % 16u;
    let byte = (codes[k / 4u] >> (8u * (k % 4u))) & 0xffu;
    let code = select(byte & 0xfu, byte >> 4u, j >= 16u);
    y[i] = f_mul(table[256u + code], e8m0_half(headers[2u * b] & 0xffu));
}
