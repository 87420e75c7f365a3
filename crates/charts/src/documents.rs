//! The SVG documents the CLI writes and the app offers as downloads: fixed sizes, the light theme
//! and [`Scale`] 1, so that the same state gives the same bytes on both sides (checked against
//! `tests/fixtures/*.svg` by the CLI's tests and the browser tests).

use crate::error::ChartError;
use crate::palette::{Theme, LIGHT};
use crate::quant::{errors, heatmap, tradeoff, values};
use crate::style::{color, wrap, Scale};
use crate::{bit_layout, memory_bar, number_line, parallel_layout, scaling, strategies, Chart};
use crate::{Area, Drawn};
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::memory::plan::{by_strategy, sweep, Strategy, SweepLine};
use bitbudget_math::memory::{estimate, Breakdown, MemoryError};
use bitbudget_math::memory::{find_model, Mode, ModelSpec, Setup};
use bitbudget_math::numbers::format_count;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use bitbudget_math::quant::scheme::Scheme;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of every document in pixels (the quantization report is two such columns).
pub const WIDTH: u32 = 720;

/// Draws one chart onto its part of a document.
type Draw<'a> = &'a dyn Fn(&Area<SVGBackend<'_>>) -> Drawn;

/// Draws `charts` in rows of `columns`, each `WIDTH` wide and as tall as given (a row is as tall
/// as its tallest chart), into one SVG document.
fn stack(charts: &[(u32, Draw<'_>)], columns: u32) -> Drawn<String> {
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
fn one<C: Chart>(chart: &C) -> impl Fn(&Area<SVGBackend<'_>>) -> Drawn + '_ {
    move |area| chart.draw(area, &LIGHT, Scale(1.0)).map(|_| ())
}

/// The Bits document: `x` stored in `id` as a bit-layout diagram above the format's number line,
/// `WIDTH` × ([`bit_layout::HEIGHT`] + [`number_line::HEIGHT`]) pixels.
pub fn bits(id: FormatId, x: f64, overflow: Overflow) -> Drawn<String> {
    let layout = bit_layout::Input { id, x, overflow };
    let line = number_line::Input { id, x, overflow };
    let (a, b) = (one(&layout), one(&line));
    stack(&[(bit_layout::HEIGHT, &a), (number_line::HEIGHT, &b)], 1)
}

/// The charts of the Memory page, as named on the command line
/// (`--chart bar|strategies|scaling|layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryChart {
    /// One GPU's memory as a stacked bar ([`memory_bar`]).
    Bar,
    /// Every sharding strategy side by side ([`strategies`]).
    Strategies,
    /// Per-GPU memory against the number of GPUs ([`scaling`]).
    Scaling,
    /// The cluster's GPUs by parallel group ([`parallel_layout`]).
    Layout,
}

impl MemoryChart {
    /// Every chart, in the page's order.
    pub const ALL: [MemoryChart; 4] = [
        MemoryChart::Bar,
        MemoryChart::Strategies,
        MemoryChart::Scaling,
        MemoryChart::Layout,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            MemoryChart::Bar => "bar",
            MemoryChart::Strategies => "strategies",
            MemoryChart::Scaling => "scaling",
            MemoryChart::Layout => "layout",
        }
    }
}

// `bar`, `strategies`, `scaling` or `layout` (surrounding spaces and case ignored).
bitbudget_math::name_text!(MemoryChart, ChartError, |s: &str| ChartError::Input(
    format!("unknown chart '{s}': expected one of bar, strategies, scaling, layout")
));

/// A chart ready for a slide: a title above it and a caption line (the setup) under it. The SVG
/// download, the CLI's `--svg` and the app's 2x PNG all draw through [`Frame::draw`], so they
/// carry the same words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The title, drawn at [`Frame::TITLE_PX`], wrapped to the width.
    pub title: String,
    /// The caption, drawn at [`Frame::CAPTION_PX`] under the chart, wrapped to the width.
    pub caption: String,
}

impl Frame {
    /// Title size in CSS pixels.
    pub const TITLE_PX: f64 = 16.0;
    /// Caption size in CSS pixels.
    pub const CAPTION_PX: f64 = 12.0;

    fn lines(text: &str, width: u32, size: f64, s: Scale) -> Vec<String> {
        wrap(text, width.saturating_sub(2 * s.px(12.0) as u32), size, s)
    }

    /// Distance between wrapped lines of `size` CSS pixels, in whole CSS pixels.
    fn line_step(size: f64) -> f64 {
        (size * 1.3).round()
    }

    /// Height of a wrapped block in device pixels (whole CSS pixels times the scale, so that
    /// the 2x drawing is exactly twice the 1x one).
    fn block_height(text: &str, width: u32, size: f64, s: Scale) -> u32 {
        let n = Self::lines(text, width, size, s).len() as f64;
        s.px(size + (n - 1.0) * Self::line_step(size) + 16.0) as u32
    }

    /// The height in device pixels of the framed chart: title, `chart_height` CSS pixels of
    /// chart, caption, at `width` device pixels and scale `s`.
    pub fn height(&self, width: u32, chart_height: u32, s: Scale) -> u32 {
        Self::block_height(&self.title, width, Self::TITLE_PX, s)
            + s.px(chart_height as f64) as u32
            + Self::block_height(&self.caption, width, Self::CAPTION_PX, s)
    }

    /// Draws the title, `chart` in the next `chart_height` CSS pixels, and the caption, onto
    /// `area` (which should be [`Frame::height`] tall), returning what the chart returns.
    pub fn draw<B: DrawingBackend, C: Chart>(
        &self,
        area: &Area<B>,
        chart: &C,
        chart_height: u32,
        theme: &Theme,
        s: Scale,
    ) -> Result<C::Output, ChartError> {
        area.fill(&color(theme.surface))?;
        let (w, _) = area.dim_in_pixel();
        let title_h = Self::block_height(&self.title, w, Self::TITLE_PX, s);
        let chart_h = s.px(chart_height as f64) as u32;
        Self::draw_centred(
            area,
            &self.title,
            Self::TITLE_PX,
            s.bold(Self::TITLE_PX, theme.text),
            s,
        )?;
        let (_, rest) = area.split_vertically(title_h);
        let (plot, below) = rest.split_vertically(chart_h);
        let out = chart.draw(&plot, theme, s)?;
        let muted = s.font(Self::CAPTION_PX, theme.muted);
        Self::draw_centred(&below, &self.caption, Self::CAPTION_PX, muted, s)?;
        Ok(out)
    }

    /// Draws `text` wrapped to `area`'s width at `px` CSS pixels ([`Frame::lines`]), each line
    /// centred, the first 8 CSS pixels below `area`'s top.
    fn draw_centred<B: DrawingBackend>(
        area: &Area<B>,
        text: &str,
        px: f64,
        style: TextStyle,
        s: Scale,
    ) -> Drawn {
        let w = area.dim_in_pixel().0;
        let style = style.pos(Pos::new(HPos::Center, VPos::Top));
        for (i, line) in Self::lines(text, w, px, s).iter().enumerate() {
            let y = s.px(8.0 + i as f64 * Self::line_step(px));
            area.draw(&Text::new(line.clone(), (w as i32 / 2, y), style.clone()))?;
        }
        Ok(())
    }
}

/// The model's display name: the preset's name, "custom model", or a parameter count.
fn model_name(setup: &Setup) -> String {
    match &setup.model {
        ModelSpec::Arch { name, .. } => find_model(name)
            .map(|m| m.name.to_string())
            .unwrap_or_else(|| "custom model".into()),
        ModelSpec::Params(n) => format!("{}-parameter model", format_count(*n)),
    }
}

/// The title and the one-line setup caption of a Memory page chart, e.g. "Memory per GPU:
/// Llama 3 8B" over "train · bf16 weights · adamw · ZeRO-3 · dp 8 × tp 1 × pp 1 · batch 1 × 4096
/// tokens · recompute selective · FlashAttention on · NVIDIA H100 80GB". Option names are the
/// ones the CLI and the URL take, so the caption says how to reproduce the chart.
pub fn memory_frame(setup: &Setup, chart: MemoryChart) -> Frame {
    let what = match chart {
        MemoryChart::Bar => "Memory per GPU",
        MemoryChart::Strategies => "Memory per GPU under each sharding strategy",
        MemoryChart::Scaling => "Memory per GPU as GPUs are added",
        MemoryChart::Layout => "Where each GPU sits in the parallel groups",
    };
    let mut parts = vec![
        setup.mode.name().to_string(),
        format!("{} weights", setup.dtype.name()),
    ];
    if setup.mode != Mode::Inference {
        parts.push(setup.optimizer.name().to_string());
        parts.push(
            Strategy {
                zero: setup.zero,
                offload: setup.offload,
            }
            .label(),
        );
    }
    parts.push(setup.layout_text());
    parts.push(format!("batch {} × {} tokens", setup.batch, setup.seq));
    if setup.mode != Mode::Inference {
        parts.push(format!("recompute {}", setup.recompute.name()));
    }
    parts.push(format!(
        "FlashAttention {}",
        if setup.flash_attention { "on" } else { "off" }
    ));
    if let Some(g) = &setup.gpu {
        parts.push(g.name.to_string());
    }
    Frame {
        title: format!("{what}: {}", model_name(setup)),
        caption: parts.join(" · "),
    }
}

/// Draws one chart of the Memory page for `setup` with its [`memory_frame`] onto `area` (which
/// should be [`memory_height`] tall); the app draws its 2x PNG download with this.
/// An invalid setup is an [`ChartError::Input`] with the estimator's message (for the bar; the
/// other two charts show each strategy's validity themselves).
pub fn draw_memory<B: DrawingBackend>(
    area: &Area<B>,
    setup: &Setup,
    chart: MemoryChart,
    theme: &Theme,
    s: Scale,
) -> Drawn {
    let frame = memory_frame(setup, chart);
    let data = MemoryChartData::new(setup, chart)?;
    frame.draw(area, &data, chart_height(setup, chart), theme, s)
}

/// One chart of the Memory page for one setup, with the numbers it plots worked out once: a
/// [`Chart`] (drawn without a frame; [`draw_memory`] adds the frame).
pub struct MemoryChartData<'a> {
    setup: &'a Setup,
    plotted: Plotted,
}

/// What each Memory page chart plots.
enum Plotted {
    Bar(Box<Breakdown>),
    Strategies(Vec<(Strategy, Result<Breakdown, MemoryError>)>),
    Scaling(Vec<SweepLine>),
    Layout,
}

impl<'a> MemoryChartData<'a> {
    /// Works out `chart`'s numbers for `setup`. An invalid setup is a [`ChartError::Input`] with
    /// the estimator's message for the bar; the other two charts show each strategy's validity
    /// themselves and never fail here.
    pub fn new(setup: &'a Setup, chart: MemoryChart) -> Result<Self, ChartError> {
        let plotted = match chart {
            MemoryChart::Bar => {
                // The parts alive at the peak, as the page's bar draws them.
                let b = estimate(setup).map_err(|e| ChartError::Input(e.to_string()))?;
                Plotted::Bar(Box::new(b.at_peak(setup.units)))
            }
            MemoryChart::Strategies => Plotted::Strategies(by_strategy(setup)),
            MemoryChart::Scaling => Plotted::Scaling(sweep(setup)),
            MemoryChart::Layout => {
                setup
                    .validate()
                    .map_err(|e| ChartError::Input(e.to_string()))?;
                Plotted::Layout
            }
        };
        Ok(MemoryChartData { setup, plotted })
    }
}

impl Chart for MemoryChartData<'_> {
    type Output = ();
    fn draw<B: DrawingBackend>(&self, area: &Area<B>, theme: &Theme, s: Scale) -> Drawn {
        let setup = self.setup;
        let capacity = setup.gpu.as_ref().map(|g| (g.capacity_bytes, g.name));
        let units = setup.units;
        match &self.plotted {
            Plotted::Bar(breakdown) => bar_input(setup, breakdown).draw(area, theme, s).map(|_| ()),
            Plotted::Strategies(bars) => {
                let current = Strategy {
                    zero: setup.zero,
                    offload: setup.offload,
                };
                let capacity = capacity.map(|c| c.0);
                let input = strategies::Input {
                    bars,
                    capacity,
                    current,
                    units,
                    order: &[],
                };
                input.draw(area, theme, s)
            }
            Plotted::Scaling(lines) => {
                let input = scaling::Input {
                    lines,
                    capacity,
                    units,
                };
                input.draw(area, theme, s)
            }
            Plotted::Layout => parallel_layout::Input {
                setup,
                selected: None,
            }
            .draw(area, theme, s)
            .map(|_| ()),
        }
    }
}

