//! The five K-quants as one value ([`KType`]): their names, byte sizes and field offsets, where
//! each weight's code sits, and how one weight is rebuilt from its nested scales
//! ([`KType::rebuild`]), for the scheme list, the byte layout and the lab's super-block diagram.
//! The bit placements are written once here and used by the quantizers of the submodules too.

use super::{ggml_f32, q2_k, q3_k, q4_k, q5_k, q6_k, scale_min_k4, LengthError, QK_K};

/// One of llama.cpp's K-quants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KType {
    /// Q2_K: 2-bit codes, 4-bit scales and mins per 16 weights.
    Q2K,
    /// Q3_K: 3-bit codes, signed 6-bit scales per 16 weights.
    Q3K,
    /// Q4_K: 4-bit codes, 6-bit scales and mins per 32 weights.
    Q4K,
    /// Q5_K: 5-bit codes, 6-bit scales and mins per 32 weights.
    Q5K,
    /// Q6_K: 6-bit codes, signed 8-bit scales per 16 weights.
    Q6K,
}

/// How one weight of a K-quant super-block is rebuilt: `value = (d·sc)·(q − offset) − dmin·m`,
/// each product rounded once to `f32` in that order (as `dequantize_row_q*_K`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rebuild {
    /// The weight's index in its super-block (0..256).
    pub index: usize,
    /// Its sub-block.
    pub sub_block: usize,
    /// The FP16 bits of the super-block scale `d`.
    pub d_bits: u16,
    /// `d` as f32 (exact).
    pub d: f32,
    /// The FP16 bits of the super-block min scale `dmin` (`None` for Q3_K and Q6_K).
    pub dmin_bits: Option<u16>,
    /// `dmin` as f32 (0 where there is none).
    pub dmin: f32,
    /// The sub-block's scale as stored (Q3_K: the 6-bit field 0..=63; Q6_K: the signed byte).
    pub sc_stored: u32,
    /// The sub-block's scale as used: Q3_K's field − 32, otherwise the stored number.
    pub sc: i32,
    /// The sub-block's min (0 where there is none).
    pub m: u32,
    /// The weight's stored code.
    pub q: u32,
    /// What is subtracted from the code: 4 (Q3_K), 32 (Q6_K), else 0.
    pub offset: i32,
    /// `d·sc` in f32.
    pub scale: f32,
    /// `dmin·m` in f32.
    pub min: f32,
    /// The rebuilt value, bit for bit what the dequantizer writes.
    pub value: f32,
}

impl KType {
    /// Every K-quant, from the fewest bits to the most.
    pub const ALL: [KType; 5] = [KType::Q2K, KType::Q3K, KType::Q4K, KType::Q5K, KType::Q6K];

