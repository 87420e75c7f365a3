// The `weight(i)` of the NVFP4 and MXFP4 dequantizers, appended by shaders.rs after the family's
// file, around its `stored_weight(i)` (the value the bytes hold): with RHT on, the inverse
// transform of weight i's group of 16 (fp4_options.wgsl), as fp4_options.rs `dequantize` does.

/// Weight i's f32 bits (called by the shared `dequantize` entry point, entry_dequantize.wgsl).
fn weight(i: u32) -> u32 {
    if (!rht_on()) {
        return stored_weight(i);
    }
    let start = i - i % HADAMARD;
    var v: array<u32, HADAMARD>;
    for (var k = 0u; k < HADAMARD; k = k + 1u) {
        v[k] = stored_weight(start + k);
    }
    var w = rht_inverse(v);
    return w[i % HADAMARD];
}
