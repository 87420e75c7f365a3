//! One GPU's memory as a serving engine accounts for it, as a stacked bar in the look of
//! [`crate::memory_bar`]: weights, the profiling run's activation peak, the CUDA context and
//! non-torch memory, CUDA graphs and the KV cache (what the engine's fraction leaves), each
//! labelled with its size beside the bar; the GPU's capacity as a line, and whatever exceeds it
//! hatched.

use crate::palette::Theme;
use crate::style::{color, hatch_lines, muted_mesh, Scale};
use crate::{Area, Drawn};
use bitbudget_math::numbers::{format_bytes, Units};
use bitbudget_math::serve::budget::PerGpu;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// One GPU's memory as the engine accounts for it.
    pub per_gpu: &'a PerGpu,
    /// The GPU's capacity in bytes and its name, drawn as a line.
    pub capacity: (u64, &'a str),
    /// GB or GiB, for the axis and the labels.
    pub units: Units,
    /// The engine as people write it ("vLLM"), shown under the bar as "vLLM's accounting"; empty
    /// for no caption.
    pub engine: &'a str,
}

/// A part of the engine's budget, in the bar's order from the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Weights as stored.
    Weights,
    /// The profiling run's activation peak (llama.cpp: its compute buffer).
    Activations,
    /// The CUDA context plus non-torch memory.
    NonTorch,
    /// Captured CUDA graphs.
    CudaGraphs,
    /// The KV cache the engine allocates.
    KvCache,
}

impl Part {
    /// Every part, bottom to top.
    pub const ALL: [Part; 5] = [
        Part::Weights,
        Part::Activations,
        Part::NonTorch,
        Part::CudaGraphs,
        Part::KvCache,
    ];

    /// The part's bytes in `p`.
    pub const fn bytes(self, p: &PerGpu) -> u64 {
        match self {
            Part::Weights => p.weights,
            Part::Activations => p.activations,
            Part::NonTorch => p.non_torch,
            Part::CudaGraphs => p.cuda_graphs,
            Part::KvCache => p.kv_cache,
        }
    }

    /// The part's names, longest first: the label takes the first that fits beside the bar.
    pub const fn labels(self) -> &'static [&'static str] {
        match self {
            Part::Weights => &["weights"],
            Part::Activations => &["activations (profiling peak)", "profiling peak"],
            Part::NonTorch => &["CUDA context + non-torch", "non-torch"],
            Part::CudaGraphs => &["CUDA graphs"],
            Part::KvCache => &["KV cache"],
        }
    }

    /// The part's fill: the palette's colour of the same thing in the memory charts (CUDA
    /// graphs, overhead like the CUDA context, in a lighter shade of it).
    pub fn fill(self, t: &Theme) -> RGBAColor {
        match self {
            Part::Weights => color(t.weights).mix(1.0),
            Part::Activations => color(t.activations).mix(1.0),
            Part::NonTorch => color(t.overhead).mix(1.0),
            Part::CudaGraphs => color(t.overhead).mix(0.55),
            Part::KvCache => color(t.kv_cache).mix(1.0),
        }
    }
}

/// Where a part was drawn, in backend pixels (for pointer hit-testing).
pub type Hit = crate::SegmentHit<Part>;

/// Height in CSS pixels.
pub const HEIGHT: u32 = 420;

/// Label text size in CSS pixels.
const LABEL_PX: f64 = 12.0;

/// Distance between the centres of two labels beside the bar, CSS pixels.
const LABEL_STEP_PX: f64 = 15.0;

/// Centres (backend pixels) for labels that would sit at `desired` (top to bottom, ascending),
/// at least `step` apart and within `lo..=hi` where they fit: labels that would overlap are
/// gathered into a run centred on their wishes, so each stays as near its own as the others allow.
/// When they cannot all fit, the run starts at `lo`.
pub fn spread(desired: &[i32], step: i32, lo: i32, hi: i32) -> Vec<i32> {
    let step = f64::from(step.max(1));
    // Runs of consecutive labels: (first index, count, centre of the first).
    let mut runs: Vec<(usize, usize, f64)> = Vec::new();
    for (i, &d) in desired.iter().enumerate() {
        runs.push((i, 1, f64::from(d)));
        loop {
            let n = runs.len();
            let (_, count, top) = runs[n - 1];
            let highest = f64::from(hi) - (count - 1) as f64 * step;
            runs[n - 1].2 = top.min(highest).max(f64::from(lo));
            if n < 2 {
                break;
            }
            let (before, before_count, before_top) = runs[n - 2];
            if before_top + before_count as f64 * step <= runs[n - 1].2 {
                break;
            }
            let count = before_count + count;
            let mean = (before..before + count)
                .map(|k| f64::from(desired[k]) - (k - before) as f64 * step)
                .sum::<f64>()
                / count as f64;
            runs.pop();
            runs[n - 2] = (before, count, mean);
        }
    }
    runs.iter()
        .flat_map(|&(_, count, top)| {
            (0..count).map(move |k| (top + k as f64 * step).round() as i32)
        })
        .collect()
}