/// The memory bar's input for `setup`'s breakdown at its peak: the GPU's capacity as its line.
fn bar_input<'a>(setup: &'a Setup, breakdown: &'a Breakdown) -> memory_bar::Input<'a> {
    memory_bar::Input {
        breakdown,
        capacity: setup.gpu.as_ref().map(|g| (g.capacity_bytes, g.name)),
        units: setup.units,
        highlight: None,
    }
}

/// [`draw_memory`] of the bar alone, without the other charts' code (what the Memory page's
/// downloads draw; the same drawing as `draw_memory(area, setup, MemoryChart::Bar, ...)`).
pub fn draw_memory_bar<B: DrawingBackend>(
    area: &Area<B>,
    setup: &Setup,
    theme: &Theme,
    s: Scale,
) -> Drawn {
    let b = estimate(setup)
        .map_err(|e| ChartError::Input(e.to_string()))?
        .at_peak(setup.units);
    memory_frame(setup, MemoryChart::Bar)
        .draw(area, &bar_input(setup, &b), memory_bar::HEIGHT, theme, s)
        .map(|_| ())
}

/// [`memory`] of the bar alone: the SVG document [`draw_memory_bar`] draws, at scale 1 in the
/// light theme.
pub fn memory_bar_document(setup: &Setup) -> Drawn<String> {
    let (w, h) = memory_size(setup, MemoryChart::Bar, Scale(1.0));
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        draw_memory_bar(&root, setup, &LIGHT, Scale(1.0))?;
        root.present()?;
    }
    Ok(crate::style::restore_font_sizes(&out))
}

