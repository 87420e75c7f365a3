// Plain casts to 16 bits (half.rs): `params.variant` 0 = bf16, 1 = f16, nearest even, two
// little-endian bytes per weight. Only `quantize` (one invocation per word = two weights).

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the format.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: unused by this kernel (one word).
// codes: weight 2w in the low half of word w, weight 2w + 1 in the high half, [n / 2 rounded up].

fn narrow(v: u32) -> u32 {
    if (params.variant == 0u) {
        return bf16_bits(v);
    }
    return f16_bits(v);
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    var word = narrow(x[2u * w]);
    if (2u * w + 1u < params.n) {
        word = word | (narrow(x[2u * w + 1u]) << 16u);
    }
    return word;
}