    /// Lower-case name (`q4_k`); llama.cpp writes `q4_K`.
    pub const fn name(self) -> &'static str {
        match self {
            KType::Q2K => "q2_k",
            KType::Q3K => "q3_k",
            KType::Q4K => "q4_k",
            KType::Q5K => "q5_k",
            KType::Q6K => "q6_k",
        }
    }

    /// Bytes per 256-weight super-block (the size of llama.cpp's `block_q*_K`).
    pub const fn block_bytes(self) -> usize {
        match self {
            KType::Q2K => q2_k::BLOCK_BYTES,
            KType::Q3K => q3_k::BLOCK_BYTES,
            KType::Q4K => q4_k::BLOCK_BYTES,
            KType::Q5K => q5_k::BLOCK_BYTES,
            KType::Q6K => q6_k::BLOCK_BYTES,
        }
    }

    /// Bits of one weight's code.
    pub const fn code_bits(self) -> u32 {
        match self {
            KType::Q2K => 2,
            KType::Q3K => 3,
            KType::Q4K => 4,
            KType::Q5K => 5,
            KType::Q6K => 6,
        }
    }

    /// Byte offset of the codes (all their bit planes, which are contiguous) in a super-block.
    pub const fn code_offset(self) -> usize {
        match self {
            KType::Q2K | KType::Q4K | KType::Q5K => 16,
            KType::Q3K | KType::Q6K => 0,
        }
    }

    /// Bytes of codes per super-block: 256 × [`KType::code_bits`] / 8.
    pub const fn code_bytes(self) -> usize {
        QK_K * self.code_bits() as usize / 8
    }

    /// Byte offset of the FP16 super-block scale `d` (`dmin`, where there is one, follows it).
    pub const fn d_offset(self) -> usize {
        match self {
            KType::Q2K => 80,
            KType::Q3K => 108,
            KType::Q4K | KType::Q5K => 0,
            KType::Q6K => 208,
        }
    }

    /// Byte offset and length of the packed sub-block scales (and mins).
    pub const fn scales_at(self) -> (usize, usize) {
        match self {
            KType::Q2K => (0, 16),
            KType::Q3K => (96, 12),
            KType::Q4K | KType::Q5K => (4, 12),
            KType::Q6K => (192, 16),
        }
    }

    /// Whether the scheme has a second super-block scale `dmin` and sub-block mins.
    pub const fn has_min(self) -> bool {
        matches!(self, KType::Q2K | KType::Q4K | KType::Q5K)
    }

    /// Sub-blocks per super-block (16 of 16 weights, or 8 of 32).
    pub const fn sub_blocks(self) -> usize {
        match self {
            KType::Q4K | KType::Q5K => 8,
            _ => 16,
        }
    }

    /// Bits of one stored sub-block scale (and min).
    pub const fn scale_bits(self) -> u32 {
        match self {
            KType::Q2K => 4,
            KType::Q3K | KType::Q4K | KType::Q5K => 6,
            KType::Q6K => 8,
        }
    }

    /// What is subtracted from a stored code before scaling (4 for Q3_K, 32 for Q6_K, else 0).
    pub const fn code_offset_value(self) -> i32 {
        match self {
            KType::Q3K => 4,
            KType::Q6K => 32,
            _ => 0,
        }
    }

    /// Packs 256 codes (each below 2^[`KType::code_bits`]; higher bits are dropped) into the
    /// code bytes `region` ([`KType::code_bytes`] long), in llama.cpp's bit positions (see each
    /// submodule's docs).
    pub fn pack_codes(self, codes: &[u8; QK_K], region: &mut [u8]) {
        match self {
            KType::Q2K => pack_crumbs(codes, 0, region),
            KType::Q3K => {
                let (hmask, qs) = region.split_at_mut(32);
                pack_bit_plane(codes, 2, hmask);
                pack_crumbs(codes, 0, qs);
            }
            KType::Q4K => pack_nibbles(codes, region),
            KType::Q5K => {
                let (qh, qs) = region.split_at_mut(32);
                pack_bit_plane(codes, 4, qh);
                pack_nibbles(codes, qs);
            }
            KType::Q6K => {
                let (ql, qh) = region.split_at_mut(128);
                for h in 0..2 {
                    for l in 0..32 {
                        let c = |k: usize| codes[128 * h + 32 * k + l] & 0xF;
                        ql[64 * h + l] = c(0) | (c(2) << 4);
                        ql[64 * h + l + 32] = c(1) | (c(3) << 4);
                    }
                }
                pack_crumbs(codes, 4, qh);
            }
        }
    }

    /// The stored code of weight `i` (0..256) from the code bytes `region` (as
    /// [`KType::pack_codes`] wrote them).
    pub fn code(self, region: &[u8], i: usize) -> u8 {
        match self {
            KType::Q2K => crumb(region, i),
            KType::Q3K => crumb(&region[32..], i) | (plane_bit(region, i) << 2),
            KType::Q4K => nibble(region, i),
            KType::Q5K => nibble(&region[32..], i) | (plane_bit(region, i) << 4),
            KType::Q6K => {
                let (h, k, l) = (i / 128, (i % 128) / 32, i % 32);
                let low = (region[64 * h + 32 * (k % 2) + l] >> (4 * (k / 2))) & 0xF;
                low | (crumb(&region[128..], i) << 4)
            }
        }
    }

    /// Sub-block `j`'s stored scale and min (min 0 where there is none) from a whole
    /// super-block `b` ([`KType::block_bytes`] long): Q2_K's nibbles, Q3_K's 6-bit field
    /// (0..=63, used as field − 32), Q4_K/Q5_K's 6-bit pairs, Q6_K's byte (a signed number).
    pub fn stored_scale(self, b: &[u8], j: usize) -> (u32, u32) {
        let (at, len) = self.scales_at();
        let s = &b[at..at + len];
        match self {
            KType::Q2K => ((s[j] & 0xF) as u32, (s[j] >> 4) as u32),
            KType::Q3K => ((q3_k::scale(s, j) + 32) as u32, 0),
            KType::Q4K | KType::Q5K => {
                let (sc, m) = scale_min_k4(j, s.try_into().expect("12 scale bytes"));
                (sc as u32, m as u32)
            }
            KType::Q6K => (s[j] as u32, 0),
        }
    }

    /// A stored sub-block scale as the dequantizer uses it: Q3_K's field − 32, Q6_K's byte as a
    /// signed number, otherwise unchanged.
    pub const fn scale_used(self, stored: u32) -> i32 {
        match self {
            KType::Q3K => stored as i32 - 32,
            KType::Q6K => stored as u8 as i8 as i32,
            _ => stored as i32,
        }
    }

    /// How weight `i` of the super-block `b` is rebuilt, with every number involved. `None`
    /// when `b` is not [`KType::block_bytes`] long or `i` is not below 256.
    pub fn rebuild(self, b: &[u8], i: usize) -> Option<Rebuild> {
        if b.len() != self.block_bytes() || i >= QK_K {
            return None;
        }
        let at = self.d_offset();
        let half = |k: usize| [b[k], b[k + 1]];
        let d_bits = u16::from_le_bytes(half(at));
        let dmin_bits = self.has_min().then(|| u16::from_le_bytes(half(at + 2)));
        let (d, dmin) = (
            ggml_f32(half(at)),
            dmin_bits.map_or(0.0, |_| ggml_f32(half(at + 2))),
        );
        let sub_block = i / (QK_K / self.sub_blocks());
        let (sc_stored, m) = self.stored_scale(b, sub_block);
        let sc = self.scale_used(sc_stored);
        let q = self.code(&b[self.code_offset()..], i) as u32;
        let offset = self.code_offset_value();
        let scale = d * sc as f32;
        let min = dmin * m as f32;
        let value = scale * (q as i32 - offset) as f32 - min;
        Some(Rebuild {
            index: i,
            sub_block,
            d_bits,
            d,
            dmin_bits,
            dmin,
            sc_stored,
            sc,
            m,
            q,
            offset,
            scale,
            min,
            value,
        })
    }

    /// The bytes of super-block `index` of the tensor `x` (its values `256·index ..`, the last
    /// super-block zero-padded, as the lab quantizes it). `None` when `x` has no such block.
    pub fn super_block(self, x: &[f32], index: usize) -> Option<Vec<u8>> {
        let start = index.checked_mul(QK_K).filter(|s| *s < x.len())?;
        let mut values = [0f32; QK_K];
        let end = (start + QK_K).min(x.len());
        values[..end - start].copy_from_slice(&x[start..end]);
        let mut out = vec![0u8; self.block_bytes()];
        self.quantize(&values, &mut out).ok()?;
        Some(out)
    }

    /// Quantizes `x` (a multiple of 256 values) into `out`, as the scheme's module does.
    pub fn quantize(self, x: &[f32], out: &mut [u8]) -> Result<(), LengthError> {
        match self {
            KType::Q2K => q2_k::quantize(x, out),
            KType::Q3K => q3_k::quantize(x, out),
            KType::Q4K => q4_k::quantize(x, out),
            KType::Q5K => q5_k::quantize(x, out),
            KType::Q6K => q6_k::quantize(x, out),
        }
    }

    /// Dequantizes whole super-blocks into `out`, as the scheme's module does.
    pub fn dequantize(self, blocks: &[u8], out: &mut [f32]) -> Result<(), LengthError> {
        match self {
            KType::Q2K => q2_k::dequantize(blocks, out),
            KType::Q3K => q3_k::dequantize(blocks, out),
            KType::Q4K => q4_k::dequantize(blocks, out),
            KType::Q5K => q5_k::dequantize(blocks, out),
            KType::Q6K => q6_k::dequantize(blocks, out),
        }
    }
}