/// The chart's height in CSS pixels on the page (the layout's grows with its panels and nodes).
pub fn chart_height(setup: &Setup, chart: MemoryChart) -> u32 {
    match chart {
        MemoryChart::Bar => memory_bar::HEIGHT,
        MemoryChart::Strategies => strategies::HEIGHT,
        MemoryChart::Scaling => scaling::HEIGHT,
        MemoryChart::Layout => parallel_layout::height_css(setup),
    }
}

/// Width and height in device pixels of [`draw_memory`]'s drawing at scale `s`: `WIDTH` CSS
/// pixels wide.
pub fn memory_size(setup: &Setup, chart: MemoryChart, s: Scale) -> (u32, u32) {
    let w = s.px(WIDTH as f64) as u32;
    (
        w,
        memory_frame(setup, chart).height(w, chart_height(setup, chart), s),
    )
}

/// One chart of the Memory page for `setup` as an SVG document: `WIDTH` pixels wide, the chart as
/// tall as on the page between its title and setup caption ([`draw_memory`] at scale 1, light
/// theme). An invalid setup is an [`ChartError::Input`] with the estimator's message.
pub fn memory(setup: &Setup, chart: MemoryChart) -> Drawn<String> {
    let (w, h) = memory_size(setup, chart, Scale(1.0));
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        draw_memory(&root, setup, chart, &LIGHT, Scale(1.0))?;
        root.present()?;
    }
    Ok(crate::style::restore_font_sizes(&out))
}

