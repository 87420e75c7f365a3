// Zero-point dequantizer (zeropoint.rs): (code − zero point) × scale, one invocation per weight;
// `params.variant` = 8 (one byte per code) or 4 (two codes per byte, weight 2i low).

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes, the block and the bit width.
// headers: per block the f32 scale then the zero point byte, [n / block][params.stride].
// codes: the packed codes, four bytes to a word.
// table: unused by this kernel (one word).
// y: the weights as f32 bit patterns, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let b = i / params.block;
    var q = 0u;
    if (params.variant == 8u) {
        q = code_byte(i);
    } else {
        q = code_nibble(i);
    }
    let zero_point = headers[params.stride * b + 1u] & 0xffu;
    return f_mul(from_int(i32(q) - i32(zero_point)), headers[params.stride * b]);
}
