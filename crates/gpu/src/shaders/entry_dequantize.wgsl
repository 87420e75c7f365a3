// The `dequantize` entry point of every dequantize kernel, appended by shaders.rs after the
// kernel's file: one invocation per weight, whose f32 bits the kernel's `weight(i)` gives.

@compute @workgroup_size(64)
fn dequantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i < params.count && i < arrayLength(&y)) {
        y[i] = weight(i);
    }
}