/// The Quantize lab's charts for one scheme of one tensor, two columns by two rows of `WIDTH` ×
/// [`crate::quant::HEIGHT`]: values with levels, error histogram, block-error map, and the
/// trade-off of every scheme in `rows` with `selected` ringed.
pub fn quant_report(
    overview: &Overview,
    detail: &SchemeDetail,
    rows: &[SchemeResult],
    selected: Scheme,
) -> Drawn<String> {
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

use crate::{serve_budget, serve_lines};
use bitbudget_math::numbers::Units;
use bitbudget_math::serve::budget::PerGpu;
use bitbudget_math::serve::curves::{concurrency_by_context, speed_by_concurrency, Curve};
use bitbudget_math::serve::{Engine, KvDtype, ServeSetup};

/// The charts of the Serve page, as named on the command line (`--chart
/// budget|concurrency|speed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServeChart {
    /// One GPU's memory as the engine accounts for it ([`serve_budget`]).
    Budget,
    /// Requests held at once against the context length, per KV type ([`serve_lines`]).
    Concurrency,
    /// Decode tokens per second against concurrency ([`serve_lines`]).
    Speed,
}

impl ServeChart {
    /// Every chart, in the page's order.
    pub const ALL: [ServeChart; 3] = [
        ServeChart::Budget,
        ServeChart::Concurrency,
        ServeChart::Speed,
    ];

    /// The command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            ServeChart::Budget => "budget",
            ServeChart::Concurrency => "concurrency",
            ServeChart::Speed => "speed",
        }
    }
}

// `budget`, `concurrency` or `speed` (surrounding spaces and case ignored).
bitbudget_math::name_text!(ServeChart, ChartError, |s: &str| ChartError::Input(
    format!("unknown chart '{s}': expected one of budget, concurrency, speed")
));

