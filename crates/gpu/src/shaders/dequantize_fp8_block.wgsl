// FP8 E4M3 128×128 blocks' dequantizer (codec.rs `Scheme::Fp8Block`): the pattern's value × its
// block's FP32 scale, one invocation per weight of a row-major tensor of `params.block` columns.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the columns in `block`.
// headers: the f32 scale of every block in row-major block order, [bands × ⌈block / 128⌉].
// codes: one E4M3 byte per weight in the tensor's order, four to a word.
// table: the value of every E4M3 pattern as f32 bits, from the CPU codec, [256].
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let r = i / params.block;
    let c = i % params.block;
    let b = (r / 128u) * ((params.block + 127u) / 128u) + c / 128u;
    return f_mul(table[code_byte(i)], headers[b]);
}
