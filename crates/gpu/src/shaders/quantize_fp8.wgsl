// FP8 with one per-tensor scale (scheme.rs `fp8_scale`, `fp8_encode`; fp8.rs
// `encode_saturating`). `measure` runs once per weight and keeps the largest finite |x| in
// blocks[0] (the host turns it into the scale); `quantize` runs once per code word.
// `params.consts`: (mantissa bits, f32 exponent field of the smallest normal FP8 value, largest
// finite pattern, NaN pattern), derived from the CPU codec by the host.

// Dispatch sizes; `scalar` is the per-tensor scale (quantize only).
@group(0) @binding(0) var<uniform> params: Params;
// x: the chunk's weights as f32 bit patterns, [n].
@group(0) @binding(1) var<storage, read> x: array<u32>;
// table: unused by this kernel (one word).
@group(0) @binding(2) var<storage, read> table: array<u32>;
// blocks: [0] the largest finite |x| so far (f32 bits, which order as the values do), [4].
@group(0) @binding(3) var<storage, read_write> blocks: array<atomic<u32>>;
// codes: one FP8 byte per weight, four to a word, [n / 4 rounded up].
@group(0) @binding(4) var<storage, read_write> codes: array<u32>;

@compute @workgroup_size(64)
fn measure(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&x)) {
        return;
    }
    let a = x[i] & ABS;
    if (a < INF) {
        atomicMax(&blocks[0], a);
    }
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    let scale = params.scalar;
    var word = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let i = 4u * w + k;
        if (i < params.n) {
            var y = 0u;
            if (!is_zero(scale)) {
                y = f_div(x[i], scale);
            }
            word = word | (minifloat_saturating(y, params.consts) << (8u * k));
        }
    }
    return word;
}
