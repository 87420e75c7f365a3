// FP8 E4M3 tiles' dequantizer (codec.rs `Scheme::Fp8Tile`): the pattern's value × its tile's
// FP32 scale, one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the tile.
// headers: per tile the f32 scale, [n / block][params.stride].
// codes: one E4M3 byte per weight, four to a word.
// table: the value of every E4M3 pattern as f32 bits, from the CPU codec, [256].
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    return f_mul(table[code_byte(i)], headers[params.stride * (i / params.block)]);
}
