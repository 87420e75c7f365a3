// The bindings of every dequantize kernel, prepended by shaders.rs after common.wgsl (layout.rs
// builds the matching layout). What each buffer holds for one kernel is said at the top of its file.

// params: the dispatch sizes and the kernel's parameters.
@group(0) @binding(0) var<uniform> params: Params;
// headers: per-block header words, or one unused word.
@group(0) @binding(1) var<storage, read> headers: array<u32>;
// codes: the packed codes, four bytes to a word.
@group(0) @binding(2) var<storage, read> codes: array<u32>;
// table: f32 bit patterns the kernel looks codes up in, or one unused word.
@group(0) @binding(3) var<storage, read> table: array<u32>;
// y: the weights as f32 bit patterns, [n].
@group(0) @binding(4) var<storage, read_write> y: array<u32>;
