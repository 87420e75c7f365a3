// NF4 dequantizer (scheme.rs): code value × block absmax, one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the block.
// headers: per block the f32 absmax, [n / block][params.stride].
// codes: block/2 bytes per block (weight 2i in the low nibble), four to a word.
// table: `NF4_CODE` as f32 bits, [16].
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    return f_mul(table[code_nibble(i)], headers[params.stride * (i / params.block)]);
}
