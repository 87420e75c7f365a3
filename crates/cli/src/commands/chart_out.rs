//! SVG output shared by the subcommands: the documents come from `bitbudget_charts::documents`,
//! the same code the app's downloads use, so the CLI and the app write the same bytes.

use crate::io::{emit, write_all};
use bitbudget_charts::documents;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::lab::{analyse, Overview};
use bitbudget_math::quant::scheme::Scheme;

/// Writes `svg` to `path`, `-` meaning stdout (quiet on a closed pipe, like all printed output).
pub fn write_svg(path: &str, svg: &str) -> Result<(), String> {
    if path == "-" {
        emit(svg)
    } else {
        write_all(path, svg.as_bytes())
    }
}

/// The Quantize lab's charts for `x` under `scheme` (block `block`), with every other scheme on the
/// trade-off chart at the same block where it takes one and its own block otherwise (as the lab
/// does); `double_quant` applies to NF4. Errors name the scheme that failed.
pub fn quant_report_svg(
    x: &[f32],
    scheme: Scheme,
    block: usize,
    double_quant: bool,
) -> Result<String, String> {
    if x.is_empty() {
        return Err("no values to chart: the input is empty".into());
    }
    let overview = Overview::new(x);
    let mut rows: Vec<SchemeResult> = Vec::with_capacity(Scheme::ALL.len());
    let mut selected = None;
    for s in Scheme::ALL {
        let b = if s == scheme {
            block
        } else {
            // fp8-128x128's block is a column count, which another scheme's block is not.
            s.block(Some(block))
                .ok()
                .filter(|_| !s.needs_columns())
                .unwrap_or_else(|| s.default_block())
        };
        let (row, detail) = analyse(s, x, b, double_quant).map_err(|e| format!("{s}: {e}"))?;
        rows.push(row);
        if s == scheme {
            selected = Some(detail);
        }
    }
    let detail = selected.ok_or_else(|| format!("{scheme} is not one of the lab's schemes"))?;
    documents::quant_report(&overview, &detail, &rows, scheme).map_err(|e| e.to_string())
}