/// Sizes on the Serve documents: GiB, as the engines' logs print them.
const SERVE_UNITS: Units = Units::Gib;

/// The model's display name: the preset's name, else the id as given.
fn serve_model_name(setup: &ServeSetup) -> String {
    find_model(&setup.model_id)
        .map(|m| m.name.to_string())
        .unwrap_or_else(|| setup.model_id.clone())
}

/// The KV type as the engine names it: llama.cpp's 16-bit cache is `f16`.
fn kv_name(setup: &ServeSetup) -> String {
    match (setup.engine, setup.kv_dtype) {
        (Engine::LlamaCpp, KvDtype::Bf16) => "f16".to_string(),
        (_, dtype) => dtype.to_string(),
    }
}

/// The title and the one-line setup caption of a Serve page chart, e.g. "Memory per GPU as vLLM
/// accounts for it: Llama 3 8B" over "vLLM · 1 × NVIDIA H100 80GB · bf16 weights · bf16 KV
/// cache"; knobs set away from the engine's defaults (`max_model_len`, the memory fraction) follow
/// by the engine's names, and the speed chart adds the prompt it decodes after.
pub fn serve_frame(setup: &ServeSetup, chart: ServeChart) -> Frame {
    let engine = setup.engine.label();
    let what = match chart {
        ServeChart::Budget => format!("Memory per GPU as {engine} accounts for it"),
        ServeChart::Concurrency => "Requests at once by context length".to_string(),
        ServeChart::Speed => "Decode speed by concurrency".to_string(),
    };
    let mut parts = vec![
        engine.to_string(),
        format!("{} × {}", setup.tp, setup.gpu.name),
        format!("{} weights", setup.checkpoint),
        format!("{} KV cache", kv_name(setup)),
    ];
    if let Some(len) = setup.max_model_len {
        parts.push(format!("max_model_len {len}"));
    }
    if let (Some(f), Some((knob, _))) = (setup.memory_fraction, setup.engine.fraction_knob()) {
        parts.push(format!("{knob} {f}"));
    }
    if chart == ServeChart::Speed {
        parts.push(format!("prompt {} tokens", setup.prompt_tokens));
    }
    Frame {
        title: format!("{what}: {}", serve_model_name(setup)),
        caption: parts.join(" · "),
    }
}

/// One chart of the Serve page for one setup, with the numbers it plots worked out once: a
/// [`Chart`] (drawn without a frame; [`draw_serve`] adds the frame). Sizes are in GiB.
pub struct ServeChartData<'a> {
    setup: &'a ServeSetup,
    chart: ServeChart,
    plotted: ServePlotted,
}

/// What each Serve page chart plots.
enum ServePlotted {
    Budget(PerGpu),
    /// The curves and the vertical marker (the knee of the speed chart).
    Lines(Vec<Curve>, Option<(f64, String)>),
}

impl<'a> ServeChartData<'a> {
    /// Works out `chart`'s numbers for `setup`. A setup the estimator refuses is a
    /// [`ChartError::Input`] with its message, for every chart.
    pub fn new(setup: &'a ServeSetup, chart: ServeChart) -> Result<Self, ChartError> {
        let report =
            bitbudget_math::serve::serve(setup).map_err(|e| ChartError::Input(e.to_string()))?;
        let plotted = match chart {
            ServeChart::Budget => ServePlotted::Budget(report.per_gpu),
            ServeChart::Concurrency => ServePlotted::Lines(concurrency_by_context(setup), None),
            ServeChart::Speed => {
                let (curves, knee) = speed_by_concurrency(setup);
                let marker = knee.map(|k| (k as f64, format!("compute-bound from {k}")));
                ServePlotted::Lines(curves, marker)
            }
        };
        Ok(ServeChartData {
            setup,
            chart,
            plotted,
        })
    }
}

