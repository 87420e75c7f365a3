//! OCP Microscaling (MX) formats MXFP8 (E4M3, E5M2) and MXFP6 (E3M2, E2M3), per the OCP
//! Microscaling Formats (MX) Specification v1.0 (September 2023): blocks of 32 elements sharing
//! one E8M0 scale, built on the math crate's one minifloat codec ([`crate::format`]). MXFP4 is in
//! [`super::ggml`] (byte-compatible with llama.cpp).
//!
//! # What the spec fixes (cited by section of MX v1.0)
//!
//! - **Block** (§5, table 1 "concrete MX-compliant formats"): k = 32 elements and one shared
//!   8-bit scale X; element i's value is `X × P_i`.
//! - **Scale E8M0** (§5.4.1 "E8M0"): an unsigned exponent, bias 127, values 2^-127 … 2^127; no
//!   zero, no infinity; 0xFF is NaN. See [`e8m0_value`].
//! - **Special values** (the spec's special-value rules for a block): if X is NaN, every value
//!   of the block is NaN whatever the elements hold.
//! - **Elements** (§5.3.1 FP8, §5.3.2 FP6): FP8 E4M3 (bias 7, max ±448, NaN S.1111.111, no infinity), FP8
//!   E5M2 (bias 15, max ±57344, IEEE infinities and NaNs), FP6 E3M2 (bias 3, max ±28) and FP6
//!   E2M3 (bias 1, max ±7.5), the last two without infinity or NaN; the constants live once in
//!   [`crate::format::catalog`].
//! - **Conversion** (§6.3, "conversion from vectors of scalar floats to MX"): the shared exponent
//!   is `floor(log2(max|V_i|)) − emax_elem`, where `emax_elem` is the exponent of the element
//!   format's largest normal (8, 15, 4, 2 here), and `P_i = quantize_to_element_format(V_i / X)`
//!   rounding to nearest, ties to even, with normal values beyond the element's range clamped to
//!   its largest magnitude (saturation).
//!
//! # What bitbudget chooses where the spec leaves it open
//!
//! - The exponent is clamped to E8M0's range [-127, 127] (as the OCP reference library,
//!   microsoft/microxcaling, does for small blocks). For finite f32 input it never exceeds 127.
//! - An all-zero block gets scale byte 0x00 (2^-127) and zero elements (signs kept).
//! - A block holding a NaN or ±infinity gets the NaN scale 0xFF and zero elements: its values all
//!   read back as NaN (the NaN-scale rule above). The scale of an infinite amax is not representable, so NaN is the
//!   only honest answer; no value of such a block survives.
//! - Byte layout of one block: the scale byte @0, then the elements. MXFP8: one byte per element
//!   (element i @1+i). MXFP6 (the spec does not fix a memory layout): elements packed
//!   little-endian, element i in bits `6i .. 6i+6` of the 24-byte bit string @1 (four elements
//!   per three bytes). So MXFP8 blocks are 33 bytes (8.25 bits per value), MXFP6 blocks 25 bytes
//!   (6.25 bits per value).
//! - Dequantized values are `P_i × X` rounded once to f32 (nearest even): exact except where
//!   the product leaves f32's range (E5M2 elements with scales near 2^127 overflow to ±infinity;
//!   tiny products become f32 subnormals).

use super::bit_string::{bit_string_codes, pack_bit_string};
use super::kernels::absmax;
use super::kquants::LengthError;
use crate::format::catalog::{FP6_E2M3, FP6_E3M2, FP8_E4M3, FP8_E5M2};
use crate::format::fp8::{self, Fp8Codec};
use crate::format::minifloat::pow2;
use crate::format::Minifloat;

/// Elements per MX block (MX v1.0 §5: k = 32 for every concrete format).
pub const MX_BLOCK: usize = 32;

/// The E8M0 NaN pattern (MX v1.0 §5.4.1).
pub const E8M0_NAN: u8 = 0xFF;

/// E8M0 exponent bias (MX v1.0 §5.4.1).
pub const E8M0_BIAS: i32 = 127;

/// The MX formats with FP8 and FP6 elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MxFormat {
    /// MXFP8 with E4M3 elements.
    Fp8E4M3,
    /// MXFP8 with E5M2 elements.
    Fp8E5M2,
    /// MXFP6 with E3M2 elements.
    Fp6E3M2,
    /// MXFP6 with E2M3 elements.
    Fp6E2M3,
}

impl MxFormat {
    /// Every format here.
    pub const ALL: [MxFormat; 4] = [
        MxFormat::Fp8E4M3,
        MxFormat::Fp8E5M2,
        MxFormat::Fp6E3M2,
        MxFormat::Fp6E2M3,
    ];

    /// The element format.
    pub const fn element(self) -> Minifloat {
        match self {
            MxFormat::Fp8E4M3 => FP8_E4M3,
            MxFormat::Fp8E5M2 => FP8_E5M2,
            MxFormat::Fp6E3M2 => FP6_E3M2,
            MxFormat::Fp6E2M3 => FP6_E2M3,
        }
    }

