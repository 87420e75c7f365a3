// K-quant dequantizers (kquants.rs and q2_k.rs … q6_k.rs `dequantize_block`, as llama.cpp's
// `dequantize_row_q*_K`), one invocation per weight, with the CPU's f32 operations in its order
// (correctly rounded on bit patterns, common.wgsl). `params.variant`: 0 = q2_k, 1 = q3_k,
// 2 = q4_k, 3 = q5_k, 4 = q6_k.

// Bindings (dequantize_bindings.wgsl), for this kernel:
// params: dispatch sizes and the variant.
// headers: unused (each super-block's scales travel with its codes; one word per block pair).
// codes: the stored super-blocks back to back (84, 110, 144, 176 or 210 bytes each), four bytes
//   to a word, [n / 256 × block bytes / 4].
// table: unused by this family (one word).
// y: the weights as f32 bit patterns, [n].

/// Bytes of one stored super-block of each variant.
fn kquant_block_bytes(variant: u32) -> u32 {
    switch variant {
        case 0u: { return Q2_K_BYTES; }
        case 1u: { return Q3_K_BYTES; }
        case 2u: { return Q4_K_BYTES; }
        case 3u: { return Q5_K_BYTES; }
        default: { return Q6_K_BYTES; }
    }
}

/// The FP16 at bytes `at`, `at + 1` (little-endian), as f32 bits.
fn f16_at(at: u32) -> u32 {
    return f16_to_f32(code_byte(at) | (code_byte(at + 1u) << 8u));
}

/// Q4_K/Q5_K: the 6-bit scale (x) and min (y) of sub-block `s` from the 12 bytes at `at`
/// (kquants.rs `scale_min_k4`).
fn scale_min_k4(at: u32, s: u32) -> vec2<u32> {
    if (s < 4u) {
        return vec2<u32>(code_byte(at + s) & 63u, code_byte(at + s + 4u) & 63u);
    }
    let packed = code_byte(at + s + 4u);
    return vec2<u32>(
        (packed & 0xfu) | ((code_byte(at + s - 4u) >> 6u) << 4u),
        (packed >> 4u) | ((code_byte(at + s) >> 6u) << 4u),
    );
}

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    let base = (i / QK_K) * kquant_block_bytes(params.variant);
    let j = i % 256u;
    let h = j / 128u;
    let k = (j % 128u) / 32u;
    let l = j % 32u;
    switch params.variant {
        case 0u: {
            let sc = code_byte(base + j / 16u);
            let dl = f_mul(f16_at(base + 80u), from_int(i32(sc & 0xfu)));
            let ml = f_mul(f16_at(base + 82u), from_int(i32(sc >> 4u)));
            let q = (code_byte(base + 16u + 32u * h + l) >> (2u * k)) & 3u;
            return f_sub(f_mul(dl, from_int(i32(q))), ml);
        }
        case 1u: {
            let s = j / 16u;
            // Scales 0..8 are the low nibbles of bytes 96..104, scales 8..16 their high nibbles.
            let low_scale = (code_byte(base + 96u + s % 8u) >> select(0u, 4u, s >= 8u)) & 0xfu;
            let high_scale = (code_byte(base + 104u + s % 4u) >> (2u * (s / 4u))) & 3u;
            let sc = i32(low_scale | (high_scale << 4u)) - 32;
            let dl = f_mul(f16_at(base + 108u), from_int(sc));
            let low = i32((code_byte(base + 32u + 32u * h + l) >> (2u * k)) & 3u);
            let high = (code_byte(base + j % 32u) >> (j / 32u)) & 1u;
            return f_mul(dl, from_int(low - select(4, 0, high == 1u)));
        }
        case 2u, 3u: {
            let c = j / 64u;
            let upper = (j % 64u) >= 32u;
            let ll = j % 32u;
            let sm = scale_min_k4(base + 4u, 2u * c + select(0u, 1u, upper));
            let d1 = f_mul(f16_at(base), from_int(i32(sm.x)));
            let m1 = f_mul(f16_at(base + 2u), from_int(i32(sm.y)));
            let qs = select(16u, 48u, params.variant == 3u);
            let byte = code_byte(base + qs + 32u * c + ll);
            var q = select(byte & 0xfu, byte >> 4u, upper);
            if (params.variant == 3u) {
                let bit = 2u * c + select(0u, 1u, upper);
                q = q + ((code_byte(base + 16u + ll) >> bit) & 1u) * 16u;
            }
            return f_sub(f_mul(d1, from_int(i32(q))), m1);
        }
        default: {
            let low = (code_byte(base + 64u * h + 32u * (k % 2u) + l) >> (4u * (k / 2u))) & 0xfu;
            let high = (code_byte(base + 128u + 32u * h + l) >> (2u * k)) & 3u;
            let q = i32(low | (high << 4u)) - 32;
            let sc = as_i8(code_byte(base + 192u + j / 16u));
            return f_mul(f_mul(f16_at(base + 208u), from_int(sc)), from_int(q));
        }
    }
}
