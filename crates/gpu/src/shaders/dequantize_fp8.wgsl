// FP8 dequantizer (scheme.rs): the pattern's value × the per-tensor scale, one invocation per
// weight.

// Dispatch sizes; `scalar` is the per-tensor scale.
@group(0) @binding(0) var<uniform> params: Params;
// headers: unused (the scale travels in params.scalar; one word).
@group(0) @binding(1) var<storage, read> headers: array<u32>;
// codes: one FP8 byte per weight, four to a word.
@group(0) @binding(2) var<storage, read> codes: array<u32>;
// table: the value of every FP8 pattern as f32 bits, from the CPU codec, [256].
@group(0) @binding(3) var<storage, read> table: array<u32>;
// y: the weights as f32 bit patterns, [n].
@group(0) @binding(4) var<storage, read_write> y: array<u32>;

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let b = (codes[i / 4u] >> (8u * (i % 4u))) & 0xffu;
    y[i] = f_mul(table[b], params.scalar);
}
