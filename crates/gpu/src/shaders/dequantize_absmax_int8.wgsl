// Absmax INT8 dequantizer (absmax.rs): code × scale, one invocation per weight.

// Dispatch sizes and the block.
@group(0) @binding(0) var<uniform> params: Params;
// headers: per block the f32 scale, [n / block][2].
@group(0) @binding(1) var<storage, read> headers: array<u32>;
// codes: one int8 per weight, four to a word.
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
    let q = (i32(codes[i / 4u] >> (8u * (i % 4u))) << 24u) >> 24u;
    y[i] = f_mul(from_int(q), headers[2u * (i / params.block)]);
}
