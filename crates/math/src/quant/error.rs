//! Why a quantization request cannot be done: one enum for scheme names, block sizes, byte
//! lengths and tensor files, so that callers can match on the case and every message reads the
//! same wherever it is shown (CLI, page).

use super::kquants::LengthError;
use super::scheme::Scheme;
use std::fmt;

/// A quantization error. `Display` gives a plain sentence fragment, without a trailing period,
/// meant to be prefixed by what it is about (a file name, a scheme).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuantError {
    /// A scheme name that none of [`Scheme::ALL`] has (the name as given).
    UnknownScheme(String),
    /// A block size other than the fixed one of a GGML format (or MXFP4).
    FixedBlock {
        /// The scheme.
        scheme: Scheme,
        /// The only block size it takes, in values.
        block: usize,
    },
    /// A block size given to a scheme with one per-tensor scale (FP8).
    BlockNotApplicable(Scheme),
    /// A block size outside 1..=[`MAX_BLOCK`], in values.
    BlockOutOfRange(usize),
    /// An odd block size for a scheme that packs two 4-bit codes per byte.
    OddBlock(Scheme),
    /// A number of values that is not a whole number of blocks.
    Ragged {
        /// Values given.
        values: usize,
        /// Values per block.
        block: usize,
    },
    /// A column count outside 1..=[`MAX_BLOCK`] for a 2D scheme (`fp8-128x128`).
    ColumnsOutOfRange(usize),
    /// A 2D scheme given no column count (a 1D tensor without a shape).
    NeedsColumns(Scheme),
    /// A number of values that is not a whole number of rows of the tensor's columns.
    Rows {
        /// Values given.
        values: usize,
        /// Columns per row.
        cols: usize,
    },
    /// A byte length that is not a whole number of the scheme's blocks (or 2-byte values).
    ByteLength {
        /// The scheme.
        scheme: Scheme,
        /// Bytes given.
        bytes: usize,
        /// Bytes per block (or per value).
        stride: usize,
    },
    /// Bytes too short for the scheme's per-tensor header (FP8's 4-byte scale).
    MissingHeader {
        /// The scheme.
        scheme: Scheme,
        /// Bytes given.
        bytes: usize,
        /// Bytes the header needs.
        header: usize,
    },
    /// A part's produced bytes or values whose length does not match the part (a backend bug).
    PartLength {
        /// What was wrong ("bytes" or "values").
        what: &'static str,
        /// The length produced.
        got: usize,
        /// The length expected.
        expected: usize,
    },
    /// A tensor file over the largest size a reader accepts.
    FileTooLarge {
        /// The file's size in bytes.
        bytes: usize,
        /// The largest size accepted, in bytes.
        limit: usize,
    },
    /// A dtype that the reader cannot decode.
    UnsupportedDtype {
        /// The dtype as written in the file.
        dtype: String,
        /// What to use instead.
        expected: &'static str,
    },
    /// No tensor of that name in a safetensors file.
    NoSuchTensor(String),
    /// A malformed or truncated tensor file, and what is wrong with it.
    BadFile(String),
    /// Lengths that a block format's module refused (K-quants, IQ4_NL, NVFP4, MX).
    Length(LengthError),
    /// The random Hadamard transform or stochastic rounding asked of a scheme that does not take
    /// them (only the block-scaled FP4 schemes do, [`super::scheme::FP4_OPTION_SCHEMES`]); the option's
    /// CLI name (`--rht` or `--sr`).
    Fp4Option {
        /// The scheme.
        scheme: Scheme,
        /// The option's name.
        option: &'static str,
    },
}

impl From<LengthError> for QuantError {
    fn from(e: LengthError) -> Self {
        QuantError::Length(e)
    }
}

/// Largest block size accepted, in values (2^24).
pub const MAX_BLOCK: usize = 1 << 24;

impl fmt::Display for QuantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuantError::Fp4Option { scheme, option } => write!(
                f,
                "{option} applies to {} only, not {scheme}",
                super::scheme::FP4_OPTION_SCHEMES
                    .map(|s| s.name())
                    .join(" and ")
            ),
            QuantError::UnknownScheme(given) => {
                let names: Vec<&str> = Scheme::ALL.iter().map(|x| x.name()).collect();
                write!(
                    f,
                    "unknown scheme '{given}'; expected one of {}",
                    names.join(" ")
                )
            }
            QuantError::FixedBlock { scheme, block } => {
                write!(f, "{scheme} has a fixed block of {block} weights")
            }
            QuantError::BlockNotApplicable(s) => {
                write!(f, "{s} uses one per-tensor scale: --block does not apply")
            }
            QuantError::BlockOutOfRange(b) => {
                write!(f, "block {b} must be between 1 and {MAX_BLOCK}")
            }
            QuantError::OddBlock(s) => {
                write!(f, "{s} packs two codes per byte: the block must be even")
            }
            QuantError::Ragged { values, block } => write!(
                f,
                "{values} weights is not a whole number of {block}-weight blocks ({} left over)",
                values % (*block).max(1)
            ),
            QuantError::ColumnsOutOfRange(c) => {
                write!(f, "{c} columns: a row must have between 1 and {MAX_BLOCK}")
            }
            QuantError::NeedsColumns(s) => write!(
                f,
                "{s} quantizes 2D blocks: it needs the tensor's column count (a shape, or --cols)"
            ),
            QuantError::Rows { values, cols } => write!(
                f,
                "{values} weights is not a whole number of rows of {cols} columns ({} left over)",
                values % (*cols).max(1)
            ),
            QuantError::ByteLength {
                scheme,
                bytes,
                stride,
            } => write!(
                f,
                "{bytes} bytes is not a whole number of {stride}-byte {scheme} blocks"
            ),
            QuantError::MissingHeader {
                scheme,
                bytes,
                header,
            } => write!(
                f,
                "{bytes} bytes is too short for a {scheme} tensor ({header}-byte scale first)"
            ),
            QuantError::PartLength {
                what,
                got,
                expected,
            } => write!(
                f,
                "a part came back with {got} {what} where {expected} were expected"
            ),
            QuantError::FileTooLarge { bytes, limit } => write!(
                f,
                "the file is {} MiB; the limit is {} MiB",
                bytes >> 20,
                limit >> 20
            ),
            QuantError::UnsupportedDtype { dtype, expected } => {
                write!(f, "dtype {dtype} is not supported: use {expected}")
            }
            QuantError::NoSuchTensor(name) => write!(f, "no tensor named '{name}' in the file"),
            QuantError::BadFile(why) => f.write_str(why),
            QuantError::Length(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for QuantError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::ggml::GgmlType;

    #[test]
    fn messages_name_the_numbers_and_the_scheme() {
        let ragged = QuantError::Ragged {
            values: 65,
            block: 64,
        };
        assert_eq!(
            ragged.to_string(),
            "65 weights is not a whole number of 64-weight blocks (1 left over)"
        );
        let bytes = QuantError::ByteLength {
            scheme: Scheme::Ggml(GgmlType::Q8_0),
            bytes: 35,
            stride: 34,
        };
        assert_eq!(
            bytes.to_string(),
            "35 bytes is not a whole number of 34-byte q8_0 blocks"
        );
        assert!(QuantError::UnknownScheme("q3_k".into())
            .to_string()
            .contains("q8_0 q4_0"));
    }
}
