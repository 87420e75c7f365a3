//! Every chart, rendered to SVG at Scale 1 at a desktop width (720 px) and a phone width (350 px,
//! the chart's box on a 390 px screen), is legible by rules a machine can check: every text is at
//! least 12 CSS px, no two text boxes (estimated from the font size) overlap, every text box stays
//! inside the chart, and no text covers a plotted point, line or bar (a legend included).

use bitbudget_charts::documents::{self, MemoryChart, MemoryChartData};
use bitbudget_charts::quant::{errors, heatmap, tradeoff, values};
use bitbudget_charts::{bit_layout, number_line, svg, Chart};
use bitbudget_charts::{DARK, LIGHT};
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::memory::model::gpus::find_gpu;
use bitbudget_math::memory::options::ZeroStage;
use bitbudget_math::memory::{ModelSpec, Setup};
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::lab::{analyse, Overview};
use bitbudget_math::quant::scheme::Scheme;

/// Smallest legible text in CSS pixels.
const MIN_FONT_PX: f64 = 12.0;
/// Average advance of a sans-serif character, in em (digits and lower case are about 0.5 to 0.55).
const CHAR_EM: f64 = 0.55;
/// Pixels two boxes may share before they count as overlapping (anti-aliased edges).
const SLACK: f64 = 1.0;
/// Desktop and phone widths of a chart's box in CSS pixels.
const WIDTHS: [u32; 2] = [720, 350];

/// A `<text>` element: its estimated box (x0, y0, x1, y1) and content.
#[derive(Debug, Clone)]
struct TextBox {
    text: String,
    size: f64,
    b: (f64, f64, f64, f64),
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_string())
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Every element named `name` as (opening tag, content up to the closing tag).
fn elements<'a>(svg: &'a str, name: &str) -> Vec<(&'a str, &'a str)> {
    let open = format!("<{name} ");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find(&open) {
        rest = &rest[i..];
        let end = rest.find('>').expect("a closed tag");
        let tag = &rest[..end + 1];
        let body_end = if tag.ends_with("/>") {
            end + 1
        } else {
            rest.find(&format!("</{name}>")).unwrap_or(end + 1)
        };
        out.push((tag, &rest[end + 1..body_end.max(end + 1)]));
        rest = &rest[end + 1..];
    }
    out
}

fn texts(svg: &str) -> Vec<TextBox> {
    elements(svg, "text")
        .into_iter()
        .map(|(tag, body)| {
            let text = unescape(body.trim());
            let size = num(tag, "font-size");
            let (x, y) = (num(tag, "x"), num(tag, "y"));
            let w = text.chars().count() as f64 * CHAR_EM * size;
            let (a0, a1) = match attr(tag, "text-anchor").as_deref() {
                Some("middle") => (-w / 2.0, w / 2.0),
                Some("end") => (-w, 0.0),
                _ => (0.0, w),
            };
            // Top and bottom of the glyphs relative to y, by plotters' vertical anchors.
            let (t0, t1) = match attr(tag, "dy").as_deref() {
                Some("0.76em") => (0.0, size),
                Some("0.5ex") => (-size / 2.0, size / 2.0),
                Some("-0.5ex") => (-size, 0.0),
                _ => (-0.8 * size, 0.2 * size),
            };
            let b = if attr(tag, "transform").is_some_and(|t| t.starts_with("rotate(270")) {
                // Turned a quarter left: the run goes up, the glyph tops face left.
                (x + t0, y - a1, x + t1, y - a0)
            } else {
                (x + a0, y + t0, x + a1, y + t1)
            };
            TextBox { text, size, b }
        })
        .collect()
}

fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 + SLACK < b.2 && b.0 + SLACK < a.2 && a.1 + SLACK < b.3 && b.1 + SLACK < a.3
}

fn contains(b: (f64, f64, f64, f64), (x, y): (f64, f64)) -> bool {
    b.0 + SLACK < x && x < b.2 - SLACK && b.1 + SLACK < y && y < b.3 - SLACK
}

