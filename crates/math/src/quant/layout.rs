//! The byte layout of every scheme, in one place: values per block, where the scale sits and what
//! it is, where the codes start, how wide they are and how they are packed, bytes per block. The
//! quantizers, the dequantizers and the lab's code view all read it, and a GPU host can size its
//! buffers and pack codes into `u32` words from it.
//!
//! GGML blocks follow llama.cpp's `block_q8_0` … `block_mxfp4` (ggml-common.h): for example
//! `block_q5_1 { ggml_half d; ggml_half m; uint8_t qh[4]; uint8_t qs[16]; }` is 24 bytes with the
//! codes (fifth bits first) at byte 4. The K-quants' super-blocks (`block_q2_K` … `block_q6_K`),
//! `block_iq4_nl` and `block_nvfp4` are llama.cpp's too, with the bit positions of each K-quant
//! in [`KType`]. The MX blocks follow [`super::mx`]; the other layouts are bitbudget's own,
//! documented in [`super::scheme`].
//!
//! `nvfp4` and `mxfp4` written with the random Hadamard transform (`--rht SEED`,
//! [`super::fp4_options`]) keep exactly these layouts, but their codes are those of the rotated
//! values (each 16 consecutive values multiplied by seeded signs and a 16-point Hadamard matrix):
//! decoding them back to the original values needs the same seed. Stochastic rounding (`--sr`)
//! only picks other codes within the same layout; nothing is needed to decode it.

use super::bit_string::{bit_string_code, pack_bit_string};
use super::ggml_blocks::{
    BlockMxfp4, BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_0, GgmlType, QK,
};
use super::kquants::{KType, QK_K};
use super::mx::MX_BLOCK;
use super::scheme::Scheme;
use super::{iq4_nl, nvfp4};
use std::mem::offset_of;

/// How a block's scale is stored (all little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleKind {
    /// An IEEE half scale `d` (Q8_0, Q4_0, Q5_0): 2 bytes.
    F16,
    /// An IEEE half scale `d` then an IEEE half minimum `m` (Q4_1, Q5_1): 4 bytes.
    F16AndMin,
    /// An E8M0 exponent (MXFP4 and the MX formats): 1 byte.
    E8M0,
    /// One UE4M3 scale byte per 16 weights (NVFP4): 4 bytes for a 64-weight block.
    Ue4m3PerSixteen,
    /// A K-quant super-block: an FP16 `d` (and `dmin`) at [`Layout::scale_offset`] for the 256
    /// weights, and small integer scales (and mins) per sub-block packed elsewhere in the block
    /// ([`KType::scales_at`]).
    SuperBlock(KType),
    /// An f32 scale or absmax (absmax-int8, nf4): 4 bytes.
    F32,
    /// An f32 scale then a u8 zero point (zero-point schemes): 5 bytes.
    F32AndZeroPoint,
    /// One f32 scale per 128×128 block (fp8-128x128): a band of 128 rows starts with its blocks'
    /// scales, left to right, 4·⌈C/128⌉ bytes for C columns; the band's codes follow.
    F32Band,
    /// One f32 scale for the whole tensor, before the first block (FP8): 4 header bytes.
    TensorF32,
    /// No scale (plain casts to bf16 and f16).
    None,
}

/// How the codes sit in a block's code bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// One byte per code.
    Byte,
    /// Two little-endian bytes per code.
    U16,
    /// GGML nibbles: value j < B/2 in the low nibble of byte j, value j ≥ B/2 in the high nibble
    /// of byte j − B/2.
    SplitNibbles,
    /// Value 2i in the low nibble of byte i, value 2i + 1 in the high nibble (NF4, zeropoint-int4).
    PairedNibbles,
    /// GGML 5-bit: a little-endian u32 whose bit j is the fifth bit of value j, then the low four
    /// bits as [`Packing::SplitNibbles`].
    SplitNibblesHighBits,
    /// [`Packing::SplitNibbles`] within each group of this many values (NVFP4: 16, so group s
    /// takes bytes `8s..8s+8`).
    GroupedSplitNibbles(usize),
    /// A little-endian bit string: code j in bits `j·code_bits ..` (MXFP6: four codes in three
    /// bytes).
    BitString,
    /// A K-quant's bit planes, as [`KType::pack_codes`] places them.
    KQuant(KType),
}

