// The bindings of every quantize kernel but FP8 (whose `blocks` is atomic), prepended by
// shaders.rs after common.wgsl (layout.rs builds the matching layout). What each buffer holds for
// one kernel is said at the top of its file.

// params: the dispatch sizes and the kernel's parameters.
@group(0) @binding(0) var<uniform> params: Params;
// x: the chunk's weights as f32 bit patterns, [n].
@group(0) @binding(1) var<storage, read> x: array<u32>;
// table: f32 bit patterns the kernel looks values up in, or one unused word.
@group(0) @binding(2) var<storage, read> table: array<u32>;
// blocks: per-block results, four words a block, or one unused word.
@group(0) @binding(3) var<storage, read_write> blocks: array<u32>;
// codes: the packed codes, four bytes to a word.
@group(0) @binding(4) var<storage, read_write> codes: array<u32>;

/// The largest |x| over the `len` weights from `start`, as `absmax_step` folds it.
fn absmax_of(start: u32, len: u32) -> u32 {
    var amax = 0u;
    for (var j = 0u; j < len; j = j + 1u) {
        amax = absmax_step(amax, x[start + j]);
    }
    return amax;
}

/// The 16 weights from `start`.
fn weights16(start: u32) -> array<u32, 16> {
    var v: array<u32, 16>;
    for (var k = 0u; k < 16u; k = k + 1u) {
        v[k] = x[start + k];
    }
    return v;
}