/// Data marks: points of series lines (stroke at least 2 px, sampled every 2 px along each
/// segment), centres of circles, and opaque filled rectangles other than the background.
fn data_points(svg: &str) -> Vec<(f64, f64)> {
    let mut pts = Vec::new();
    for (tag, _) in elements(svg, "polyline") {
        if num(tag, "stroke-width") < 2.0 {
            continue;
        }
        let vs: Vec<(f64, f64)> = attr(tag, "points")
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|p| {
                let (x, y) = p.split_once(',')?;
                Some((x.parse().ok()?, y.parse().ok()?))
            })
            .collect();
        for w in vs.windows(2) {
            let (a, b) = (w[0], w[1]);
            let n = ((b.0 - a.0).hypot(b.1 - a.1) / 2.0).ceil().max(1.0) as usize;
            for k in 0..=n {
                let t = k as f64 / n as f64;
                pts.push((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t));
            }
        }
    }
    for (tag, _) in elements(svg, "circle") {
        pts.push((num(tag, "cx"), num(tag, "cy")));
    }
    for (i, (tag, _)) in elements(svg, "rect").into_iter().enumerate() {
        let opaque = num(tag, "opacity") >= 0.5 && attr(tag, "fill").is_some_and(|f| f != "none");
        if i == 0 || !opaque {
            continue;
        }
        let (x, y, w, h) = (
            num(tag, "x"),
            num(tag, "y"),
            num(tag, "width"),
            num(tag, "height"),
        );
        let (nx, ny) = ((w / 2.0).ceil() as usize, (h / 2.0).ceil() as usize);
        for i in 0..=nx {
            for j in 0..=ny {
                pts.push((
                    x + w * i as f64 / nx.max(1) as f64,
                    y + h * j as f64 / ny.max(1) as f64,
                ));
            }
        }
    }
    pts
}

/// Everything wrong with `svg` (a `width` × `height` chart) as sentences; empty when legible.
fn problems(svg: &str, width: u32, height: u32, check_data: bool) -> Vec<String> {
    let boxes = texts(svg);
    let mut out = Vec::new();
    for t in &boxes {
        if t.size.is_nan() || t.size < MIN_FONT_PX - 1e-9 {
            out.push(format!("'{}' is {:.2} px", t.text, t.size));
        }
        let (x0, y0, x1, y1) = t.b;
        if x0 < -SLACK || y0 < -SLACK || x1 > width as f64 + SLACK || y1 > height as f64 + SLACK {
            out.push(format!("'{}' leaves the chart: {:?}", t.text, t.b));
        }
    }
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            if overlap(a.b, b.b) {
                out.push(format!("'{}' overlaps '{}'", a.text, b.text));
            }
            // Numbers on one row (tick labels) that read the same say nothing (0.1, 0.1, 0.1);
            // single characters (the bits of a bit layout) may repeat.
            let number = a.text.parse::<f64>().is_ok() && a.text.chars().count() > 1;
            if number && a.text == b.text && a.b.1 == b.b.1 && a.b.0 != b.b.0 {
                out.push(format!("'{}' appears twice on one row", a.text));
            }
        }
    }
    if check_data {
        let pts = data_points(svg);
        for t in &boxes {
            if let Some(p) = pts.iter().find(|p| contains(t.b, **p)) {
                out.push(format!("'{}' covers data at {p:?}", t.text));
            }
        }
    }
    out
}

fn check<C: Chart>(what: &str, chart: &C, height: u32, check_data: bool, all: &mut Vec<String>) {
    for theme in [LIGHT, DARK] {
        for w in WIDTHS {
            let doc = svg(chart, w, height, &theme).unwrap_or_else(|e| panic!("{what}: {e}"));
            for p in problems(&doc, w, height, check_data) {
                let line = format!("{what} at {w} px: {p}");
                if !all.contains(&line) {
                    all.push(line);
                }
            }
        }
    }
}

fn assert_legible(all: Vec<String>) {
    assert!(
        all.is_empty(),
        "{} problems:\n{}",
        all.len(),
        all.join("\n")
    );
}

fn llama(id: &str, dp: u64, gpu: &str) -> Setup {
    let preset = bitbudget_math::memory::find_model(id).expect("a preset");
    {
        let mut changed = Setup::new(ModelSpec::preset(preset.id).unwrap());
        changed.dp = dp;
        changed.zero = ZeroStage(3);
        changed.gpu = find_gpu(gpu);
        changed
    }
}

