// FP8 dequantizer (scheme.rs): the pattern's value × the per-tensor scale, one invocation per
// weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes; `scalar` is the per-tensor scale.
// headers: unused (the scale travels in params.scalar; one word).
// codes: one FP8 byte per weight, four to a word.
// table: the value of every FP8 pattern as f32 bits, from the CPU codec, [256].
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    return f_mul(table[code_byte(i)], params.scalar);
}