/// Bytes of codes for `values` codes of `bits` bits packed as `packing`.
const fn packed_bytes(packing: Packing, values: usize, bits: u32) -> usize {
    match packing {
        Packing::Byte => values,
        Packing::U16 => 2 * values,
        Packing::SplitNibbles | Packing::PairedNibbles | Packing::GroupedSplitNibbles(_) => {
            values.div_ceil(2)
        }
        Packing::SplitNibblesHighBits => 4 + values / 2,
        Packing::BitString => (values * bits as usize).div_ceil(8),
        Packing::KQuant(t) => t.code_bytes(),
    }
}

/// One scheme's byte layout at one block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Values per block (1 for the per-value formats FP8, bf16 and f16).
    pub values: usize,
    /// Bytes per block, scale included.
    pub block_bytes: usize,
    /// Bytes before the first block (FP8's per-tensor scale; otherwise 0).
    pub header_bytes: usize,
    /// What the scale is.
    pub scale: ScaleKind,
    /// Byte offset of the scale: in the block, or in the header for [`ScaleKind::TensorF32`].
    pub scale_offset: usize,
    /// Byte offset of the codes in a block.
    pub code_offset: usize,
    /// Bits of one code.
    pub code_bits: u32,
    /// How the codes are packed.
    pub packing: Packing,
    /// Whether a code is a two's-complement signed number (Q8_0, absmax-int8) rather than an
    /// unsigned one or an index.
    pub signed: bool,
}

impl Layout {
    /// The layout of `scheme` with blocks of `block` values (ignored by the GGML formats, which
    /// always hold 32, and by the per-value formats). `block` should have passed
    /// [`Scheme::block`]; 0 is taken as 1.
    pub const fn of(scheme: Scheme, block: usize) -> Layout {
        let b = if block == 0 { 1 } else { block };
        let (values, scale, code_offset, code_bits, packing) = match scheme {
            Scheme::Ggml(t) => {
                // The code offsets come from llama.cpp's structs, mirrored in `ggml`.
                let (scale, at, bits, packing) = match t {
                    GgmlType::Q8_0 => (ScaleKind::F16, offset_of!(BlockQ8_0, qs), 8, Packing::Byte),
                    GgmlType::Q4_0 => (
                        ScaleKind::F16,
                        offset_of!(BlockQ4_0, qs),
                        4,
                        Packing::SplitNibbles,
                    ),
                    GgmlType::Q4_1 => (
                        ScaleKind::F16AndMin,
                        offset_of!(BlockQ4_1, qs),
                        4,
                        Packing::SplitNibbles,
                    ),
                    GgmlType::Q5_0 => (
                        ScaleKind::F16,
                        offset_of!(BlockQ5_0, qh),
                        5,
                        Packing::SplitNibblesHighBits,
                    ),
                    GgmlType::Q5_1 => (
                        ScaleKind::F16AndMin,
                        offset_of!(BlockQ5_1, qh),
                        5,
                        Packing::SplitNibblesHighBits,
                    ),
                    GgmlType::Mxfp4 => (
                        ScaleKind::E8M0,
                        offset_of!(BlockMxfp4, qs),
                        4,
                        Packing::SplitNibbles,
                    ),
                };
                (QK, scale, at, bits, packing)
            }
            Scheme::KQuant(t) => (
                QK_K,
                ScaleKind::SuperBlock(t),
                t.code_offset(),
                t.code_bits(),
                Packing::KQuant(t),
            ),
            Scheme::Iq4Nl => (
                iq4_nl::QK4_NL,
                ScaleKind::F16,
                offset_of!(iq4_nl::BlockIq4Nl, qs),
                4,
                Packing::SplitNibbles,
            ),
            Scheme::Nvfp4 => (
                nvfp4::QK_NVFP4,
                ScaleKind::Ue4m3PerSixteen,
                offset_of!(nvfp4::BlockNvfp4, qs),
                4,
                Packing::GroupedSplitNibbles(nvfp4::QK_NVFP4_SUB),
            ),
            Scheme::Mx(f) => {
                let bits = f.element_bits() as u32;
                let packing = if bits == 8 {
                    Packing::Byte
                } else {
                    Packing::BitString
                };
                (MX_BLOCK, ScaleKind::E8M0, 1, bits, packing)
            }
            Scheme::Fp8Tile => (super::scheme::FP8_TILE, ScaleKind::F32, 4, 8, Packing::Byte),
            // A "block" here is a band of 128 rows of `b` columns (the last band of a tensor may
            // be shorter: see `bytes_for`).
            Scheme::Fp8Block => {
                let side = super::scheme::FP8_BLOCK;
                let scales = 4 * b.div_ceil(side);
                (side * b, ScaleKind::F32Band, scales, 8, Packing::Byte)
            }
            Scheme::AbsmaxInt8 => (b, ScaleKind::F32, 4, 8, Packing::Byte),
            Scheme::ZeroPointUint8 => (b, ScaleKind::F32AndZeroPoint, 5, 8, Packing::Byte),
            Scheme::ZeroPointInt4 => (b, ScaleKind::F32AndZeroPoint, 5, 4, Packing::PairedNibbles),
            Scheme::Nf4 => (b, ScaleKind::F32, 4, 4, Packing::PairedNibbles),
            Scheme::F8E4M3 | Scheme::F8E5M2 => (1, ScaleKind::TensorF32, 0, 8, Packing::Byte),
            Scheme::Bf16 | Scheme::F16 => (1, ScaleKind::None, 0, 16, Packing::U16),
        };
        let block_bytes = match scheme {
            Scheme::KQuant(t) => t.block_bytes(),
            _ => code_offset + packed_bytes(packing, values, code_bits),
        };
        let scale_offset = match scheme {
            Scheme::KQuant(t) => t.d_offset(),
            _ => 0,
        };
        let header_bytes = if matches!(scale, ScaleKind::TensorF32) {
            4
        } else {
            0
        };
        Layout {
            values,
            block_bytes,
            header_bytes,
            scale,
            scale_offset,
            code_offset,
            code_bits,
            packing,
            signed: matches!(scheme, Scheme::Ggml(GgmlType::Q8_0) | Scheme::AbsmaxInt8),
        }
    }

