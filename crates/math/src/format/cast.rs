//! Casting packed little-endian arrays between byte-aligned formats (the CLI's `cast`).

use super::catalog::FormatId;
use super::minifloat::Overflow;
use std::fmt;

/// Why a buffer could not be cast.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CastError {
    /// The format is not a whole number of bytes wide (FP6, FP4, INT4 are packed differently).
    NotByteAligned(FormatId),
    /// The input length is not a multiple of the element size.
    RaggedInput {
        /// Input length in bytes.
        len: usize,
        /// Element size in bytes.
        elem_bytes: usize,
        /// The input format.
        from: FormatId,
    },
}

impl fmt::Display for CastError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotByteAligned(id) => write!(f, "{} is {} bits wide: cast works on 8-, 16- and 32-bit formats", id.label(), id.bits()),
            Self::RaggedInput { len, elem_bytes, from } => write!(
                f,
                "input is {len} bytes, not a whole number of {from} elements ({elem_bytes} bytes each; {} bytes left over)",
                len % elem_bytes
            ),
        }
    }
}

impl std::error::Error for CastError {}

/// Bytes per element of a byte-aligned format.
pub fn elem_bytes(id: FormatId) -> Result<usize, CastError> {
    match id.bits() {
        8 | 16 | 32 => Ok(id.bits() as usize / 8),
        _ => Err(CastError::NotByteAligned(id)),
    }
}

/// Decodes every little-endian element of `input` in `from` exactly and re-encodes it in `to`
/// (round to nearest, ties to even; overflow per `overflow`). Returns the packed output.
pub fn cast_bytes(
    input: &[u8],
    from: FormatId,
    to: FormatId,
    overflow: Overflow,
) -> Result<Vec<u8>, CastError> {
    let in_size = elem_bytes(from)?;
    let out_size = elem_bytes(to)?;
    if input.len() % in_size != 0 {
        return Err(CastError::RaggedInput {
            len: input.len(),
            elem_bytes: in_size,
            from,
        });
    }
    let mut out = Vec::with_capacity(input.len() / in_size * out_size);
    for chunk in input.chunks_exact(in_size) {
        let mut raw = [0u8; 4];
        raw[..in_size].copy_from_slice(chunk);
        let bits = to.encode(from.decode(u32::from_le_bytes(raw)), overflow);
        out.extend_from_slice(&bits.to_le_bytes()[..out_size]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_to_bf16_rounds_each_element() {
        let input: Vec<u8> = [0.1f32, 1.0, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let out = cast_bytes(&input, FormatId::F32, FormatId::Bf16, Overflow::Native).unwrap();
        assert_eq!(out, vec![0xCD, 0x3D, 0x80, 0x3F, 0x00, 0xC0]);
    }

    #[test]
    fn ragged_input_is_an_error_naming_the_leftover() {
        let err = cast_bytes(&[0; 5], FormatId::F32, FormatId::F16, Overflow::Native).unwrap_err();
        assert!(err.to_string().contains("1 bytes left over"));
        assert!(cast_bytes(&[0; 2], FormatId::Int4, FormatId::F16, Overflow::Native).is_err());
    }
}
