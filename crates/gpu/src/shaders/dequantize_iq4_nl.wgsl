// IQ4_NL dequantizer (iq4_nl.rs `dequantize_block`, as llama.cpp's `dequantize_row_iq4_nl`):
// `d · KVALUES_IQ4NL[code]` in f32, one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes.
// headers: unused (one word per block pair).
// codes: the stored 18-byte blocks back to back (FP16 d @0, then 16 bytes: byte j holds weight j
//   in its low nibble and weight j + 16 in its high nibble), [n / 32 × 18 / 4].
// table: the 16 non-linear levels `KVALUES_IQ4NL` as f32 bits, [16].
// y: the weights as f32 bits, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let base = (i / QK4_NL) * IQ4_NL_BYTES;
    let j = i % 32u;
    let d = f16_to_f32(code_byte(base) | (code_byte(base + 1u) << 8u));
    let byte = code_byte(base + 2u + j % 16u);
    return f_mul(d, table[select(byte & 0xfu, byte >> 4u, j >= 16u)]);
}