impl Chart for ServeChartData<'_> {
    type Output = ();
    fn draw<B: DrawingBackend>(&self, area: &Area<B>, theme: &Theme, s: Scale) -> Drawn {
        let setup = self.setup;
        match &self.plotted {
            ServePlotted::Budget(per_gpu) => {
                let input = serve_budget::Input {
                    per_gpu,
                    capacity: (setup.gpu.capacity_bytes, setup.gpu.name),
                    units: SERVE_UNITS,
                    engine: setup.engine.label(),
                };
                input.draw(area, theme, s).map(|_| ())
            }
            ServePlotted::Lines(curves, marker) => {
                let concurrency = self.chart == ServeChart::Concurrency;
                let input = serve_lines::Input {
                    curves,
                    x_title: if concurrency {
                        "context length (max_model_len, tokens)"
                    } else {
                        "sequences decoding at once"
                    },
                    y_title: if concurrency {
                        "requests at once"
                    } else {
                        "tokens/s"
                    },
                    log_x: true,
                    log_y: true,
                    vline: marker.as_ref().map(|(x, name)| (*x, name.as_str())),
                    hline: concurrency.then_some((1.0, "one request")),
                };
                input.draw(area, theme, s)
            }
        }
    }
}

/// The Serve chart's height in CSS pixels on the page.
pub const fn serve_chart_height(chart: ServeChart) -> u32 {
    match chart {
        ServeChart::Budget => serve_budget::HEIGHT,
        ServeChart::Concurrency | ServeChart::Speed => serve_lines::HEIGHT,
    }
}

/// Draws one chart of the Serve page for `setup` with its [`serve_frame`] onto `area` (which
/// should be [`serve_size`] tall); the app draws its 2x PNG download with this. A setup the
/// estimator refuses is a [`ChartError::Input`] with its message.
pub fn draw_serve<B: DrawingBackend>(
    area: &Area<B>,
    setup: &ServeSetup,
    chart: ServeChart,
    theme: &Theme,
    s: Scale,
) -> Drawn {
    let frame = serve_frame(setup, chart);
    let data = ServeChartData::new(setup, chart)?;
    frame.draw(area, &data, serve_chart_height(chart), theme, s)
}

/// Width and height in device pixels of [`draw_serve`]'s drawing at scale `s`: `WIDTH` CSS pixels
/// wide.
pub fn serve_size(setup: &ServeSetup, chart: ServeChart, s: Scale) -> (u32, u32) {
    let w = s.px(WIDTH as f64) as u32;
    (
        w,
        serve_frame(setup, chart).height(w, serve_chart_height(chart), s),
    )
}

/// One chart of the Serve page for `setup` as an SVG document: `WIDTH` pixels wide, the chart as
/// tall as on the page between its title and setup caption ([`draw_serve`] at scale 1, light
/// theme, sizes in GiB). A setup the estimator refuses is a [`ChartError::Input`] with its
/// message.
pub fn serve(setup: &ServeSetup, chart: ServeChart) -> Drawn<String> {
    let (w, h) = serve_size(setup, chart, Scale(1.0));
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (w, h)).into_drawing_area();
        draw_serve(&root, setup, chart, &LIGHT, Scale(1.0))?;
        root.present()?;
    }
    Ok(crate::style::restore_font_sizes(&out))
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn every_memory_chart_of_a_valid_setup_is_an_svg_with_a_title_and_the_setup() {
        let setup = Setup::new(ModelSpec::Params(8_000_000_000));
        for (chart, h) in [
            (MemoryChart::Bar, memory_bar::HEIGHT),
            (MemoryChart::Strategies, strategies::HEIGHT),
            (MemoryChart::Scaling, scaling::HEIGHT),
        ] {
            let svg = memory(&setup, chart).unwrap();
            assert!(is_svg(&svg), "{chart}");
            let (w, full) = memory_size(&setup, chart, Scale(1.0));
            assert!(
                full > h + 40,
                "{chart}: {full} leaves no room for a title and caption"
            );
            assert!(
                svg.contains(&format!("width=\"{w}\" height=\"{full}\"")),
                "{chart}"
            );
            assert!(svg.contains("Memory per GPU"), "{chart}");
            assert!(svg.contains("8.00B-parameter model"), "{chart}");
            assert!(svg.contains("train · bf16 weights · adamw"), "{chart}");
        }
    }

    #[test]
    fn the_2x_drawing_is_twice_the_1x_drawing() {
        let setup = Setup::new(ModelSpec::Params(8_000_000_000));
        let (w1, h1) = memory_size(&setup, MemoryChart::Bar, Scale(1.0));
        let (w2, h2) = memory_size(&setup, MemoryChart::Bar, Scale(2.0));
        assert_eq!((w2, h2), (2 * w1, 2 * h1));
    }

    #[test]
    fn an_invalid_memory_setup_is_an_input_error_with_the_estimators_message() {
        let setup = {
            let mut changed = Setup::new(ModelSpec::Params(8_000_000_000));
            changed.dp = 0;
            changed
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