    /// Lower-case name, e.g. `mxfp8-e4m3` (the scheme's name in the CLI, the URL and the lab).
    pub const fn name(self) -> &'static str {
        match self {
            MxFormat::Fp8E4M3 => "mxfp8-e4m3",
            MxFormat::Fp8E5M2 => "mxfp8-e5m2",
            MxFormat::Fp6E3M2 => "mxfp6-e3m2",
            MxFormat::Fp6E2M3 => "mxfp6-e2m3",
        }
    }

    /// Bits per element (8 or 6).
    pub const fn element_bits(self) -> usize {
        self.element().total_bits() as usize
    }

    /// Bytes per block: the scale byte and 32 packed elements.
    pub const fn block_bytes(self) -> usize {
        1 + MX_BLOCK * self.element_bits() / 8
    }

    /// `emax_elem` of MX v1.0 §6.3: the exponent of the element format's largest normal.
    pub const fn emax(self) -> i32 {
        self.element().emax()
    }
}

/// The value of an E8M0 scale byte: 2^(b − 127), NaN for 0xFF (MX v1.0 §5.4.1). 2^-127 is an
/// f32 subnormal, still exact.
pub fn e8m0_value(b: u8) -> f32 {
    if b == E8M0_NAN {
        f32::NAN
    } else {
        pow2(b as i32 - E8M0_BIAS) as f32
    }
}

/// `floor(log2(a))` of a positive finite f32, exactly (subnormals included).
fn floor_log2(a: f32) -> i32 {
    let bits = a.to_bits();
    let field = (bits >> 23) as i32;
    if field > 0 {
        field - 127
    } else {
        (31 - (bits & 0x007F_FFFF).leading_zeros() as i32) - 149
    }
}

/// The shared scale byte for a block whose largest magnitude is `amax` (MX v1.0 §6.3):
/// `floor(log2(amax)) − emax_elem + 127`, clamped to 0..=254; 0 for `amax == 0`; the NaN byte
/// 0xFF for NaN or infinite `amax`.
pub fn shared_scale(format: MxFormat, amax: f32) -> u8 {
    if !amax.is_finite() {
        return E8M0_NAN;
    }
    if amax == 0.0 {
        return 0;
    }
    let e = floor_log2(amax.abs()) - format.emax();
    (e.clamp(-E8M0_BIAS, E8M0_BIAS) + E8M0_BIAS) as u8
}

/// Quantizes one block of 32 values into `out` (`format.block_bytes()` long, else nothing is
/// written and an error says so). Elements are `x / X` rounded to nearest even with saturation;
/// see the module docs for zero and non-finite blocks.
pub fn quantize_block(
    format: MxFormat,
    x: &[f32; MX_BLOCK],
    out: &mut [u8],
) -> Result<(), LengthError> {
    check(format, MX_BLOCK, out.len())?;
    // Any NaN makes the amax NaN (`absmax` skips NaN, so it is looked for first).
    let amax = if x.iter().any(|v| v.is_nan()) {
        f32::NAN
    } else {
        absmax(x)
    };
    let scale = shared_scale(format, amax);
    out[0] = scale;
    let mut codes = [0u32; MX_BLOCK];
    if scale != E8M0_NAN {
        let factor = pow2(E8M0_BIAS - scale as i32) as f32;
        let codec = codec(format);
        for (c, &v) in codes.iter_mut().zip(x) {
            *c = codec.encode_saturating(v * factor) as u32;
        }
    }
    pack(format, &codes, &mut out[1..]);
    Ok(())
}

/// The element format's fast codec. `v · 2^-e` in f32 is exact wherever it matters: the
/// block's scale keeps it below 2^(emax+1), and only values far below the smallest element
/// subnormal (2^-16 for E5M2, larger for the others) can become inexact f32 subnormals, which
/// round to ±0 either way. `encode_saturating` rounds to nearest even and saturates like
/// `Minifloat::encode(…, Overflow::Saturate)` (checked in the tests below and in
/// `format::fp8`'s).
fn codec(format: MxFormat) -> &'static Fp8Codec {
    match format {
        MxFormat::Fp8E4M3 => fp8::e4m3(),
        MxFormat::Fp8E5M2 => fp8::e5m2(),
        MxFormat::Fp6E3M2 => fp8::e3m2(),
        MxFormat::Fp6E2M3 => fp8::e2m3(),
    }
}

/// Packs the elements little-endian, `element_bits` each (one byte each for MXFP8).
fn pack(format: MxFormat, codes: &[u32; MX_BLOCK], out: &mut [u8]) {
    pack_bit_string(codes, format.element_bits() as u32, out);
}

