//! Codes of any width from 1 to 8 bits packed as a little-endian bit string (MXFP6: four codes in
//! three bytes), and read back: the packers that the block layouts and the MX quantizers share.

/// Packs codes of `bits` bits (1..=8; higher bits dropped) as a little-endian bit string: code
/// j in bits `j·bits ..` of `out` (zeroed first; MXFP6: four codes in three bytes).
pub fn pack_bit_string(codes: &[u32], bits: u32, out: &mut [u8]) {
    if bits == 8 {
        for (o, c) in out.iter_mut().zip(codes) {
            *o = *c as u8;
        }
        let written = codes.len().min(out.len());
        out[written..].fill(0);
        return;
    }
    if bits == 6 && codes.len() % 4 == 0 && out.len() == codes.len() / 4 * 3 {
        // Four 6-bit codes fill three bytes exactly: the same bit string, 24 bits at a time.
        for (four, o) in codes.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
            let word = four.iter().rev().fold(0u32, |w, c| (w << 6) | (c & 0x3F));
            o.copy_from_slice(&word.to_le_bytes()[..3]);
        }
        return;
    }
    out.fill(0);
    let bits = bits as usize;
    for (j, c) in codes.iter().enumerate() {
        let word = (c & ((1 << bits) - 1)) << ((j * bits) % 8);
        for (k, b) in word.to_le_bytes().iter().enumerate() {
            if let Some(o) = out.get_mut(j * bits / 8 + k) {
                *o |= b;
            }
        }
    }
}

/// Every code of a bit string written by [`pack_bit_string`] with `bits` (6 or 8, else one
/// [`bit_string_code`] at a time) bits per code, into `out` (`out.len()` codes; `bytes` must
/// hold them).
#[inline]
pub fn bit_string_codes(bytes: &[u8], bits: u32, out: &mut [u8]) {
    if bits == 8 {
        out.copy_from_slice(&bytes[..out.len()]);
    } else if bits == 6 && out.len() % 4 == 0 {
        for (three, four) in bytes.chunks_exact(3).zip(out.chunks_exact_mut(4)) {
            let word = u32::from_le_bytes([three[0], three[1], three[2], 0]);
            for (k, c) in four.iter_mut().enumerate() {
                *c = (word >> (6 * k)) as u8 & 0x3F;
            }
        }
    } else {
        for (j, c) in out.iter_mut().enumerate() {
            *c = bit_string_code(bytes, j, bits) as u8;
        }
    }
}

/// Code `j` of a bit string written by [`pack_bit_string`] with `bits` bits per code.
pub fn bit_string_code(bytes: &[u8], j: usize, bits: u32) -> u32 {
    let at = j * bits as usize;
    let pair = bytes[at / 8] as u32 | (*bytes.get(at / 8 + 1).unwrap_or(&0) as u32) << 8;
    (pair >> (at % 8)) & ((1 << bits) - 1)
}