fn setups() -> Vec<(String, Setup)> {
    vec![
        (
            "8B on an H100, dp 8".into(),
            llama("llama-3-8b", 8, "h100-80gb"),
        ),
        (
            "70B on an A100, dp 2".into(),
            llama("llama-3-70b", 2, "a100-80gb"),
        ),
        ("8B on a T4, dp 1".into(), llama("llama-3-8b", 1, "t4")),
        // A GPU whose name is long beside a bar that reaches past its line.
        (
            "8B on an RTX 4090, dp 1".into(),
            llama("llama-3-8b", 1, "rtx-4090"),
        ),
        (
            "Mixtral, every kind of group".into(),
            llama("mixtral-8x7b", 4, "h100-80gb").with(|r| {
                (r.tp, r.pp, r.cp, r.ep, r.sequence_parallel, r.seq) = (2, 2, 2, 4, true, 8192)
            }),
        ),
        (
            "8B eager at 16k, 17× the GPU".into(),
            llama("llama-3-8b", 8, "h100-80gb").with(|r| {
                (r.seq, r.flash_attention) = (16384, false);
            }),
        ),
        (
            "1B, no GPU".into(),
            Setup::new(ModelSpec::Params(1_000_000_000)),
        ),
    ]
}

#[test]
fn memory_charts_are_legible_at_desktop_and_phone_widths() {
    let mut all = Vec::new();
    for (name, setup) in setups() {
        for chart in MemoryChart::ALL {
            let data = MemoryChartData::new(&setup, chart).unwrap();
            let height = documents::chart_height(&setup, chart);
            // The layout's cells carry their own index, in a contrasting ink, as the bit
            // layout's boxes carry their bits: text on those fills is the point.
            let on_data_is_wrong = chart != MemoryChart::Layout;
            check(
                &format!("{chart}, {name}"),
                &data,
                height,
                on_data_is_wrong,
                &mut all,
            );
        }
    }
    assert_legible(all);
}

#[test]
fn bits_charts_are_legible_for_every_format() {
    let mut all = Vec::new();
    for id in FormatId::ALL {
        for x in [0.1, -1.5, 1e15, 1e-30, f64::INFINITY] {
            let layout = bit_layout::Input {
                id,
                x,
                overflow: Overflow::Native,
            };
            check(
                &format!("bit layout {id:?} {x}"),
                &layout,
                bit_layout::HEIGHT,
                false,
                &mut all,
            );
            let line = number_line::Input {
                id,
                x,
                overflow: Overflow::Native,
            };
            check(
                &format!("number line {id:?} {x}"),
                &line,
                number_line::HEIGHT,
                true,
                &mut all,
            );
        }
    }
    assert_legible(all);
}

#[test]
fn kquant_super_block_diagrams_are_legible() {
    use bitbudget_charts::kquant_block;
    use bitbudget_math::quant::kquants::KType;
    let mut all = Vec::new();
    let cases: [(&str, Vec<f32>); 3] = [
        ("normal", generate(Distribution::Normal, 1, 256, 0.02, 3)),
        ("outliers", generate(Distribution::Laplace, 1, 256, 40.0, 4)),
        ("zeros", vec![0.0; 256]),
    ];
    for kind in KType::ALL {
        for (name, x) in &cases {
            let mut bytes = vec![0u8; kind.block_bytes()];
            kind.quantize(x, &mut bytes).unwrap();
            for weight in [0, 137, 255] {
                let input = kquant_block::Input {
                    kind,
                    index: 12_345,
                    bytes: &bytes,
                    weight,
                };
                check(
                    &format!("super-block {} {name} weight {weight}", kind.name()),
                    &input,
                    kquant_block::HEIGHT,
                    false,
                    &mut all,
                );
            }
        }
    }
    assert_legible(all);
}

#[test]
fn quant_charts_are_legible() {
    let mut all = Vec::new();
    let x = generate(Distribution::Normal, 32, 64, 1.0, 7);
    let overview = Overview::new(&x);
    let mut rows = Vec::new();
    let mut details = Vec::new();
    for s in Scheme::ALL {
        if let Ok((row, d)) = analyse(s, &x, s.default_block(), false) {
            rows.push(row);
            details.push((s, d));
        }
    }
    for (s, d) in &details {
        let h = bitbudget_charts::quant::HEIGHT;
        check(
            &format!("values {s:?}"),
            &values::Input {
                overview: &overview,
                detail: d,
            },
            h,
            false,
            &mut all,
        );
        check(
            &format!("errors {s:?}"),
            &errors::Input { errors: &d.errors },
            h,
            false,
            &mut all,
        );
        check(
            &format!("heat map {s:?}"),
            &heatmap::Input { detail: d },
            h,
            false,
            &mut all,
        );
        let t = tradeoff::Input {
            rows: &rows,
            selected: *s,
        };
        check(&format!("trade-off {s:?}"), &t, h, true, &mut all);
    }
    assert_legible(all);
}