/// Two bits per weight in 64 bytes (Q2_K's codes, Q3_K's low bits, Q6_K's high bits): bits
/// `shift..shift+2` of the code of weight `128·h + 32·k + l` go to bits `2k..2k+2` of byte
/// `32·h + l`.
pub(crate) fn pack_crumbs(codes: &[u8; QK_K], shift: u32, out: &mut [u8]) {
    for h in 0..2 {
        for l in 0..32 {
            let c = |k: usize| (codes[128 * h + 32 * k + l] >> shift) & 3;
            out[32 * h + l] = c(0) | (c(1) << 2) | (c(2) << 4) | (c(3) << 6);
        }
    }
}

/// Weight `i`'s two bits from [`pack_crumbs`]'s bytes.
pub(crate) fn crumb(bytes: &[u8], i: usize) -> u8 {
    let (h, k, l) = (i / 128, (i % 128) / 32, i % 32);
    (bytes[32 * h + l] >> (2 * k)) & 3
}

/// One bit per weight in 32 bytes (Q3_K's `hmask`, Q5_K's `qh`): bit `shift` of the code of
/// weight i goes to bit `i / 32` of byte `i % 32`.
pub(crate) fn pack_bit_plane(codes: &[u8; QK_K], shift: u32, out: &mut [u8]) {
    out[..32].fill(0);
    for (i, c) in codes.iter().enumerate() {
        out[i % 32] |= ((c >> shift) & 1) << (i / 32);
    }
}