    /// Blocks that hold `n` values (the last one zero-padded).
    pub const fn blocks_for(&self, n: usize) -> usize {
        n.div_ceil(self.values)
    }

    /// Bytes that `n` values take: the header and [`Layout::blocks_for`] whole blocks (for
    /// [`ScaleKind::F32Band`], the last band holds only its real rows: each band's scales and
    /// one byte per value). Saturates at `usize::MAX` instead of overflowing.
    pub const fn bytes_for(&self, n: usize) -> usize {
        if matches!(self.scale, ScaleKind::F32Band) {
            return self
                .blocks_for(n)
                .saturating_mul(self.code_offset)
                .saturating_add(n);
        }
        self.blocks_for(n)
            .saturating_mul(self.block_bytes)
            .saturating_add(self.header_bytes)
    }

    /// Byte offset of block `i` in a whole tensor's bytes (header included).
    pub const fn block_start(&self, i: usize) -> usize {
        self.header_bytes + i * self.block_bytes
    }

    /// Byte offset where the codes of block `i` start in a whole tensor's bytes.
    pub const fn codes_start(&self, i: usize) -> usize {
        self.block_start(i) + self.code_offset
    }

    /// Bytes of codes per block (contiguous from [`Layout::code_offset`]; a K-quant's scales
    /// may follow them).
    pub const fn code_bytes(&self) -> usize {
        packed_bytes(self.packing, self.values, self.code_bits)
    }

    /// Codes per `u32` word when a block's codes are packed little-endian by [`pack_u32`] (a
    /// 5-bit code counts as its 4-bit nibble; its fifth bits are already a u32; a K-quant or
    /// MXFP6 code may straddle words, and counts as `32 / code_bits` rounded down).
    pub const fn codes_per_word(&self) -> usize {
        match self.packing {
            Packing::SplitNibblesHighBits => 8,
            _ => 32 / self.code_bits as usize,
        }
    }

