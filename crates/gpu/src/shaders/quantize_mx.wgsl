// OCP MX quantizer for MXFP8 (E4M3, E5M2) and MXFP6 (E3M2, E2M3) (mx.rs `quantize_block`): 32
// weights per block share an E8M0 scale X = 2^(floor(log2(amax)) − emax_elem), clamped to
// E8M0's range; each element is x / X rounded to nearest even with saturation. A block holding
// NaN or ±∞ gets X = 0xFF (NaN) and zero elements. `measure` runs once per block, `quantize`
// once per code word. `params.variant`: the element width in bits (8 or 6).
// `params.consts`: (mantissa bits, f32 exponent field of the smallest normal element, largest
// finite element pattern, `emax_elem`): where `minifloat_saturating` reads a NaN pattern, MX
// keeps its emax, since no NaN ever reaches an element (such blocks store zero elements).

// Bindings (quantize_bindings.wgsl), for this kernel:
// params: dispatch sizes, element width and format facts.
// x: the chunk's weights as f32 bit patterns, [n].
// table: unused by this kernel (one word).
// blocks: per block [X, 0, 0, 0], [n / 32][4].
// codes: the elements, 32 (MXFP8) or 24 (MXFP6, a little-endian 6-bit string) bytes per block
//   back to back, [n / 32 × bytes / 4].

/// Block b's four result words (called by the shared `measure` entry point, entry_measure.wgsl):
/// the scale byte X first.
fn block_words(b: u32) -> vec4<u32> {
    var amax = 0u;
    var finite = true;
    for (var j = 0u; j < 32u; j = j + 1u) {
        let a = x[32u * b + j] & ABS;
        finite = finite && a < INF;
        amax = max(amax, a);
    }
    if (!finite) {
        return vec4<u32>(0xffu, 0u, 0u, 0u);
    }
    if (amax == 0u) {
        return vec4<u32>(0u, 0u, 0u, 0u);
    }
    // floor(log2(amax)), exactly (subnormals by their leading one).
    let field = i32(amax >> 23u);
    let floor_log2 = select(31 - i32(countLeadingZeros(amax)) - 149, field - 127, field > 0);
    let e = clamp(floor_log2 - i32(params.consts.w), -127, 127);
    return vec4<u32>(u32(e + 127), 0u, 0u, 0u);
}

/// Element i of block b: x · 2^(127 − X), exact in f32 wherever it can round to a nonzero
/// element (only values far below the smallest element subnormal become f32 subnormals), then
/// encoded with saturation.
fn element(b: u32, j: u32, scale: u32) -> u32 {
    if (scale == 0xffu) {
        return 0u;
    }
    // 2^(127 − X) as f32 bits: the subnormal 2^-127 for X = 254.
    let factor = select(0x00400000u, (254u - scale) << 23u, scale < 254u);
    let code = minifloat_saturating(f_mul(x[32u * b + j], factor), params.consts);
    // minifloat_saturating puts the sign at bit 7; MXFP6 keeps it at bit 5.
    return select(code, ((code >> 2u) & 0x20u) | (code & 0x1fu), params.variant == 6u);
}

/// Code word w (called by the shared `quantize` entry point, entry_quantize.wgsl).
fn code_word(w: u32) -> u32 {
    let bits = params.variant;
    let per_block = bits; // 32 elements × bits / 32 bits a word
    let b = w / per_block;
    let ww = w % per_block;
    let scale = blocks[4u * b];
    var word = 0u;
    // The elements whose bits fall in bits 32·ww … 32·ww + 31 of the block's string.
    let first = (32u * ww) / bits;
    let last = (32u * ww + 31u) / bits;
    for (var j = first; j <= last; j = j + 1u) {
        let offset = i32(bits * j) - i32(32u * ww);
        let code = element(b, j, scale);
        if (offset >= 0) {
            word = word | (code << u32(offset));
        } else {
            word = word | (code >> u32(-offset));
        }
    }
    return word;
}
