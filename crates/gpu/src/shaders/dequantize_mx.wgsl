// OCP MX dequantizer for MXFP8 (E4M3, E5M2) and MXFP6 (E3M2, E2M3) (mx.rs `dequantize_block`):
// the element's value times the block's E8M0 scale 2^(X − 127), rounded once to f32, or NaN for
// the whole block when X is the NaN byte 0xFF; one invocation per weight.
// `params.variant`: the element width in bits (8 or 6).

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the element width.
// headers: per block the E8M0 scale byte in the low byte, [n / 32][params.stride].
// codes: the elements (one byte each for MXFP8, a little-endian 6-bit string for MXFP6), 32 or
//   24 bytes per block back to back, four to a word.
// table: the value of every element pattern as f32 bits, from the CPU codec, [2^bits].
// y: the weights as f32 bits, [n].

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let bits = params.variant;
    let b = i / 32u;
    let j = i % 32u;
    let x = headers[params.stride * b] & 0xffu;
    if (x == 0xffu) {
        return QNAN;
    }
    let base = b * 4u * bits;
    var code = code_byte(base + j);
    if (bits == 6u) {
        let at = base + (6u * j) / 8u;
        let shift = (6u * j) % 8u;
        // Bits from the next byte only when the element straddles two bytes.
        let pair = code_byte(at) | select(0u, code_byte(at + 1u) << 8u, shift > 2u);
        code = (pair >> shift) & 63u;
    }
    // 2^(x − 127) as f32 bits: normal for x ≥ 1, the subnormal 2^-127 for x = 0.
    let scale = select(0x00400000u, x << 23u, x >= 1u);
    return f_mul(table[code], scale);
}
