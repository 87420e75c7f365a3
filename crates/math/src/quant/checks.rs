//! Checks of a quantization request against its scheme: the block size a scheme takes, whether
//! values fill whole blocks, and a scheme's name read from text.

use super::error::{QuantError, MAX_BLOCK};
use super::scheme::Scheme;

impl Scheme {
    /// Whether the scheme stores llama.cpp's block bytes with a fixed block (GGML, MXFP4, the
    /// K-quants, IQ4_NL, NVFP4) or the MX formats' fixed blocks: any other block size is a
    /// [`QuantError::FixedBlock`].
    const fn is_fixed_block_format(self) -> bool {
        matches!(
            self,
            Scheme::Ggml(_) | Scheme::KQuant(_) | Scheme::Iq4Nl | Scheme::Nvfp4 | Scheme::Mx(_)
        )
    }

    /// Checks a requested block size (`None`: the default); the block formats only take their
    /// [`Scheme::fixed_block`], FP8 takes none, NF4 needs an even size, and every block is
    /// 1..=[`MAX_BLOCK`] values. For `fp8-128x128` the block is the tensor's column count,
    /// 1..=[`MAX_BLOCK`] ([`QuantError::ColumnsOutOfRange`] otherwise).
    pub fn block(self, requested: Option<usize>) -> Result<usize, QuantError> {
        let b = requested.unwrap_or(self.default_block());
        match self {
            _ if self.is_fixed_block_format() && b != self.default_block() => {
                Err(QuantError::FixedBlock {
                    scheme: self,
                    block: self.default_block(),
                })
            }
            Scheme::F8E4M3 | Scheme::F8E5M2 if requested.is_some() => {
                Err(QuantError::BlockNotApplicable(self))
            }
            Scheme::Fp8Block if b == 0 || b > MAX_BLOCK => Err(QuantError::ColumnsOutOfRange(b)),
            _ if b == 0 || b > MAX_BLOCK => Err(QuantError::BlockOutOfRange(b)),
            Scheme::Nf4 if b % 2 == 1 => Err(QuantError::OddBlock(self)),
            _ => Ok(b),
        }
    }
}

// A [`Scheme::name`], parsed ignoring case and surrounding spaces.
crate::name_text!(Scheme, QuantError, |s: &str| QuantError::UnknownScheme(
    s.to_string()
));

/// `Ok` when `values` is a whole number of blocks of `block` (0 is taken as 1).
pub fn whole_blocks(values: usize, block: usize) -> Result<(), QuantError> {
    if values % block.max(1) == 0 {
        Ok(())
    } else {
        Err(QuantError::Ragged {
            values,
            block: block.max(1),
        })
    }
}
