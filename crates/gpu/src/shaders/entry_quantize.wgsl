// The `quantize` entry point of every quantize kernel, appended by shaders.rs after the kernel's
// file: one invocation per code word, which the kernel's `code_word(w)` gives.

@compute @workgroup_size(64)
fn quantize(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let w = flat_index(gid, groups);
    if (w < params.count && w < arrayLength(&codes)) {
        codes[w] = code_word(w);
    }
}
