//! `bitbudget quantize` and `bitbudget dequantize`: raw little-endian f32 in, scheme bytes out, and
//! back; `quantize --report` prints error metrics as JSON.
//!
//! On the CPU both stream (see [`super::quantize_stream`]): bounded memory, every core. Three
//! paths stay one-shot, holding the whole tensor: `--report` (its metrics and charts are of the
//! whole tensor, and the lab's analysis it draws keeps the input), `--device gpu` (one upload and
//! one readback), and a per-tensor scheme (FP8, NF4 `--double-quant`) read from stdin, which
//! cannot be read twice.
//!
//! `--report --device gpu` measures on the GPU as well (the lab's measuring pass,
//! `bitbudget_gpu::measure_part`): the counts equal the CPU's, the other metrics are within
//! `bitbudget_gpu::SUM_TOLERANCE`.

use crate::commands::gpu_device::{self, Device};
use crate::commands::quantize_stream::{
    check_f32_input, dequantize_streamed, needs_whole_tensor, quantize_streamed,
};
use crate::io::{emit, read_all, write_all};
use crate::stream::{Sink, Source};
use bitbudget_math::quant::codec::{dequantize, nf4_double_quant_bytes, quantize};
use bitbudget_math::quant::error::QuantError;
use bitbudget_math::quant::fp4_options::{self, parse_seed, Fp4Options};
use bitbudget_math::quant::metrics::error_metrics;
use bitbudget_math::quant::scheme::{Scheme, FP8_BLOCK, FP8_TILE};
use clap::Args;

/// Arguments of `quantize`.
#[derive(Args)]
pub struct QuantizeArgs {
    #[arg(long, help = scheme_help())]
    scheme: Scheme,
    /// Weights per block (fixed for the llama.cpp and MX formats: 32, or 256 for the K-quants,
    /// 64 for nvfp4; default 64 for absmax, zero-point and nf4).
    #[arg(long, allow_hyphen_values = true, value_parser = crate::commands::presets::parse_count)]
    block: Option<u64>,
    /// The tensor's column count (raw f32 has no shape): fp8-128x128 needs it for its 128×128
    /// blocks; with fp8-1x128 it must be a multiple of 128, so that the tiles follow rows.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::commands::presets::parse_count)]
    cols: Option<u64>,
    /// Print error metrics of a round trip as JSON instead of writing bytes.
    #[arg(long)]
    report: bool,
    /// With --report: also write the Quantize lab's charts for this tensor as one SVG to FILE
    /// (- for stdout, instead of the JSON).
    #[arg(long, value_name = "FILE", requires = "report")]
    svg: Option<String>,
    /// nf4 only: double-quantize the block scales as QLoRA does (the bytes keep the nf4 layout,
    /// with the reconstructed scales; storage is reported as 4.127 bits per weight at block 64).
    #[arg(long)]
    double_quant: bool,
    /// nvfp4 and mxfp4 only: rotate every 16 values with the random Hadamard transform of this
    /// seed (0 to 2^64−1) before quantizing; the bytes then need the same --rht to dequantize.
    #[arg(long, value_name = "SEED", allow_hyphen_values = true, value_parser = seed)]
    rht: Option<u64>,
    /// nvfp4 and mxfp4 only: stochastic rounding with this seed (0 to 2^64−1) instead of round
    /// to nearest: each value goes to one of its two neighbouring codes with probability by
    /// distance, drawn from a hash of the seed and the value's index (reproducible).
    #[arg(long, value_name = "SEED", allow_hyphen_values = true, value_parser = seed)]
    sr: Option<u64>,
    /// Where to quantize: cpu, or gpu (wgpu; the same bytes).
    #[arg(long, value_enum, default_value_t)]
    device: Device,
    /// Raw little-endian f32 input, or - for stdin.
    input: String,
    /// Output file, or - for stdout (not used with --report).
    #[arg(required_unless_present = "report")]
    output: Option<String>,
}

/// Arguments of `dequantize`.
#[derive(Args)]
pub struct DequantizeArgs {
    /// The scheme the input was written with (the names of `quantize --help`).
    #[arg(long)]
    scheme: Scheme,
    /// Weights per block, as used when quantizing.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::commands::presets::parse_count)]
    block: Option<u64>,
    /// The column count used when quantizing (fp8-128x128, fp8-1x128).
    #[arg(long, allow_hyphen_values = true, value_parser = crate::commands::presets::parse_count)]
    cols: Option<u64>,
    /// nvfp4 and mxfp4 only: the --rht seed the bytes were written with (the inverse transform
    /// is applied after decoding).
    #[arg(long, value_name = "SEED", allow_hyphen_values = true, value_parser = seed)]
    rht: Option<u64>,
    /// nvfp4 and mxfp4 only: the --sr seed used when quantizing (accepted for symmetry and
    /// checked against the scheme; stochastically rounded codes decode as any others).
    #[arg(long, value_name = "SEED", allow_hyphen_values = true, value_parser = seed)]
    sr: Option<u64>,
    /// Where to dequantize: cpu, or gpu (wgpu; the same values).
    #[arg(long, value_enum, default_value_t)]
    device: Device,
    /// Quantized bytes, or - for stdin.
    input: String,
    /// Raw little-endian f32 output, or - for stdout.
    output: String,
}