#[test]
fn the_memory_documents_are_legible() {
    let mut all = Vec::new();
    for (name, setup) in setups() {
        for chart in documents::MemoryChart::ALL {
            let doc = documents::memory(&setup, chart).unwrap();
            let (w, h) = (num(&doc, "width") as u32, num(&doc, "height") as u32);
            for p in problems(&doc, w, h, false) {
                all.push(format!("{chart} document, {name}: {p}"));
            }
        }
    }
    assert_legible(all);
}

/// The checker itself: a small font, two overlapping labels and a label on a line are caught.
#[test]
fn the_checker_finds_small_overlapping_and_covering_text() {
    let doc = r##"<svg width="100" height="50">
<rect x="0" y="0" width="100" height="50" opacity="1" fill="#FFFFFF"/>
<text x="10" y="10" dy="0.76em" font-size="9">small</text>
<text x="12" y="12" dy="0.76em" font-size="12">over</text>
<polyline fill="none" opacity="1" stroke="#000" stroke-width="2" points="0,40 100,40 "/>
<text x="50" y="40" dy="0.5ex" text-anchor="middle" font-size="12">on line</text>
<text x="4" y="30" font-size="12">0.1</text><text x="60" y="30" font-size="12">0.1</text>
</svg>"##;
    let p = problems(doc, 100, 50, true);
    assert!(p.iter().any(|l| l.contains("'small' is 9.00 px")), "{p:?}");
    assert!(
        p.iter().any(|l| l.contains("'small' overlaps 'over'")),
        "{p:?}"
    );
    assert!(
        p.iter().any(|l| l.contains("'on line' covers data")),
        "{p:?}"
    );
    assert!(p.iter().any(|l| l.contains("'0.1' appears twice")), "{p:?}");
}

#[test]
fn the_throughput_chart_is_legible() {
    use bitbudget_charts::throughput::{self, Series};
    let sizes = [1u64 << 20, 1 << 22, 1 << 24, 1 << 26];
    let names = [
        "CPU quantize",
        "GPU quantize",
        "CPU whole lab",
        "GPU whole lab",
    ];
    let series: Vec<Series> = names
        .iter()
        .enumerate()
        .map(|(k, name)| Series {
            label: name.to_string(),
            points: sizes
                .iter()
                .enumerate()
                .map(|(i, n)| (*n as f64, 0.05 * (k + 1) as f64 * (i + 2) as f64))
                .collect(),
        })
        .collect();
    let mut all = Vec::new();
    let input = throughput::Input { series: &series };
    check("throughput", &input, throughput::HEIGHT, true, &mut all);
    assert_legible(all);
}

/// A bar many times the GPU is cut at [`memory_bar::OFF_SCALE`] × the capacity: the axis stays
/// where the capacity line and the smaller parts can be read, and the total says it is off the
/// scale.
#[test]
fn a_bar_far_over_the_gpu_is_cut_and_says_so() {
    use bitbudget_charts::memory_bar;
    let setup =
        llama("llama-3-8b", 8, "h100-80gb").with(|r| (r.seq, r.flash_attention) = (16384, false));
    let svg = documents::memory_bar_document(&setup).unwrap();
    let words: Vec<String> = texts(&svg).into_iter().map(|t| t.text).collect();
    assert!(
        words
            .iter()
            .any(|w| w.starts_with("total 1492.5 GB, off the scale")),
        "{words:?}"
    );
    assert!(
        words.iter().any(|w| w.starts_with("NVIDIA H100 80GB")),
        "{words:?}"
    );
    // The axis ends near 4 × 85.52 GB, not near the total.
    let ticks: Vec<f64> = words.iter().filter_map(|w| w.parse::<f64>().ok()).collect();
    let highest = ticks.iter().cloned().fold(0.0, f64::max);
    assert!(
        highest <= memory_bar::OFF_SCALE as f64 * 85.52 * 1.12,
        "{ticks:?}"
    );
    let fits = llama("llama-3-8b", 8, "h100-80gb");
    let svg = documents::memory_bar_document(&fits).unwrap();
    assert!(!svg.contains("off the scale"));
}