    /// Packs one block's codes (each below 2^`code_bits`, one per value) into its code bytes
    /// `out` ([`Layout::code_bytes`] long). Bits above the code width are dropped.
    pub fn pack_codes(&self, codes: &[u8], out: &mut [u8]) {
        debug_assert_eq!(codes.len(), self.values);
        match self.packing {
            Packing::Byte => out[..codes.len()].copy_from_slice(codes),
            Packing::U16 => {
                for (o, c) in out.chunks_exact_mut(2).zip(codes) {
                    o.copy_from_slice(&(*c as u16).to_le_bytes());
                }
            }
            Packing::SplitNibbles => pack_split_nibbles(codes, out),
            Packing::PairedNibbles => pack_paired_nibbles(codes, out),
            Packing::GroupedSplitNibbles(g) => {
                for (c, o) in codes.chunks(g).zip(out.chunks_mut(g / 2)) {
                    pack_split_nibbles(c, o);
                }
            }
            Packing::BitString => {
                let wide: Vec<u32> = codes.iter().map(|c| *c as u32).collect();
                pack_bit_string(&wide, self.code_bits, &mut out[..self.code_bytes()]);
            }
            Packing::KQuant(t) => {
                let mut all = [0u8; QK_K];
                all.copy_from_slice(codes);
                t.pack_codes(&all, out);
            }
            Packing::SplitNibblesHighBits => {
                let high = codes
                    .iter()
                    .enumerate()
                    .fold(0u32, |acc, (j, v)| acc | ((((*v as u32) >> 4) & 1) << j));
                out[..4].copy_from_slice(&high.to_le_bytes());
                pack_split_nibbles(codes, &mut out[4..]);
            }
        }
    }

    /// Unpacks one block's code bytes (as [`Layout::pack_codes`] wrote them) into one code per
    /// value of `out` (for codes of at most 8 bits; a 16-bit code keeps its low byte).
    pub fn unpack_codes(&self, code_bytes: &[u8], out: &mut [u8]) {
        match self.packing {
            Packing::Byte => out.copy_from_slice(&code_bytes[..out.len()]),
            Packing::U16 => {
                for (o, c) in out.iter_mut().zip(code_bytes.chunks_exact(2)) {
                    *o = c[0];
                }
            }
            Packing::SplitNibbles => unpack_split_nibbles(code_bytes, out),
            Packing::PairedNibbles => unpack_paired_nibbles(code_bytes, out),
            Packing::GroupedSplitNibbles(_) | Packing::BitString | Packing::KQuant(_) => {
                for (j, o) in out.iter_mut().enumerate() {
                    *o = self.code_in(code_bytes, j) as u8;
                }
            }
            Packing::SplitNibblesHighBits => {
                let high = u32::from_le_bytes([
                    code_bytes[0],
                    code_bytes[1],
                    code_bytes[2],
                    code_bytes[3],
                ]);
                unpack_split_nibbles(&code_bytes[4..], out);
                for (j, o) in out.iter_mut().enumerate() {
                    *o |= (((high >> j) & 1) as u8) << 4;
                }
            }
        }
    }

    /// The code of value `i` in a whole tensor's bytes (header included) as a number: sign
    /// extended when [`Layout::signed`], else [`Layout::code`]. `None` when the bytes end before it.
    pub fn code_value(&self, bytes: &[u8], i: usize) -> Option<i32> {
        let c = self.code(bytes, i)?;
        Some(if self.signed {
            ((c << (32 - self.code_bits)) as i32) >> (32 - self.code_bits)
        } else {
            c as i32
        })
    }

    /// The code of value `i` in a whole tensor's bytes (header included), as an unsigned number
    /// of [`Layout::code_bits`] bits. `None` when the bytes end before it.
    pub fn code(&self, bytes: &[u8], i: usize) -> Option<u32> {
        let (block, j) = (i / self.values, i % self.values);
        let at = self.codes_start(block);
        if self.packing == Packing::Byte {
            // One byte per code: a short last block (an fp8-128x128 band) reads as well.
            return bytes.get(at + j).map(|c| *c as u32);
        }
        let region = bytes.get(at..at + self.code_bytes())?;
        Some(self.code_in(region, j))
    }

    /// The code of value `j` of one block from that block's code bytes `region`
    /// ([`Layout::code_bytes`] long).
    fn code_in(&self, region: &[u8], j: usize) -> u32 {
        let half = self.values / 2;
        match self.packing {
            Packing::Byte => region[j] as u32,
            Packing::U16 => u16::from_le_bytes([region[2 * j], region[2 * j + 1]]) as u32,
            Packing::SplitNibbles => split_nibble(region, j, half) as u32,
            Packing::PairedNibbles => paired_nibble(region, j) as u32,
            Packing::SplitNibblesHighBits => {
                let high = u32::from_le_bytes([region[0], region[1], region[2], region[3]]);
                split_nibble(&region[4..], j, half) as u32 | (((high >> j) & 1) << 4)
            }
            Packing::GroupedSplitNibbles(g) => {
                split_nibble(&region[j / g * g / 2..], j % g, g / 2) as u32
            }
            Packing::BitString => bit_string_code(region, j, self.code_bits),
            Packing::KQuant(t) => t.code(region, j) as u32,
        }
    }
}

