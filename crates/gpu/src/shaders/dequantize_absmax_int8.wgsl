// Absmax INT8 dequantizer (absmax.rs): code × scale, one invocation per weight.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the block.
// headers: per block the f32 scale, [n / block][params.stride].
// codes: one int8 per weight, four to a word.
// table: unused by this kernel (one word).
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    return f_mul(from_int(as_i8(code_byte(i))), headers[params.stride * (i / params.block)]);
}