/// Dequantizes one block (`format.block_bytes()` long) into 32 values: `P_i × X` rounded once
/// to f32, or NaN throughout when X is the NaN byte. A wrong length writes nothing and errs.
pub fn dequantize_block(
    format: MxFormat,
    b: &[u8],
    y: &mut [f32; MX_BLOCK],
) -> Result<(), LengthError> {
    check(format, MX_BLOCK, b.len())?;
    if b[0] == E8M0_NAN {
        y.fill(f32::NAN);
        return Ok(());
    }
    // An element times 2^k is exact in f64, so one f32 multiplication (by 2^k as an f32, exact
    // down to the subnormal 2^-127) rounds it exactly as the f64 product rounded to f32 would.
    let scale = pow2(b[0] as i32 - E8M0_BIAS) as f32;
    let codec = codec(format);
    let mut codes = [0u8; MX_BLOCK];
    bit_string_codes(&b[1..], format.element_bits() as u32, &mut codes);
    for (v, c) in y.iter_mut().zip(codes) {
        *v = codec.decode(c) * scale;
    }
    Ok(())
}

fn check(format: MxFormat, values: usize, bytes: usize) -> Result<(), LengthError> {
    if values % MX_BLOCK != 0 {
        return Err(LengthError::Values {
            scheme: format.name(),
            values,
            block_values: MX_BLOCK,
        });
    }
    let expected = values / MX_BLOCK * format.block_bytes();
    if bytes != expected {
        return Err(LengthError::Bytes {
            scheme: format.name(),
            bytes,
            expected,
        });
    }
    Ok(())
}

/// Quantizes `x` (a multiple of 32 values) into `out` (`x.len() / 32 × block_bytes` bytes).
/// Checks both lengths before writing.
pub fn quantize(format: MxFormat, x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
    check(format, x.len(), out.len())?;
    let size = format.block_bytes();
    for (xs, bytes) in x.chunks_exact(MX_BLOCK).zip(out.chunks_exact_mut(size)) {
        quantize_block(format, xs.try_into().expect("32 values"), bytes)?;
    }
    Ok(())
}

/// Dequantizes whole blocks into `out` (32 values per block). Checks both lengths first.
pub fn dequantize(format: MxFormat, blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
    check(format, out.len(), blocks.len())?;
    let size = format.block_bytes();
    for (bytes, ys) in blocks
        .chunks_exact(size)
        .zip(out.chunks_exact_mut(MX_BLOCK))
    {
        dequantize_block(format, bytes, ys.try_into().expect("32 values"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Overflow;

    #[test]
    fn the_element_fast_path_equals_the_exact_encoder_at_every_scale() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for format in MxFormat::ALL {
            let codec = codec(format);
            for scale in 0..=254u8 {
                let inverse = pow2(E8M0_BIAS - scale as i32);
                // Values whose block could have this scale: at most 2^(emax + 1) once scaled.
                let top = pow2(scale as i32 - E8M0_BIAS + format.emax() + 1);
                // Every midpoint between neighbouring elements (the ties), both signs.
                let e = format.element();
                for p in 0..e.max_bits() {
                    let mid = (e.to_f64(p) + e.to_f64(p + 1)) / 2.0;
                    for m in [mid, -mid] {
                        let v = (m / inverse) as f32;
                        if (v as f64) * inverse == m {
                            let exact = e.encode(m, Overflow::Saturate);
                            let fast = codec.encode_saturating(v * inverse as f32) as u32;
                            assert_eq!(fast, exact, "{format:?} scale {scale} tie {m:e}");
                        }
                    }
                }
                for _ in 0..400 {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let bits = state as u32;
                    let v = f32::from_bits(bits);
                    if !v.is_finite() || (v.abs() as f64) >= top {
                        continue;
                    }
                    let exact = format
                        .element()
                        .encode(v as f64 * inverse, Overflow::Saturate);
                    let fast = codec.encode_saturating(v * inverse as f32) as u32;
                    assert_eq!(fast, exact, "{format:?} scale {scale} v {v:e}");
                }
            }
        }
    }

    #[test]
    fn dequantizing_equals_the_element_times_the_scale_rounded_once_for_every_scale_and_pattern() {
        for format in MxFormat::ALL {
            let element = format.element();
            let patterns = 1u32 << format.element_bits();
            for scale in 0..=254u8 {
                for first in (0..patterns).step_by(MX_BLOCK) {
                    let mut codes = [0u32; MX_BLOCK];
                    for (j, c) in codes.iter_mut().enumerate() {
                        *c = (first + j as u32) % patterns;
                    }
                    let mut block = vec![0u8; format.block_bytes()];
                    block[0] = scale;
                    pack(format, &codes, &mut block[1..]);
                    let mut y = [0f32; MX_BLOCK];
                    dequantize_block(format, &block, &mut y).unwrap();
                    for (c, v) in codes.iter().zip(y) {
                        let exact = (element.to_f64(*c) * pow2(scale as i32 - E8M0_BIAS)) as f32;
                        assert!(
                            v.to_bits() == exact.to_bits() || (v.is_nan() && exact.is_nan()),
                            "{format:?} scale {scale} pattern {c:#x}: {v:e} against {exact:e}"
                        );
                    }
                }
            }
        }
    }
}