/// Weight `i`'s bit from [`pack_bit_plane`]'s bytes.
pub(crate) fn plane_bit(bytes: &[u8], i: usize) -> u8 {
    (bytes[i % 32] >> (i / 32)) & 1
}

/// Four bits per weight in 128 bytes (Q4_K's and Q5_K's `qs`): the low nibble of the code of
/// weight `64·c + 32·h + l` goes to nibble h of byte `32·c + l`.
pub(crate) fn pack_nibbles(codes: &[u8; QK_K], out: &mut [u8]) {
    for c in 0..4 {
        for l in 0..32 {
            out[32 * c + l] = (codes[64 * c + l] & 0xF) | ((codes[64 * c + l + 32] & 0xF) << 4);
        }
    }
}

/// Weight `i`'s nibble from [`pack_nibbles`]'s bytes.
pub(crate) fn nibble(bytes: &[u8], i: usize) -> u8 {
    (bytes[32 * (i / 64) + i % 32] >> (4 * ((i / 32) % 2))) & 0xF
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(seed: u32) -> Vec<f32> {
        (0..QK_K)
            .map(|i| (((i as u32).wrapping_mul(2654435761) ^ seed) % 2001) as f32 / 1000.0 - 1.0)
            .collect()
    }

    #[test]
    fn every_code_and_rebuilt_value_matches_the_dequantizer() {
        for t in KType::ALL {
            let x = input(t.code_bits());
            let mut b = vec![0u8; t.block_bytes()];
            t.quantize(&x, &mut b).unwrap();
            let mut y = vec![0f32; QK_K];
            t.dequantize(&b, &mut y).unwrap();
            for (i, want) in y.iter().enumerate() {
                let r = t.rebuild(&b, i).unwrap();
                assert_eq!(r.value.to_bits(), want.to_bits(), "{} weight {i}", t.name());
                assert!(r.q < 1 << t.code_bits(), "{} weight {i}", t.name());
            }
        }
    }

    #[test]
    fn packing_codes_round_trips_every_bit_position() {
        for t in KType::ALL {
            let codes: [u8; QK_K] =
                std::array::from_fn(|i| ((i * 37 + 11) % (1 << t.code_bits())) as u8);
            let mut region = vec![0u8; t.code_bytes()];
            t.pack_codes(&codes, &mut region);
            for (i, c) in codes.iter().enumerate() {
                assert_eq!(t.code(&region, i), *c, "{} weight {i}", t.name());
            }
        }
    }

    #[test]
    fn field_offsets_tile_the_block_without_overlap() {
        for t in KType::ALL {
            let (at, len) = t.scales_at();
            let d = 2 * (1 + t.has_min() as usize);
            let mut fields = [
                (t.code_offset(), t.code_bytes()),
                (at, len),
                (t.d_offset(), d),
            ];
            fields.sort();
            let mut end = 0;
            for (start, len) in fields {
                assert_eq!(start, end, "{}", t.name());
                end = start + len;
            }
            assert_eq!(end, t.block_bytes(), "{}", t.name());
        }
    }

    #[test]
    fn a_super_block_of_a_tensor_is_its_slice_of_the_whole_tensor_s_bytes() {
        let x: Vec<f32> = (0..600).map(|i| (i as f32 * 0.3).cos()).collect();
        let mut padded = x.clone();
        padded.resize(768, 0.0);
        let mut whole = vec![0u8; 3 * KType::Q4K.block_bytes()];
        KType::Q4K.quantize(&padded, &mut whole).unwrap();
        for k in 0..3 {
            let b = KType::Q4K.super_block(&x, k).unwrap();
            assert_eq!(b, whole[k * 144..(k + 1) * 144], "block {k}");
        }
        assert_eq!(KType::Q4K.super_block(&x, 3), None);
        assert_eq!(KType::Q4K.super_block(&x, usize::MAX), None);
        assert_eq!(KType::Q4K.super_block(&[], 0), None);
    }

    #[test]
    fn a_wrong_length_or_index_rebuilds_nothing() {
        assert_eq!(KType::Q4K.rebuild(&[0; 143], 0), None);
        assert_eq!(KType::Q4K.rebuild(&[0; 144], 256), None);
    }
}
