// The shared part of the kernels that quantize one whole llama.cpp block per invocation
// (quantize_kquant.wgsl, quantize_iq4_nl.wgsl), appended by shaders.rs after the kernel's file,
// which defines `quantize_block(b)` (quantizes block b into its private variables),
// `block_byte(p)` (byte p of the block just quantized) and `block_bytes()` (its stored size).
//
// A block's bytes (e.g. 210 for Q6_K, 18 for IQ4_NL) need not start or end on a word. `measure`
// (once per block) writes the words wholly inside the block straight to `codes`; the block's
// first bytes that share a word with the previous block, and its last bytes that share one with
// the next, come back as the block's `blocks` words 0 and 1, each at its place in that word
// (other bytes zero). `quantize` then runs once per code word: a word inside one block is left as
// `measure` wrote it, a shared word is the two parts joined.
//
// Bindings (quantize_bindings.wgsl), for these kernels:
// params: count (blocks for `measure`, code words for `quantize`), n (weights), block (weights
// per block), variant.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused (one word).
// blocks: per block [shared first bytes, shared last bytes, 0, 0], [n / block][4].
// codes: the stored blocks back to back, four bytes to a word little-endian,
// [ceil(n / block × block bytes / 4)].

/// 1e-15f32 (llama.cpp's `GROUP_MAX_EPS`, IQ4_NL's 1e-15): a (sub-)block below this largest
/// magnitude is all zero.
const GROUP_MAX_EPS: u32 = 0x26901d7du;

/// `ggml_f16`: `f16_bits`, and a NaN keeps its sign.
fn ggml_f16(v: u32) -> u32 {
    var h = f16_bits(v);
    if (is_nan(v)) {
        h = h | ((v >> 16u) & 0x8000u);
    }
    return h;
}

/// `|v| > amax` for a non-NaN, non-negative `amax` (f32's `abs` then `>`: a NaN `v` never wins).
fn abs_above(v: u32, amax: u32) -> bool {
    let a = v & ABS;
    return a <= INF && a > amax;
}

/// The weight of largest magnitude among the `n` from `base` (the first on ties; NaN never wins)
/// and that magnitude (`signed_absmax`).
fn signed_absmax(base: u32, n: u32) -> vec2<u32> {
    var vmax = 0u;
    var amax = 0u;
    for (var i = 0u; i < n; i = i + 1u) {
        let v = x[base + i];
        if (abs_above(v, amax)) {
            amax = v & ABS;
            vmax = v;
        }
    }
    return vec2<u32>(vmax, amax);
}

/// Quantizes block b (called by the shared `measure` entry point): writes its inner words to
/// `codes` and returns the parts of the words it shares with its neighbours.
fn block_words(b: u32) -> vec4<u32> {
    quantize_block(b);
    let size = block_bytes();
    let first = b * size;
    let last = first + size - 1u;
    var shared_first = 0u;
    var shared_last = 0u;
    for (var w = first / 4u; w <= last / 4u; w = w + 1u) {
        var word = 0u;
        for (var k = 0u; k < 4u; k = k + 1u) {
            let p = 4u * w + k;
            if (p >= first && p <= last) {
                word = word | (block_byte(p - first) << (8u * k));
            }
        }
        if (4u * w < first) {
            shared_first = word;
        } else if (4u * w + 3u > last) {
            shared_last = word;
        } else if (w < arrayLength(&codes)) {
            codes[w] = word;
        }
    }
    return vec4<u32>(shared_first, shared_last, 0u, 0u);
}

/// Code word w (called by the shared `quantize` entry point): as `measure` left it inside a
/// block, else the shared parts of the two blocks it spans (the last block's alone at the end).
fn code_word(w: u32) -> u32 {
    let size = block_bytes();
    let b = (4u * w) / size;
    if ((4u * w + 3u) / size == b) {
        return codes[w];
    }
    var word = blocks[4u * b + 1u];
    if (b + 1u < params.n / params.block) {
        word = word | blocks[4u * (b + 1u)];
    }
    return word;
}