/// A text box in root pixels: left, top, right, bottom.
type Box4 = (i32, i32, i32, i32);

fn overlaps(a: Box4, b: Box4) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// One label beside the bar: the text and the centre of what it names (backend pixels).
struct Label {
    text: String,
    wanted: i32,
}

/// Draws the bar, axis in `input.units`, parts in [`Part::ALL`] order from the bottom (a part of
/// 0 bytes is skipped). Every part is labelled with its size beside the bar, the total above
/// them; labels that would crowd move apart with a thin leader to their segment. Returns where
/// each part landed, in backend pixels.
pub fn draw<B: DrawingBackend>(
    root: &Area<B>,
    input: &Input,
    t: &Theme,
    s: Scale,
) -> Drawn<Vec<Hit>> {
    let u = input.units;
    let p = input.per_gpu;
    let (capacity, gpu) = input.capacity;
    root.fill(&color(t.surface))?;
    let stacked: u64 = Part::ALL.iter().map(|part| part.bytes(p)).sum();
    let top = (stacked.max(capacity) as f64 * 1.12).max(1.0) / u.bytes();
    let caption_h = if input.engine.is_empty() { 0.0 } else { 22.0 };
    let mut chart = ChartBuilder::on(root)
        .margin(s.px(12.0))
        .x_label_area_size(s.px(caption_h))
        .y_label_area_size(s.px(52.0))
        .build_cartesian_2d(0f64..1f64, 0f64..top)?;
    muted_mesh(&mut chart.configure_mesh(), t, s, 0.25, 12.0)
        .disable_x_axis()
        .disable_x_mesh()
        .y_labels(6)
        .y_desc(u.label())
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    // Chart coordinates to root pixels (`root` may be part of a larger backend).
    let (bx, by) = root.get_base_pixel();
    let at = |x: f64, y: f64| {
        let (px, py) = chart.backend_coord(&(x, y));
        (px - bx, py - by)
    };
    // On a phone the bar is narrower so that the labels beside it fit.
    let narrow = s.css(root.dim_in_pixel().0) < 560.0;
    let (x0, x1) = (0.04, if narrow { 0.3 } else { 0.42 });
    let (bar_left, plot_bottom) = at(x0, 0.0);
    let (bar_right, plot_top) = at(x1, top);
    let (plot_right, _) = at(1.0, 0.0);
    let label_x = bar_right + s.px(10.0);
    let room = plot_right - label_x;
    let mut hits = Vec::new();
    let mut labels: Vec<Label> = Vec::new();
    let mut base = 0f64;
    for part in Part::ALL {
        let bytes = part.bytes(p);
        if bytes == 0 {
            continue;
        }
        let h = bytes as f64 / u.bytes();
        root.draw(&Rectangle::new(
            [at(x0, base + h), at(x1, base)],
            part.fill(t).filled(),
        ))?;
        let (_, y_top) = chart.backend_coord(&(x0, base + h));
        let (_, y_bottom) = chart.backend_coord(&(x0, base));
        hits.push(Hit {
            part,
            top: y_top,
            bottom: y_bottom,
        });
        let size = format_bytes(bytes, u);
        let texts: Vec<String> = part
            .labels()
            .iter()
            .map(|name| format!("{name} {size}"))
            .collect();
        let text = texts
            .iter()
            .find(|text| s.text_width(text, LABEL_PX) <= room)
            .or(texts.last())
            .cloned()
            .unwrap_or_default();
        labels.push(Label {
            text,
            wanted: at(x0, base + h / 2.0).1,
        });
        base += h;
    }
    labels.push(Label {
        text: format!("total {}", format_bytes(p.total, u)),
        wanted: at(x0, base).1,
    });
    // Top to bottom: the total first, the weights last.
    labels.reverse();
    let half = s.px(LABEL_PX / 2.0);
    let wanted: Vec<i32> = labels.iter().map(|l| l.wanted).collect();
    let placed = spread(
        &wanted,
        s.px(LABEL_STEP_PX),
        plot_top + half,
        plot_bottom - half,
    );
    let c = capacity as f64 / u.bytes();
    let (_, line_y) = at(0.0, c);
    if stacked > capacity {
        let (px0, py0) = chart.backend_coord(&(x0, base));
        let (px1, py1) = chart.backend_coord(&(x1, c));
        for [a, z] in hatch_lines(px0, py0, px1, py1, s.px(7.0)) {
            root.draw(&PathElement::new(
                vec![(a.0 - bx, a.1 - by), (z.0 - bx, z.1 - by)],
                color(t.danger).stroke_width(s.stroke(1.5)),
            ))?;
        }
    }
    let mut taken: Vec<Box4> = Vec::new();
    for (l, y) in labels.iter().zip(placed) {
        let w = s.text_width(&l.text, LABEL_PX);
        taken.push((label_x, y - half, label_x + w, y + half));
        if (y - l.wanted).abs() > s.px(2.0) {
            root.draw(&PathElement::new(
                vec![(bar_right + s.px(2.0), l.wanted), (label_x - s.px(3.0), y)],
                color(t.muted).stroke_width(s.stroke(1.0)),
            ))?;
        }
        root.draw(&Text::new(
            l.text.clone(),
            (label_x, y),
            s.font(LABEL_PX, t.text)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    // The capacity's name, right-aligned at the plot's right edge, just above the line or below
    // it, or a row or two further away, whichever first clears the bar and the labels beside it;
    // then the size alone (the caption names the GPU), then up to six rows away.
    let size = format_bytes(capacity, u);
    let texts = [format!("{gpu}: {size}"), size];
    let (th, gap) = (s.px(12.0), s.px(2.0));
    let (above, below, step) = (line_y - gap - th, line_y + 2 * gap, th + gap);
    let (_, stack_top) = at(x0, base);
    let bar = (bar_left, stack_top, bar_right + gap, plot_bottom);
    let free = |text: &str, y: i32| {
        let b = (plot_right - s.text_width(text, 12.0), y, plot_right, y + th);
        y >= plot_top
            && y + th <= plot_bottom
            && !taken.iter().chain([&bar]).any(|&o| overlaps(b, o))
    };
    let tries = [(0, 0..3), (1, 0..3), (0, 3..7), (1, 3..7)];
    let (text, name_top) = tries
        .into_iter()
        .flat_map(|(i, rows)| {
            rows.flat_map(move |k| [(i, above - k * step), (i, below + k * step)])
        })
        .find(|&(i, y)| free(&texts[i], y))
        .map_or((&texts[1], above), |(i, y)| (&texts[i], y));
    root.draw(&Text::new(
        text.clone(),
        (plot_right, name_top),
        s.font(12.0, t.danger).pos(Pos::new(HPos::Right, VPos::Top)),
    ))?;
    // The capacity line, broken where a label beside the bar sits on it.
    let pad = s.px(3.0);
    let mut pieces = vec![(at(0.0, c).0, plot_right)];
    for &(l, top_y, r, bottom_y) in &taken {
        if top_y - pad <= line_y && line_y <= bottom_y + pad {
            pieces = pieces
                .into_iter()
                .flat_map(|(a, z)| [(a, z.min(l - pad)), (a.max(r + pad), z)])
                .filter(|(a, z)| z > a)
                .collect();
        }
    }
    for (a, z) in pieces {
        root.draw(&PathElement::new(
            vec![(a, line_y), (z, line_y)],
            color(t.danger).stroke_width(s.stroke(2.0)),
        ))?;
    }
    if !input.engine.is_empty() {
        root.draw(&Text::new(
            format!("{}'s accounting", input.engine),
            (bar_left, plot_bottom + s.px(6.0)),
            s.font(12.0, t.muted).pos(Pos::new(HPos::Left, VPos::Top)),
        ))?;
    }
    Ok(hits)
}

crate::chart_calls_draw!(Input<'_> => Vec<Hit>);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_far_apart_stay_where_they_want_to_be() {
        assert_eq!(spread(&[10, 50, 90], 15, 0, 100), [10, 50, 90]);
    }

    #[test]
    fn crowded_labels_spread_around_their_wishes() {
        // Two labels wanting 50 and 52 sit 15 apart, centred on 51.
        assert_eq!(spread(&[50, 52], 15, 0, 100), [44, 59]);
        // A third close by joins the run.
        assert_eq!(spread(&[50, 52, 60], 15, 0, 100), [39, 54, 69]);
    }

    #[test]
    fn spread_labels_stay_inside_the_bounds_and_apart() {
        let out = spread(&[95, 96, 97, 98], 15, 0, 100);
        assert_eq!(out, [55, 70, 85, 100]);
        let out = spread(&[0, 1, 2], 15, 10, 100);
        assert_eq!(out, [10, 25, 40]);
        // Too many to fit: they start at the top and keep their spacing.
        let out = spread(&[50; 10], 15, 0, 100);
        assert_eq!(out[0], 0);
        assert!(out.windows(2).all(|w| w[1] - w[0] == 15), "{out:?}");
        assert!(spread(&[], 15, 0, 100).is_empty());
    }
}
