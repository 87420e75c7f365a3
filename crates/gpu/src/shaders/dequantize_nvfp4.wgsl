// NVFP4 dequantizer (nvfp4.rs `dequantize_block`, as llama.cpp stores it): each 16-weight
// sub-block's UE4M3 scale halved, times the E2M1 value of the code, in f32; one invocation per
// weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// headers: per block the four UE4M3 scale bytes, little-endian, [n / 64][params.stride].
// codes: 32 bytes per block (per sub-block s the 8 bytes @8s: byte j holds weight 16s + j low
//   and 16s + j + 8 high), [n / 64 × 8].
// table: [0..256) `ue4m3_to_f32(b) × 0.5` for every scale byte, [256..272) `KVALUES_MXFP4` as
//   f32 bits.
// y: the weights as f32 bits, [n].

/// The f32 bits that weight i's bytes hold (in the rotated basis with RHT on: the shared
/// `weight(i)` of dequantize_rotated.wgsl undoes the rotation).
fn stored_weight(i: u32) -> u32 {
    let b = i / 64u;
    let j = i % 64u;
    let s = j / 16u;
    let d = table[(headers[params.stride * b] >> (8u * s)) & 0xffu];
    let byte = code_byte(32u * b + 8u * s + j % 8u);
    let code = select(byte & 0xfu, byte >> 4u, j % 16u >= 8u);
    return f_mul(table[256u + code], d);
}
