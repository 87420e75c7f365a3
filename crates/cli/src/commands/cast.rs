//! `bitbudget cast --from F --to G IN OUT`, streamed: chunks of whole elements on every core, in
//! bounded memory.

use crate::commands::quantize::into_sink;
use crate::stream::{pipe, Source, Units};
use bitbudget_math::format::cast::{cast_bytes, elem_bytes, CastError};
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

/// Runs `cast`. A ragged regular file is refused before anything is written; a ragged stdin
/// after its whole elements were written.
pub fn run(args: CastArgs) -> Result<(), String> {
    let mut src = Source::open(&args.input)?;
    let (from, to): (FormatId, FormatId) = (args.from.into(), args.to.into());
    let overflow = if args.saturate {
        Overflow::Saturate
    } else {
        Overflow::Native
    };
    let named = |e: CastError| format!("{}: {e}", args.input);
    let units = Units {
        unit_in: elem_bytes(from).map_err(named)?,
        unit_out: elem_bytes(to).map_err(named)?,
        group: 1,
    };
    let ragged = |len: u64| CastError::RaggedInput {
        len: len as usize,
        elem_bytes: units.unit_in,
        from,
    };
    if let Some(len) = src.len().filter(|len| len % units.unit_in as u64 != 0) {
        return Err(named(ragged(len)));
    }
    into_sink(&args.output, |sink| {
        let (total, tail) = pipe(&mut src, sink, &units, |input, out| {
            let bytes = cast_bytes(input, from, to, overflow).map_err(named)?;
            out.copy_from_slice(&bytes);
            Ok(())
        })?;
        match tail {
            0 => Ok(()),
            _ => Err(named(ragged(total))),
        }
    })
}
