// 16-bit casts back to f32: `params.variant` 0 = bf16, 1 = f16 (exact; one invocation per
// weight).

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the format.
// headers: unused (one word).
// codes: weight 2w in the low half of word w, weight 2w + 1 in the high half.
// table: unused by this kernel (one word).
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let h = (codes[i / 2u] >> (16u * (i % 2u))) & 0xffffu;
    if (params.variant == 0u) {
        return h << 16u;
    }
    return f16_to_f32(h);
}
