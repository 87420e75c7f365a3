//! `bitbudget bits --format bf16 0.1`: the layout of a value as text (or JSON), and with
//! `--svg FILE` as the app's bit-layout and number-line SVG.

use crate::commands::chart_out::write_svg;
use bitbudget_charts::documents;
use bitbudget_math::format::{
    bit_roles, describe, parse_value, BitRole, Described, FormatFacts, FormatId, Overflow,
};
use clap::Args;

/// Arguments of `bits`.
#[derive(Args)]
pub struct BitsArgs {
    /// Format: f32 f16 bf16 f8e4m3 f8e5m2 f6e3m2 f6e2m3 f4e2m1 int8 uint8 int4.
    #[arg(long, short)]
    format: FormatId,
    /// The value: a decimal, 1e-3, a 0x bit pattern of the format, inf, nan, max, min,
    /// min_subnormal, eps.
    #[arg(allow_hyphen_values = true)]
    value: String,
    /// Clamp out-of-range values to ±max instead of ±inf/NaN.
    #[arg(long)]
    saturate: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also write the bit layout and number line as SVG to FILE (- for stdout, instead of text);
    /// the same document as the Bits page's SVG download.
    #[arg(long, value_name = "FILE")]
    svg: Option<String>,
}

/// Runs `bits`.
pub fn run(args: BitsArgs) -> Result<(), String> {
    let parsed = parse_value(&args.value, args.format).map_err(|e| e.to_string())?;
    let overflow = if args.saturate {
        Overflow::Saturate
    } else {
        Overflow::Native
    };
    if let Some(path) = &args.svg {
        if path == "-" && args.json {
            return Err("--svg - and --json both write to stdout: give --svg a file name".into());
        }
        let svg =
            documents::bits(args.format, parsed.value, overflow).map_err(|e| e.to_string())?;
        write_svg(path, &svg)?;
        if path == "-" {
            return Ok(());
        }
    }
    let d = describe(args.format, parsed.value, overflow);
    if args.json {
        let facts = FormatFacts::of(args.format);
        let json = serde_json::json!({ "input": parsed.value, "described": d, "facts": facts });
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        return crate::io::emit(&format!("{text}\n"));
    }
    if let Some(note) = parsed.note {
        crate::io::emit(&format!("note: {note}\n"))?;
    }
    crate::io::emit(&render_text(&d, parsed.value))?;
    Ok(())
}

fn render_text(d: &Described, x: f64) -> String {
    let id = d.id;
    let roles = bit_roles(id);
    let bit_string = |role: fn(&BitRole) -> bool| -> String {
        roles
            .iter()
            .enumerate()
            .filter(|(_, r)| role(r))
            .map(|(i, _)| {
                if d.bits >> (id.bits() - 1 - i as u32) & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect()
    };
    let mut out = format!(
        "{} ({} bits)  bits {:0width$b}  hex 0x{:0hex$X}\n",
        id.label(),
        id.bits(),
        d.bits,
        d.bits,
        width = id.bits() as usize,
        hex = id.bits().div_ceil(4) as usize
    );
    if id.is_float() {
        out += &format!("  sign      {}\n", bit_string(|r| *r == BitRole::Sign));
        out += &format!("  exponent  {}\n", bit_string(|r| *r == BitRole::Exponent));
        out += &format!("  mantissa  {}\n", bit_string(|r| *r == BitRole::Mantissa));
    } else {
        let weights: Vec<String> = roles
            .iter()
            .map(|r| match r {
                BitRole::Integer { weight } => weight.to_string(),
                _ => String::new(),
            })
            .collect();
        // "two's complement" or "unsigned": the facts table's name for the encoding.
        let encoding = FormatFacts::of(id).fields;
        out += &format!("  {encoding} weights {}\n", weights.join(" "));
    }
    out += &format!("  decoding  {}\n", d.formula);
    out += &format!("  input     {x:e}\n  stored    {}\n", d.stored_exact);
    out += &format!("  error     {:e} absolute", d.abs_error);
    match d.rel_error {
        Some(r) => out += &format!(", {r:e} relative\n"),
        None => out += "\n",
    }
    if let Some(note) = &d.note {
        out += &format!("  note      {note}\n");
    }
    out
}
