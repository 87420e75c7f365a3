// NF4 dequantizer (scheme.rs): code value × block absmax, one invocation per weight.

// Dispatch sizes and the block.
@group(0) @binding(0) var<uniform> params: Params;
// headers: per block the f32 absmax, [n / block][2].
@group(0) @binding(1) var<storage, read> headers: array<u32>;
// codes: block/2 bytes per block (weight 2i in the low nibble), four to a word.
@group(0) @binding(2) var<storage, read> codes: array<u32>;
// table: `NF4_CODE` as f32 bits, [16].
@group(0) @binding(3) var<storage, read> table: array<u32>;
// y: the weights as f32 bit patterns, [n].
@group(0) @binding(4) var<storage, read_write> y: array<u32>;

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= params.count || i >= arrayLength(&y)) {
        return;
    }
    let k = i / 2u;
    let byte = (codes[k / 4u] >> (8u * (k % 4u))) & 0xffu;
    let code = select(byte & 0xfu, byte >> 4u, i % 2u == 1u);
    y[i] = f_mul(table[code], headers[2u * (i / params.block)]);
}
