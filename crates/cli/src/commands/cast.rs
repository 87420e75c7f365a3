//! `bitbudget cast --from F --to G IN OUT`.

use crate::io::{read_all, write_all};
use bitbudget_math::format::cast::cast_bytes;
use bitbudget_math::format::{FormatId, Overflow};
use clap::{Args, ValueEnum};

/// The byte-aligned float formats `cast` accepts.
#[derive(Clone, Copy, ValueEnum)]
pub enum CastFormat {
    /// IEEE binary32, 4 bytes per element.
    F32,
    /// IEEE binary16, 2 bytes.
    F16,
    /// bfloat16, 2 bytes.
    Bf16,
    /// OCP FP8 E4M3 (FN: max 448, no inf), 1 byte.
    F8e4m3,
    /// OCP FP8 E5M2 (max 57344, has inf), 1 byte.
    F8e5m2,
}

impl From<CastFormat> for FormatId {
    fn from(f: CastFormat) -> Self {
        match f {
            CastFormat::F32 => FormatId::F32,
            CastFormat::F16 => FormatId::F16,
            CastFormat::Bf16 => FormatId::Bf16,
            CastFormat::F8e4m3 => FormatId::F8E4M3,
            CastFormat::F8e5m2 => FormatId::F8E5M2,
        }
    }
}

/// Arguments of `cast`. Rounding is to nearest, ties to even; overflow gives ±inf (FP16, BF16,
/// E5M2) or NaN (E4M3) unless `--saturate`.
#[derive(Args)]
pub struct CastArgs {
    /// Input format.
    #[arg(long, value_enum)]
    from: CastFormat,
    /// Output format.
    #[arg(long, value_enum)]
    to: CastFormat,
    /// Clamp out-of-range values to ±max instead of ±inf/NaN.
    #[arg(long)]
    saturate: bool,
    /// Input file of raw little-endian elements, or - for stdin.
    input: String,
    /// Output file, or - for stdout.
    output: String,
}

/// Runs `cast`.
pub fn run(args: CastArgs) -> Result<(), String> {
    let input = read_all(&args.input)?;
    let overflow = if args.saturate {
        Overflow::Saturate
    } else {
        Overflow::Native
    };
    let out = cast_bytes(&input, args.from.into(), args.to.into(), overflow)
        .map_err(|e| format!("{}: {e}", args.input))?;
    write_all(&args.output, &out)
}
