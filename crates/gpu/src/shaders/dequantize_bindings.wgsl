// The bindings of every dequantize kernel, prepended by shaders.rs after common.wgsl (layout.rs
// builds the matching layout). What each buffer holds for one kernel is said at the top of its file.

// params: the dispatch sizes and the kernel's parameters.
@group(0) @binding(0) var<uniform> params: Params;
// headers: per-block header words, `params.stride` words a block, or one unused word.
@group(0) @binding(1) var<storage, read> headers: array<u32>;
// codes: the packed codes, four bytes to a word.
@group(0) @binding(2) var<storage, read> codes: array<u32>;
// table: f32 bit patterns the kernel looks codes up in, or one unused word.
@group(0) @binding(3) var<storage, read> table: array<u32>;
// y: the weights as f32 bit patterns, [n].
@group(0) @binding(4) var<storage, read_write> y: array<u32>;

/// Byte k of the codes (four to a word, little-endian).
fn code_byte(k: u32) -> u32 {
    return (codes[k / 4u] >> (8u * (k % 4u))) & 0xffu;
}

/// Weight i's 4-bit code when byte i / 2 holds weight i (even i) in its low nibble and weight
/// i + 1 in its high nibble.
fn code_nibble(i: u32) -> u32 {
    let byte = code_byte(i / 2u);
    return select(byte & 0xfu, byte >> 4u, i % 2u == 1u);
}

/// An 8-bit two's complement code as a signed integer.
fn as_i8(byte: u32) -> i32 {
    return (i32(byte) << 24u) >> 24u;
}