/// Packs 4-bit codes GGML's way: codes j and j + len/2 share byte j (low, high nibble).
pub fn pack_split_nibbles(codes: &[u8], out: &mut [u8]) {
    let half = codes.len() / 2;
    for (j, o) in out[..half].iter_mut().enumerate() {
        *o = (codes[j] & 0x0F) | ((codes[j + half] & 0x0F) << 4);
    }
}

/// Reverses [`pack_split_nibbles`] into `out.len()` codes.
pub fn unpack_split_nibbles(bytes: &[u8], out: &mut [u8]) {
    let half = out.len() / 2;
    let (lo, hi) = out.split_at_mut(half);
    for ((l, h), b) in lo.iter_mut().zip(hi.iter_mut()).zip(bytes) {
        *l = b & 0x0F;
        *h = b >> 4;
    }
}

/// Packs 4-bit codes in pairs: codes 2i and 2i + 1 share byte i (low, high nibble); an odd last
/// code gets a zero high nibble.
pub fn pack_paired_nibbles(codes: &[u8], out: &mut [u8]) {
    let pairs = codes.chunks_exact(2);
    if let [last] = pairs.remainder() {
        out[codes.len() / 2] = last & 0x0F;
    }
    for (o, p) in out.iter_mut().zip(pairs) {
        *o = (p[0] & 0x0F) | (p[1] << 4);
    }
}

/// Reverses [`pack_paired_nibbles`] into `out.len()` codes.
pub fn unpack_paired_nibbles(bytes: &[u8], out: &mut [u8]) {
    let len = out.len();
    let mut pairs = out.chunks_exact_mut(2);
    for (p, b) in (&mut pairs).zip(bytes) {
        p[0] = b & 0x0F;
        p[1] = b >> 4;
    }
    if let [last] = pairs.into_remainder() {
        *last = bytes[len / 2] & 0x0F;
    }
}

fn split_nibble(bytes: &[u8], j: usize, half: usize) -> u8 {
    if j < half {
        bytes[j] & 0x0F
    } else {
        bytes[j - half] >> 4
    }
}

fn paired_nibble(bytes: &[u8], j: usize) -> u8 {
    if j % 2 == 0 {
        bytes[j / 2] & 0x0F
    } else {
        bytes[j / 2] >> 4
    }
}

