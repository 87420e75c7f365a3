// Test kernel (compiled by the unit tests of arithmetic_check.rs only): common.wgsl's exact f32
// operations on pairs of operands, so a native test can compare them bit for bit with the CPU's
// `+`, `-`, `*`, `/` and `sqrt` on the GPU itself. `params.variant`: 0 = f_div, 1 = f_mul,
// 2 = f_add, 3 = f_sub, 4 = f_sqrt of the first operand.
//
// Bindings (quantize_bindings.wgsl), for this kernel:
// params: count (pairs), variant.
// x: the operands as f32 bit patterns, a0 b0 a1 b1 …, [2 × count].
// table, blocks: unused (one word).
// codes: the results as f32 bit patterns, [count].

/// Result w: the operation on pair w (called by the shared `quantize` entry point).
fn code_word(w: u32) -> u32 {
    let a = x[2u * w];
    let b = x[2u * w + 1u];
    switch params.variant {
        case 0u: {
            return f_div(a, b);
        }
        case 1u: {
            return f_mul(a, b);
        }
        case 2u: {
            return f_add(a, b);
        }
        case 3u: {
            return f_sub(a, b);
        }
        default: {
            return f_sqrt(a);
        }
    }
}
