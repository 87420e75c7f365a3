// 16-bit casts back to f32: `params.variant` 0 = bf16, 1 = f16 (exact; one invocation per
// weight).

// Dispatch sizes and the format.
@group(0) @binding(0) var<uniform> params: Params;
// headers: unused (one word).
@group(0) @binding(1) var<storage, read> headers: array<u32>;
// codes: weight 2w in the low half of word w, weight 2w + 1 in the high half.
@group(0) @binding(2) var<storage, read> codes: array<u32>;
// table: unused by this kernel (one word).
@group(0) @binding(3) var<storage, read> table: array<u32>;
// y: the weights as f32 bit patterns, [n].
@group(0) @binding(4) var<storage, read_write> y: array<u32>;

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let h = (codes[i / 2u] >> (16u * (i % 2u))) & 0xffffu;
    if (params.variant == 0u) {
        y[i] = h << 16u;
    } else {
        y[i] = f16_to_f32(h);
    }
}
