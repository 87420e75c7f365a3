//! The SVG documents the CLI writes and the app offers as downloads: fixed sizes, the light theme
//! and [`Scale`] 1, so that the same state gives the same bytes on both sides (checked against
//! `tests/fixtures/*.svg` by the CLI's tests and the browser tests).

use crate::error::ChartError;
use crate::palette::LIGHT;
use crate::quant::{errors, heatmap, tradeoff, values};
use crate::style::Scale;
use crate::{bit_layout, memory_bar, number_line, scaling, strategies, Chart};
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::memory::estimate;
use bitbudget_math::memory::plan::{by_strategy, sweep, Strategy};
use bitbudget_math::memory::Setup;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use bitbudget_math::quant::scheme::Scheme;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Width of every document in pixels (the quantization report is two such columns).
pub const WIDTH: u32 = 720;

/// Draws one chart onto its part of a document.
type Draw<'a> = &'a dyn Fn(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), ChartError>;

/// Draws `charts` in rows of `columns`, each `WIDTH` wide and as tall as given (a row is as tall
/// as its tallest chart), into one SVG document.
fn stack(charts: &[(u32, Draw<'_>)], columns: u32) -> Result<String, ChartError> {
    let rows = (charts.len() as u32).div_ceil(columns.max(1));
    let row_height = |r: u32| {
        charts
            .iter()
            .skip((r * columns) as usize)
            .take(columns as usize)
            .map(|(h, _)| *h)
            .max()
            .unwrap_or(0)
    };
    let height: u32 = (0..rows).map(row_height).sum();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH * columns, height)).into_drawing_area();
        let mut y = 0;
        for r in 0..rows {
            for c in 0..columns {
                let Some((h, draw)) = charts.get((r * columns + c) as usize) else {
                    break;
                };
                let x = (c * WIDTH) as i32;
                let area = root.clone().shrink((x, y as i32), (WIDTH, *h));
                draw(&area)?;
            }
            y += row_height(r);
        }
        root.present()?;
    }
    Ok(crate::style::restore_font_sizes(&out))
}

/// `chart` drawn in the light theme at scale 1.
fn one<C: Chart>(
    chart: &C,
) -> impl Fn(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), ChartError> + '_ {
    move |area| chart.draw(area, &LIGHT, Scale(1.0)).map(|_| ())
}

/// The Bits document: `x` stored in `id` as a bit-layout diagram above the format's number line,
/// `WIDTH` × ([`bit_layout::HEIGHT`] + [`number_line::HEIGHT`]) pixels.
pub fn bits(id: FormatId, x: f64, overflow: Overflow) -> Result<String, ChartError> {
    let layout = bit_layout::Input { id, x, overflow };
    let line = number_line::Input { id, x, overflow };
    let (a, b) = (one(&layout), one(&line));
    stack(&[(bit_layout::HEIGHT, &a), (number_line::HEIGHT, &b)], 1)
}

/// The charts of the Memory page, as named on the command line (`--chart bar|strategies|scaling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryChart {
    /// One GPU's memory as a stacked bar ([`memory_bar`]).
    Bar,
    /// Every sharding strategy side by side ([`strategies`]).
    Strategies,
    /// Per-GPU memory against the number of GPUs ([`scaling`]).
    Scaling,
}

impl MemoryChart {
    /// Every chart, in the page's order.
    pub const ALL: [MemoryChart; 3] = [
        MemoryChart::Bar,
        MemoryChart::Strategies,
        MemoryChart::Scaling,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            MemoryChart::Bar => "bar",
            MemoryChart::Strategies => "strategies",
            MemoryChart::Scaling => "scaling",
        }
    }
}

impl std::fmt::Display for MemoryChart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for MemoryChart {
    type Err = ChartError;
    /// Parses `bar`, `strategies` or `scaling` (surrounding spaces and case ignored).
    fn from_str(s: &str) -> Result<Self, ChartError> {
        let t = s.trim().to_ascii_lowercase();
        MemoryChart::ALL
            .into_iter()
            .find(|c| c.name() == t)
            .ok_or_else(|| {
                ChartError::Input(format!(
                    "unknown chart '{s}': expected one of bar, strategies, scaling"
                ))
            })
    }
}

/// One chart of the Memory page for `setup`, `WIDTH` pixels wide and as tall as on the page.
/// An invalid setup is an [`ChartError::Input`] with the estimator's message (for the bar; the
/// other two charts show each strategy's validity themselves).
pub fn memory(setup: &Setup, chart: MemoryChart) -> Result<String, ChartError> {
    let capacity = setup.gpu.as_ref().map(|g| (g.capacity_bytes, g.name));
    match chart {
        MemoryChart::Bar => {
            let b = estimate(setup).map_err(|e| ChartError::Input(e.to_string()))?;
            let input = memory_bar::Input {
                breakdown: &b,
                capacity,
                units: setup.units,
                highlight: None,
            };
            crate::svg(&input, memory_bar::SVG_WIDTH, memory_bar::HEIGHT, &LIGHT)
        }
        MemoryChart::Strategies => {
            let bars = by_strategy(setup);
            let input = strategies::Input {
                bars: &bars,
                capacity: capacity.map(|c| c.0),
                current: Strategy {
                    zero: setup.zero,
                    offload: setup.offload,
                },
                units: setup.units,
            };
            crate::svg(&input, strategies::SVG_WIDTH, strategies::HEIGHT, &LIGHT)
        }
        MemoryChart::Scaling => {
            let lines = sweep(setup);
            let input = scaling::Input {
                lines: &lines,
                capacity,
                units: setup.units,
            };
            crate::svg(&input, scaling::SVG_WIDTH, scaling::HEIGHT, &LIGHT)
        }
    }
}

