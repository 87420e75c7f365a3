// NVFP4 dequantizer (nvfp4.rs `dequantize_block`, as llama.cpp stores it): each 16-weight
// sub-block's UE4M3 scale halved, times the E2M1 value of the code, in f32; one invocation per
// weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// headers: unused (one word per block pair).
// codes: the stored 36-byte blocks back to back (4 UE4M3 scale bytes, then per sub-block s the 8
//   bytes @4 + 8s: byte j holds weight 16s + j low and 16s + j + 8 high), [n / 64 × 36 / 4].
// table: [0..256) `ue4m3_to_f32(b) × 0.5` for every scale byte, [256..272) `KVALUES_MXFP4` as
//   f32 bits.
// y: the weights as f32 bits, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let base = (i / 64u) * 36u;
    let j = i % 64u;
    let s = j / 16u;
    let d = table[code_byte(base + s)];
    let byte = code_byte(base + 4u + 8u * s + j % 8u);
    let code = select(byte & 0xfu, byte >> 4u, j % 16u >= 8u);
    return f_mul(table[256u + code], d);
}