/// Packs bytes into `u32` words, little-endian (byte 4k is bits 0..8 of word k), the last word
/// zero-padded: how WebGPU, which has only 32-bit storage, sees a buffer of codes. For
/// [`Packing::Byte`], [`Packing::U16`] and [`Packing::PairedNibbles`] code k of a block then sits
/// at bits `(k × code_bits) mod 32` of word `k × code_bits / 32`.
pub fn pack_u32(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Reverses [`pack_u32`]: the first `len` bytes of the words.
pub fn unpack_u32(words: &[u32], len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.truncate(len);
    out
}

impl Scheme {
    /// The byte layout at blocks of `block` values (see [`Layout::of`]).
    pub const fn layout(self, block: usize) -> Layout {
        Layout::of(self, block)
    }

    /// Storage bits per weight including scales, for `n` weights in blocks of `block`: the
    /// layout's block bytes per block value, plus the per-tensor header spread over `n` (at least
    /// 1); for `fp8-128x128` (`block` = columns), [`Layout::bytes_for`] `n` over `n`. Not rounded. NF4 with double quantization is [`super::nf4::bits_per_weight`] instead.
    pub fn bits_per_weight(self, block: usize, n: usize) -> f64 {
        let l = self.layout(block);
        if l.scale == ScaleKind::F32Band {
            // Exact for a short last band: its scales over its own values.
            return l.bytes_for(n.max(1)) as f64 * 8.0 / n.max(1) as f64;
        }
        (l.block_bytes * 8) as f64 / l.values as f64 + l.header_bytes as f64 * 8.0 / n.max(1) as f64
    }
}

impl GgmlType {
    /// Bytes per 32-weight block (from [`Layout`]).
    pub const fn block_bytes(self) -> usize {
        self.layout().block_bytes
    }

    /// The format's byte layout.
    pub const fn layout(self) -> Layout {
        Layout::of(Scheme::Ggml(self), QK)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::bit_string::bit_string_codes;

    #[test]
    fn the_six_and_eight_bit_fast_paths_pack_and_unpack_the_general_bit_string() {
        for bits in [6u32, 8] {
            for n in [4usize, 8, 32] {
                let codes: Vec<u32> = (0..n as u32).map(|j| (j * 37 + 11) % (1 << bits)).collect();
                let mut fast = vec![0xAAu8; n * bits as usize / 8];
                pack_bit_string(&codes, bits, &mut fast);
                let mut general = vec![0u8; fast.len()];
                for (j, c) in codes.iter().enumerate() {
                    for k in 0..bits as usize {
                        let at = j * bits as usize + k;
                        general[at / 8] |= (((c >> k) & 1) as u8) << (at % 8);
                    }
                }
                assert_eq!(fast, general, "{bits} bits, {n} codes");
                let mut back = vec![0u8; n];
                bit_string_codes(&fast, bits, &mut back);
                let each: Vec<u8> = (0..n)
                    .map(|j| bit_string_code(&fast, j, bits) as u8)
                    .collect();
                assert_eq!(back, each, "{bits} bits, {n} codes");
                assert!(back.iter().zip(&codes).all(|(b, c)| *b as u32 == *c));
            }
        }
    }
    use crate::quant::codec::quantize;
    use std::mem::size_of;

    #[test]
    fn ggml_block_sizes_are_llama_cpp_struct_sizes() {
        let sizes = [
            (GgmlType::Q8_0, size_of::<BlockQ8_0>()),
            (GgmlType::Q4_0, size_of::<BlockQ4_0>()),
            (GgmlType::Q4_1, size_of::<BlockQ4_1>()),
            (GgmlType::Q5_0, size_of::<BlockQ5_0>()),
            (GgmlType::Q5_1, size_of::<BlockQ5_1>()),
            (GgmlType::Mxfp4, size_of::<BlockMxfp4>()),
        ];
        for (t, size) in sizes {
            assert_eq!(Layout::of(Scheme::Ggml(t), 32).block_bytes, size, "{t:?}");
        }
        let llama = [
            (
                Scheme::KQuant(KType::Q2K),
                size_of::<crate::quant::kquants::q2_k::BlockQ2K>(),
            ),
            (
                Scheme::KQuant(KType::Q3K),
                size_of::<crate::quant::kquants::q3_k::BlockQ3K>(),
            ),
            (
                Scheme::KQuant(KType::Q4K),
                size_of::<crate::quant::kquants::q4_k::BlockQ4K>(),
            ),
            (
                Scheme::KQuant(KType::Q5K),
                size_of::<crate::quant::kquants::q5_k::BlockQ5K>(),
            ),
            (
                Scheme::KQuant(KType::Q6K),
                size_of::<crate::quant::kquants::q6_k::BlockQ6K>(),
            ),
            (Scheme::Iq4Nl, size_of::<iq4_nl::BlockIq4Nl>()),
            (Scheme::Nvfp4, size_of::<nvfp4::BlockNvfp4>()),
        ];
        for (s, size) in llama {
            assert_eq!(Layout::of(s, 0).block_bytes, size, "{s}");
        }
        for f in crate::quant::mx::MxFormat::ALL {
            assert_eq!(
                Layout::of(Scheme::Mx(f), 0).block_bytes,
                f.block_bytes(),
                "{f:?}"
            );
        }
    }

    #[test]
    fn every_block_format_s_codes_are_what_its_dequantizer_reads() {
        // Each code read through the layout, times the block's scale, is the dequantized value
        // for the table-free formats; here it is enough that re-packing the codes read from
        // the bytes rebuilds the very code region the quantizer wrote.
        let x: Vec<f32> = (0..512).map(|i| (i as f32 * 0.77).sin() * 0.3).collect();
        for s in Scheme::ALL {
            let l = Layout::of(s, s.default_block());
            // fp8-128x128's bands of 128 rows: its codes are read back in fp8_tiles' tests.
            if l.values < 2 || s == Scheme::Fp8Block {
                continue;
            }
            let bytes = quantize(s, &x, l.values).unwrap();
            let mut codes = vec![0u8; l.values];
            let region = &bytes[l.codes_start(0)..l.codes_start(0) + l.code_bytes()];
            l.unpack_codes(region, &mut codes);
            for (j, c) in codes.iter().enumerate() {
                assert_eq!(l.code(&bytes, j), Some(*c as u32), "{s} value {j}");
            }
            let mut again = vec![0u8; l.code_bytes()];
            l.pack_codes(&codes, &mut again);
            assert_eq!(again, region, "{s}");
        }
    }

    #[test]
    fn bytes_for_is_the_length_quantize_writes() {
        let x: Vec<f32> = (0..256).map(|i| (i as f32 * 0.37).sin()).collect();
        for s in Scheme::ALL {
            for block in [s.default_block(), 2, 128] {
                let Ok(block) = s.block(Some(block)).or_else(|_| s.block(None)) else {
                    continue;
                };
                let l = Layout::of(s, block);
                let bytes = quantize(s, &x, block).unwrap();
                assert_eq!(bytes.len(), l.bytes_for(x.len()), "{s} block {block}");
                if l.scale == ScaleKind::F32Band {
                    // Two rows of 128 columns: one short band.
                    assert_eq!(l.blocks_for(x.len()), 1, "{s}");
                } else {
                    assert_eq!(l.blocks_for(x.len()) * l.values, x.len(), "{s}");
                }
            }
        }
    }

    #[test]
    fn packing_round_trips_every_scheme_s_codes() {
        for s in Scheme::ALL {
            let l = Layout::of(s, 64);
            let top = if l.code_bits >= 8 {
                255
            } else {
                (1u32 << l.code_bits) - 1
            };
            let codes: Vec<u8> = (0..l.values)
                .map(|j| ((j as u32 * 7 + 3) % (top + 1)) as u8)
                .collect();
            let mut region = vec![0u8; l.code_bytes()];
            l.pack_codes(&codes, &mut region);
            let mut back = vec![0u8; l.values];
            l.unpack_codes(&region, &mut back);
            assert_eq!(back, codes, "{s}");
            let mut whole = vec![0xAA; l.codes_start(0)];
            whole.extend_from_slice(&region);
            for (j, c) in codes.iter().enumerate() {
                assert_eq!(l.code(&whole, j), Some(*c as u32), "{s} value {j}");
            }
        }
    }

    #[test]
    fn an_odd_number_of_paired_nibbles_round_trips() {
        let mut out = [0xFFu8; 2];
        pack_paired_nibbles(&[1, 2, 3], &mut out);
        assert_eq!(out, [0x21, 0x03]);
        let mut back = [0u8; 3];
        unpack_paired_nibbles(&out, &mut back);
        assert_eq!(back, [1, 2, 3]);
    }

    #[test]
    fn ggml_nibbles_pair_value_j_with_value_j_plus_16() {
        let l = Layout::of(Scheme::Ggml(GgmlType::Q4_0), 32);
        let codes: Vec<u8> = (0..32).map(|j| (j % 16) as u8).collect();
        let mut region = [0u8; 16];
        l.pack_codes(&codes, &mut region);
        assert_eq!(region[1], 0x11);
        assert_eq!(region[15], 0xFF);
        let paired = Layout::of(Scheme::Nf4, 4);
        let mut two = [0u8; 2];
        paired.pack_codes(&[1, 2, 3, 4], &mut two);
        assert_eq!(two, [0x21, 0x43]);
    }

    #[test]
    fn codes_pack_into_little_endian_words() {
        let l = Layout::of(Scheme::Nf4, 16);
        let codes: Vec<u8> = (0..16).collect();
        let mut region = vec![0u8; l.code_bytes()];
        l.pack_codes(&codes, &mut region);
        let words = pack_u32(&region);
        assert_eq!(words.len(), 16 / l.codes_per_word());
        for (k, c) in codes.iter().enumerate() {
            let bits = k * l.code_bits as usize;
            assert_eq!(
                (words[bits / 32] >> (bits % 32)) & 0xF,
                *c as u32,
                "code {k}"
            );
        }
        assert_eq!(
            unpack_u32(&pack_u32(&[1, 2, 3, 4, 5]), 5),
            vec![1, 2, 3, 4, 5]
        );
        assert_eq!(pack_u32(&[1, 2, 3, 4, 5]), vec![0x0403_0201, 5]);
    }

    #[test]
    fn huge_counts_saturate_instead_of_overflowing() {
        let l = Layout::of(Scheme::Bf16, 1);
        assert_eq!(l.bytes_for(usize::MAX), usize::MAX);
        assert_eq!(Layout::of(Scheme::AbsmaxInt8, 0).values, 1);
    }
}