/// The Quantize lab's charts for one scheme of one tensor, two columns by two rows of `WIDTH` ×
/// [`crate::quant::HEIGHT`]: values with levels, error histogram, block-error map, and the
/// trade-off of every scheme in `rows` with `selected` ringed.
pub fn quant_report(
    overview: &Overview,
    detail: &SchemeDetail,
    rows: &[SchemeResult],
    selected: Scheme,
) -> Result<String, ChartError> {
    let h = crate::quant::HEIGHT;
    let v = values::Input { overview, detail };
    let e = errors::Input {
        errors: &detail.errors,
    };
    let m = heatmap::Input { detail };
    let t = tradeoff::Input { rows, selected };
    let (v, e, m, t) = (one(&v), one(&e), one(&m), one(&t));
    stack(&[(h, &v), (h, &e), (h, &m), (h, &t)], 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::memory::ModelSpec;
    use bitbudget_math::quant::generate::{generate, Distribution};
    use bitbudget_math::quant::lab::analyse;

    fn is_svg(s: &str) -> bool {
        s.starts_with("<svg") && s.trim_end().ends_with("</svg>")
    }

    #[test]
    fn bits_documents_draw_every_format_and_awkward_value_without_panicking() {
        for id in FormatId::ALL {
            for x in [
                0.1,
                0.0,
                -0.0,
                1e15,
                -1e-300,
                f64::NAN,
                f64::INFINITY,
                f64::MIN_POSITIVE,
            ] {
                for overflow in [Overflow::Native, Overflow::Saturate] {
                    let svg = bits(id, x, overflow).unwrap_or_else(|e| panic!("{id:?} {x}: {e}"));
                    assert!(is_svg(&svg), "{id:?} {x}");
                    assert!(svg.contains(&format!(
                        "height=\"{}\"",
                        bit_layout::HEIGHT + number_line::HEIGHT
                    )));
                }
            }
        }
    }

    #[test]
    fn the_same_bits_state_gives_the_same_bytes() {
        let a = bits(FormatId::F16, 65504.0, Overflow::Native).unwrap();
        let b = bits(FormatId::F16, 65504.0, Overflow::Native).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, bits(FormatId::F16, 1.0, Overflow::Native).unwrap());
    }

    #[test]
    fn memory_chart_names_round_trip_and_a_bad_name_says_what_is_expected() {
        for c in MemoryChart::ALL {
            assert_eq!(c.to_string().parse::<MemoryChart>(), Ok(c));
        }
        assert_eq!(" Bar ".parse::<MemoryChart>(), Ok(MemoryChart::Bar));
        let e = "pie".parse::<MemoryChart>().unwrap_err().to_string();
        assert!(
            e.contains("'pie'") && e.contains("bar, strategies, scaling"),
            "{e}"
        );
    }

    #[test]
    fn every_memory_chart_of_a_valid_setup_is_an_svg_of_its_size() {
        let setup = Setup::new(ModelSpec::Params(8_000_000_000));
        for (chart, h) in [
            (MemoryChart::Bar, memory_bar::HEIGHT),
            (MemoryChart::Strategies, strategies::HEIGHT),
            (MemoryChart::Scaling, scaling::HEIGHT),
        ] {
            let svg = memory(&setup, chart).unwrap();
            assert!(is_svg(&svg), "{chart}");
            assert!(
                svg.contains(&format!("width=\"{WIDTH}\" height=\"{h}\"")),
                "{chart}"
            );
        }
    }

    #[test]
    fn an_invalid_memory_setup_is_an_input_error_with_the_estimators_message() {
        let setup = Setup {
            dp: 0,
            ..Setup::new(ModelSpec::Params(8_000_000_000))
        };
        match memory(&setup, MemoryChart::Bar) {
            Err(ChartError::Input(m)) => assert!(!m.is_empty()),
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn the_quant_report_is_two_by_two_lab_charts() {
        let x = generate(Distribution::Normal, 16, 64, 1.0, 7);
        let overview = Overview::new(&x);
        let mut rows = Vec::new();
        let mut detail = None;
        for s in [Scheme::Nf4, Scheme::F8E4M3] {
            let (row, d) = analyse(s, &x, s.default_block(), false).unwrap();
            rows.push(row);
            detail.get_or_insert(d);
        }
        let svg = quant_report(&overview, &detail.unwrap(), &rows, Scheme::Nf4).unwrap();
        let h = crate::quant::HEIGHT * 2;
        assert!(svg.starts_with(&format!("<svg width=\"{}\" height=\"{h}\"", 2 * WIDTH)));
        assert_eq!(svg.matches("Accuracy vs storage").count(), 1);
    }
}
