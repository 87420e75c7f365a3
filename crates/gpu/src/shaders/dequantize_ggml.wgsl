// GGML block dequantizers (ggml.rs `dequantize_block`), one invocation per weight.
// `params.variant`: 0 = q8_0, 1 = q4_0, 2 = q4_1, 3 = q5_0, 4 = q5_1.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the variant.
// headers: per block the header bytes little-endian (d, then m for q4_1/q5_1), [n / 32][params.stride].
// codes: each block's code bytes back to back, four to a word, [n / 32 × code bytes / 4].
// table: unused by this family (one word).
// y: the weights as f32 bit patterns, [n].

/// Weight j's nibble in a 16-byte area starting at byte `at`: low nibbles are weights 0..16.
fn nibble(at: u32, j: u32) -> u32 {
    let byte = code_byte(at + j % 16u);
    return select(byte & 0xfu, byte >> 4u, j >= 16u);
}

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let b = i / 32u;
    let j = i % 32u;
    let d = f16_to_f32(headers[params.stride * b] & 0xffffu);
    let m = f16_to_f32(headers[params.stride * b] >> 16u);
    var v = 0u;
    switch params.variant {
        case 0u: {
            v = f_mul(from_int(as_i8(code_byte(b * 32u + j))), d);
        }
        case 1u: {
            v = f_mul(from_int(i32(nibble(b * 16u, j)) - 8), d);
        }
        case 2u: {
            v = f_add(f_mul(from_int(i32(nibble(b * 16u, j))), d), m);
        }
        default: {
            let qh = codes[b * 5u];
            let q = nibble(b * 20u + 4u, j) | (((qh >> j) & 1u) << 4u);
            if (params.variant == 3u) {
                v = f_mul(from_int(i32(q) - 16), d);
            } else {
                v = f_add(f_mul(from_int(i32(q)), d), m);
            }
        }
    }
    return v;
}