/// `--scheme`'s help: the names of [`Scheme::ALL`], the one list of schemes (parsed by
/// [`Scheme`]'s `FromStr`, which ignores case and takes `_` and `-` as the same; an unknown name
/// gets the same list in its error).
fn scheme_help() -> String {
    let names: Vec<&str> = Scheme::ALL.iter().map(|s| s.name()).collect();
    format!("The scheme: {}", names.join(" "))
}

/// `--rht` and `--sr`'s parser ([`parse_seed`]'s messages).
fn seed(text: &str) -> Result<u64, String> {
    parse_seed(text)
}

/// The raw little-endian f32 values of the file at `path` (- = stdin); a length not a multiple
/// of 4 is an error naming the file.
pub fn read_f32(path: &str) -> Result<Vec<f32>, String> {
    let bytes = read_all(path)?;
    if bytes.len() % 4 != 0 {
        return Err(check_f32_input(path, bytes.len() as u64, 1).unwrap_err());
    }
    let mut values = Vec::new();
    crate::stream::f32s_from_le(&bytes, &mut values);
    Ok(values)
}

/// Runs `body` on a sink for `path`; on an error, a partly written output file is removed.
pub fn into_sink(
    path: &str,
    body: impl FnOnce(&mut Sink) -> Result<(), String>,
) -> Result<(), String> {
    let mut sink = Sink::new(path);
    match body(&mut sink) {
        Ok(()) => sink.finish(),
        Err(e) => {
            sink.abandon();
            Err(e)
        }
    }
}

fn block(scheme: Scheme, requested: Option<u64>) -> Result<usize, String> {
    scheme
        .block(requested.map(|b| b.min(usize::MAX as u64) as usize))
        .map_err(|e| e.to_string())
}

/// The codec's `block` argument from `--block` and `--cols`: for fp8-128x128 the column count
/// (required); for fp8-1x128 its 128-value tiles, `--cols` a multiple of 128; no other scheme
/// takes `--cols`.
fn block_and_cols(scheme: Scheme, block: Option<u64>, cols: Option<u64>) -> Result<usize, String> {
    let cols = cols.map(|c| c.min(usize::MAX as u64) as usize);
    match (scheme, cols) {
        (Scheme::Fp8Block, _) if block.is_some() => Err(format!(
            "{scheme} has fixed 128×128 blocks: --block does not apply (give the columns with --cols)"
        )),
        (Scheme::Fp8Block, None) => Err(QuantError::NeedsColumns(scheme).to_string()),
        (Scheme::Fp8Block, Some(c)) => scheme.block(Some(c)).map_err(|e| e.to_string()),
        (Scheme::Fp8Tile, Some(c)) if c == 0 || c % FP8_TILE != 0 => Err(format!(
            "{scheme} tiles each row in 128s: --cols {c} must be a positive multiple of 128"
        )),
        (Scheme::Fp8Tile, _) | (_, None) => self::block(scheme, block),
        (_, Some(_)) => Err(format!(
            "--cols applies to {} and {} only",
            Scheme::Fp8Tile,
            Scheme::Fp8Block
        )),
    }
}

/// Checks that `values` are whole rows of `--cols` (when given).
fn check_rows(path: &str, values: usize, cols: Option<u64>) -> Result<(), String> {
    match cols.map(|c| c.min(usize::MAX as u64) as usize) {
        Some(cols) if cols > 0 && values % cols != 0 => {
            Err(format!("{path}: {}", QuantError::Rows { values, cols }))
        }
        _ => Ok(()),
    }
}

/// Runs `quantize`: streamed, or one shot (see the module docs).
pub fn run_quantize(args: QuantizeArgs) -> Result<(), String> {
    let whole = needs_whole_tensor(args.scheme, args.double_quant) && args.input == "-";
    // A shape is checked, and 2D blocks are formed, on the whole tensor.
    let shaped = args.cols.is_some() || args.scheme == Scheme::Fp8Block;
    let opts = Fp4Options {
        rht: args.rht,
        sr: args.sr,
    };
    opts.check(args.scheme).map_err(|e| e.to_string())?;
    // The options' draws and transform are of the whole tensor, in memory.
    if !opts.is_none() || args.report || args.device == Device::Gpu || whole || shaped {
        return quantize_one_shot(args);
    }
    let mut src = Source::open(&args.input)?;
    let b = block(args.scheme, args.block)?;
    if args.double_quant && args.scheme != Scheme::Nf4 {
        return Err("--double-quant applies to --scheme nf4 only".into());
    }
    into_sink(args.output.as_deref().unwrap_or("-"), |sink| {
        quantize_streamed(&mut src, sink, args.scheme, b, args.double_quant)
    })
}

