// Plain casts to 16 bits (half.rs): `params.variant` 0 = bf16, 1 = f16, nearest even, two
// little-endian bytes per weight. Only `quantize` (one invocation per word = two weights).

// Dispatch sizes and the format.
@group(0) @binding(0) var<uniform> params: Params;
// x: the chunk's weights as f32 bit patterns, [n].
@group(0) @binding(1) var<storage, read> x: array<u32>;
// table: unused by this kernel (one word).
@group(0) @binding(2) var<storage, read> table: array<u32>;
// blocks: unused by this kernel (one word).
@group(0) @binding(3) var<storage, read_write> blocks: array<u32>;
// codes: weight 2w in the low half of word w, weight 2w + 1 in the high half, [n / 2 rounded up].
@group(0) @binding(4) var<storage, read_write> codes: array<u32>;

fn narrow(v: u32) -> u32 {
    if (params.variant == 0u) {
        return bf16_bits(v);
    }
    return f16_bits(v);
}

@compute @workgroup_size(64)
fn quantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let w = flat_index(gid, groups);
    if (w >= params.count || w >= arrayLength(&codes)) {
        return;
    }
    var word = narrow(x[2u * w]);
    if (2u * w + 1u < params.n) {
        word = word | (narrow(x[2u * w + 1u]) << 16u);
    }
    codes[w] = word;
}
