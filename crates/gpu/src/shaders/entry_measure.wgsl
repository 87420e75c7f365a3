// The `measure` entry point of the block quantize kernels (all but the FP8 and 16-bit casts),
// appended by shaders.rs after the kernel's file: one invocation per block, whose four result
// words the kernel's `block_words(b)` gives.

@compute @workgroup_size(64)
fn measure(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let b = flat_index(gid, groups);
    if (b < params.count && b < arrayLength(&blocks) / 4u) {
        let words = block_words(b);
        for (var k = 0u; k < 4u; k = k + 1u) {
            blocks[4u * b + k] = words[k];
        }
    }
}