/// `quantize` with the whole tensor in memory.
fn quantize_one_shot(args: QuantizeArgs) -> Result<(), String> {
    let b = block_and_cols(args.scheme, args.block, args.cols)?;
    let x = read_f32(&args.input)?;
    check_rows(&args.input, x.len(), args.cols)?;
    if args.double_quant && args.scheme != Scheme::Nf4 {
        return Err("--double-quant applies to --scheme nf4 only".into());
    }
    let opts = Fp4Options {
        rht: args.rht,
        sr: args.sr,
    };
    if !opts.is_none() && args.svg.is_some() {
        return Err(
            "--svg draws round-to-nearest without a transform: leave out --rht and --sr".into(),
        );
    }
    let gpu = gpu_device::open(args.device)?;
    let bytes = if let Some(gpu) = &gpu {
        gpu_device::quantize(gpu, args.scheme, &x, b, args.double_quant, opts)
    } else if !opts.is_none() {
        fp4_options::quantize(args.scheme, &x, opts, 0).map_err(|e| e.to_string())
    } else if args.double_quant {
        nf4_double_quant_bytes(&x, b).map_err(|e| e.to_string())
    } else {
        quantize(args.scheme, &x, b).map_err(|e| e.to_string())
    }
    .map_err(|e| format!("{}: {e}", args.input))?;
    if args.report {
        if let Some(path) = &args.svg {
            let svg = crate::commands::chart_out::quant_report_svg(
                &x,
                args.scheme,
                b,
                args.double_quant,
            )?;
            crate::commands::chart_out::write_svg(path, &svg)?;
            if path == "-" {
                return Ok(());
            }
        }
        let y = match opts.is_none() {
            true => dequantize(args.scheme, &bytes, b),
            false => fp4_options::dequantize(args.scheme, &bytes, opts),
        }
        .map_err(|e| e.to_string())?;
        let m = match &gpu {
            Some(gpu) => {
                gpu_device::report_metrics(gpu, args.scheme, &x, b, args.double_quant, opts)
                    .map_err(|e| format!("{}: {e}", args.input))?
            }
            _ => error_metrics(&x, &y),
        };
        let bits = if args.double_quant {
            bitbudget_math::quant::nf4::bits_per_weight(b, true)
        } else {
            args.scheme.bits_per_weight(b, x.len())
        };
        let json = serde_json::json!({
            "scheme": args.scheme.name(),
            // Values per block (fp8-128x128: 128 × 128; its `b` is the column count).
            "block": if args.scheme.needs_columns() { FP8_BLOCK * FP8_BLOCK } else { b },
            "cols": args.cols,
            // The transform's seed (the bytes need it to decode) and stochastic rounding's.
            "rht": args.rht,
            "sr": args.sr,
            "weights": x.len(),
            "bytes": (bits * x.len() as f64 / 8.0).ceil() as u64,
            "bits_per_weight": bits,
            "mse": number(m.mse),
            "rmse": number(m.rmse),
            "max_abs_error": number(m.max_abs_error),
            "sqnr_db": number(m.sqnr_db),
            "cosine": number(m.cosine),
            // mean(dequantized − input) over finite pairs: the rounding's bias.
            "mean_error": number(fp4_options::mean_error(&x, &y)),
            "skipped_non_finite_inputs": m.skipped,
            "lost_to_non_finite_outputs": m.lost,
            "bytes_per_billion_params": (bits * 1e9 / 8.0).round() as u64,
        });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        return emit(&format!("{text}\n"));
    }
    write_all(args.output.as_deref().unwrap_or("-"), &bytes)
}

/// A JSON number, or the strings `"inf"`, `"-inf"` and `"nan"` (JSON has no such numbers).
fn number(v: f64) -> serde_json::Value {
    match v {
        v if v.is_nan() => "nan".into(),
        f64::INFINITY => "inf".into(),
        f64::NEG_INFINITY => "-inf".into(),
        v => v.into(),
    }
}

/// Runs `dequantize`: streamed on the CPU, one shot on the GPU.
pub fn run_dequantize(args: DequantizeArgs) -> Result<(), String> {
    let b = block_and_cols(args.scheme, args.block, args.cols)?;
    let opts = Fp4Options {
        rht: args.rht,
        sr: args.sr,
    };
    opts.check(args.scheme).map_err(|e| e.to_string())?;
    // fp8-128x128's last band may be short: its length is checked on the whole input. The
    // inverse transform runs on the whole tensor.
    if args.device == Device::Cpu && args.scheme != Scheme::Fp8Block && opts.rht.is_none() {
        let mut src = Source::open(&args.input)?;
        return into_sink(&args.output, |sink| {
            dequantize_streamed(&mut src, sink, args.scheme, b)
        });
    }
    let bytes = read_all(&args.input)?;
    let y = match gpu_device::open(args.device)? {
        Some(gpu) => gpu_device::dequantize(&gpu, args.scheme, &bytes, b, opts),
        None if opts.rht.is_some() => {
            fp4_options::dequantize(args.scheme, &bytes, opts).map_err(|e| e.to_string())
        }
        None => dequantize(args.scheme, &bytes, b).map_err(|e| e.to_string()),
    }
    .map_err(|e| format!("{}: {e}", args.input))?;
    let out: Vec<u8> = y.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_all(&args.output, &out)
}
