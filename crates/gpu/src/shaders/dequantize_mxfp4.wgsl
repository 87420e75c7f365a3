// MXFP4 dequantizer (ggml.rs `dequantize_block`), one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// headers: per block the E8M0 exponent in the low byte, [n / 32][params.stride].
// codes: 16 bytes per block (byte j: weight j low, weight j + 16 high), [n / 32 × 4].
// table: [256..272) `KVALUES_MXFP4` (E2M1 values doubled) as f32 bits.
// y: the weights as f32 bit patterns, [n].

/// The f32 bits that weight i's bytes hold (in the rotated basis with RHT on: the shared
/// `weight(i)` of dequantize_rotated.wgsl undoes the rotation).
fn stored_weight(i: u32) -> u32 {
    let b = i / 32u;
    let j = i % 32u;
    let byte = code_byte(b * 16u + j % 16u);
    let code = select(byte & 0xfu, byte >> 4u, j >= 16u);
    return f_mul(table[256u + code], e8m0_half(headers[params.stride * b] & 0xffu));
}
