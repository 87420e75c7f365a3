//! The parallel layout as a grid of the cluster's GPUs: one panel per kind of group with more
//! than one GPU (TP, CP, EP, DP, PP), rows for nodes and columns for the GPUs in each. In each
//! panel the chosen GPU's group is coloured (each kind its own colour) and the rest are grey;
//! every cell shows the GPU's index within its group of that kind, and the chosen GPU is
//! outlined. Large clusters show their first nodes and say how many more follow.

use crate::palette::{Rgb, Theme};
use crate::style::{color, Scale};
use crate::{Area, Drawn};
use bitbudget_math::memory::layout::{active_groups, place, Group};
use bitbudget_math::memory::Setup;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Most nodes drawn in a panel; the rest are counted under it.
pub const MAX_NODES_SHOWN: u64 = 8;
/// Most GPUs of a node drawn in a row; the rest are counted under the panel.
pub const MAX_COLUMNS: u64 = 16;
/// Height in CSS px of a panel's title line.
const TITLE_PX: f64 = 22.0;
/// Height in CSS px of a node's row of cells.
const ROW_PX: f64 = 26.0;
/// Height in CSS px of the "n more nodes" line and the gap after a panel.
const FOOT_PX: f64 = 18.0;
/// Height in CSS px of the line that says whose groups are coloured.
const LEGEND_PX: f64 = 20.0;
/// Width in CSS px of the node labels' column.
const LABEL_PX: f64 = 56.0;

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The job: its degrees, GPUs per node and architecture.
    pub setup: &'a Setup,
    /// The GPU whose groups are coloured and which is outlined (0-based rank); `None` colours
    /// the first GPU's groups and outlines none.
    pub selected: Option<u64>,
}

/// Where one GPU's cell was drawn (in one of the panels), in backend pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellHit {
    /// The GPU's rank.
    pub rank: u64,
    /// Left, top, right and bottom edges.
    pub rect: (i32, i32, i32, i32),
}

/// Nodes drawn in each panel.
pub fn nodes_shown(setup: &Setup) -> u64 {
    setup
        .gpus()
        .div_ceil(setup.gpus_per_node.max(1))
        .min(MAX_NODES_SHOWN)
}

/// The chart's height in CSS px for `setup` (what the page and the SVG document size it to).
pub fn height_css(setup: &Setup) -> u32 {
    let panels = active_groups(setup).len().max(1) as f64;
    let rows = nodes_shown(setup) as f64;
    (LEGEND_PX + panels * (TITLE_PX + rows * ROW_PX + FOOT_PX) + 4.0).ceil() as u32
}

/// The colour of a kind of group (the palette's Okabe–Ito hues).
fn group_colour(t: &Theme, g: Group) -> Rgb {
    match g {
        Group::Tensor => t.weights,
        Group::Context => t.mantissa,
        Group::Expert => t.integer,
        Group::Data => t.sign,
        Group::Pipeline => t.exponent,
    }
}

/// Black or white, whichever reads better on `c` (relative luminance above or below 0.45).
fn ink_on(c: Rgb) -> Rgb {
    let l = 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
    if l > 0.45 * 255.0 {
        Rgb(0x1d, 0x1d, 0x1f)
    } else {
        Rgb(0xff, 0xff, 0xff)
    }
}

/// The titles of a group's panel, longest first: "TP 8: each matrix split over 8 GPUs · 4
/// groups", "TP 8: matrices over 8 GPUs · 4 groups", "TP 8 · 4 groups".
pub fn panel_titles(setup: &Setup, g: Group) -> [String; 3] {
    let n = g.size(setup);
    let (long, short) = match g {
        Group::Tensor => ("each matrix split over", "matrices over"),
        Group::Context => ("each sequence split over", "sequences over"),
        Group::Expert => ("the routed experts divided over", "experts over"),
        Group::Data => ("model replicas on", "replicas on"),
        Group::Pipeline => ("consecutive layers on", "layers on"),
    };
    let groups = setup.gpus() / n.max(1);
    let count = format!("{groups} group{}", if groups == 1 { "" } else { "s" });
    let name = format!("{} {n}", g.short());
    [
        format!("{name}: {long} {n} GPUs · {count}"),
        format!("{name}: {short} {n} GPUs · {count}"),
        format!("{name} · {count}"),
    ]
}

/// Draws the panels; returns every cell drawn, for pointer hit-testing.
pub fn draw<B: DrawingBackend>(
    area: &Area<B>,
    input: &Input,
    t: &Theme,
    s: Scale,
) -> Drawn<Vec<CellHit>> {
    area.fill(&color(t.surface))?;
    let setup = input.setup;
    let (width, _) = area.dim_in_pixel();
    let per_node = setup.gpus_per_node.max(1);
    let shown = nodes_shown(setup);
    let nodes = setup.gpus().div_ceil(per_node);
    let groups = active_groups(setup);
    let mut hits = Vec::new();
    if groups.is_empty() {
        area.draw(&Text::new(
            "One GPU: no parallel groups",
            (s.px(4.0), s.px(4.0)),
            s.font(13.0, t.muted),
        ))?;
        return Ok(hits);
    }
    let left = s.px(LABEL_PX);
    let columns = per_node.min(MAX_COLUMNS);
    let cell_w = ((width as i32 - left - s.px(4.0)) / columns as i32).max(1);
    let row_h = s.px(ROW_PX);
    let gap = s.px(2.0);
    let chosen = place(setup, input.selected.unwrap_or(0).min(setup.gpus() - 1));
    let grey = color(t.muted).mix(0.18);
    let mut y = 0;
    area.draw(&Text::new(
        format!("Coloured: the groups of GPU {}", chosen.rank + 1),
        (0, y + s.px(2.0)),
        s.font(12.0, t.muted),
    ))?;
    y += s.px(LEGEND_PX);
    for &g in &groups {
        let titles = panel_titles(setup, g);
        let title = s.first_fitting(&titles.each_ref().map(String::as_str), width, 13.0);
        area.draw(&Text::new(title, (0, y + s.px(4.0)), s.bold(13.0, t.text)))?;
        y += s.px(TITLE_PX);
        for node in 0..shown {
            area.draw(&Text::new(
                format!("node {}", node + 1),
                (0, y + row_h / 2),
                s.font(12.0, t.muted)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))?;
            for local in 0..columns {
                let rank = node * per_node + local;
                if rank >= setup.gpus() {
                    break;
                }
                let p = place(setup, rank);
                let member = p.group(setup, g) == chosen.group(setup, g);
                let (x0, y0) = (left + local as i32 * cell_w, y);
                let (x1, y1) = (x0 + cell_w - gap, y0 + row_h - gap);
                let ink = if member {
                    let fill = group_colour(t, g);
                    area.draw(&Rectangle::new([(x0, y0), (x1, y1)], color(fill).filled()))?;
                    ink_on(fill)
                } else {
                    area.draw(&Rectangle::new([(x0, y0), (x1, y1)], grey.filled()))?;
                    t.text
                };
                if input.selected == Some(rank) {
                    let w = s.stroke(3.0);
                    area.draw(&Rectangle::new(
                        [(x0, y0), (x1, y1)],
                        color(t.text).stroke_width(w),
                    ))?;
                }
                let label = p.index(g).to_string();
                if s.text_width(&label, 12.0) < cell_w - gap {
                    area.draw(&Text::new(
                        label,
                        ((x0 + x1) / 2, (y0 + y1) / 2),
                        s.font(12.0, ink).pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
                hits.push(CellHit {
                    rank,
                    rect: (x0, y0, x1, y1),
                });
            }
            y += row_h;
        }
        let more = match (nodes > shown, per_node > columns) {
            (true, true) => format!(
                "… {} more nodes and {} more GPUs in each, the same pattern",
                nodes - shown,
                per_node - columns
            ),
            (true, false) => format!("… {} more nodes, the same pattern", nodes - shown),
            (false, true) => format!(
                "… {} more GPUs in each node, the same pattern",
                per_node - columns
            ),
            (false, false) => String::new(),
        };
        if !more.is_empty() {
            area.draw(&Text::new(
                more,
                (left, y + s.px(2.0)),
                s.font(12.0, t.muted),
            ))?;
        }
        y += s.px(FOOT_PX);
    }
    Ok(hits)
}

crate::chart_calls_draw!(Input<'_> => Vec<CellHit>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LIGHT;
    use bitbudget_math::memory::ModelSpec;

    fn setup(change: impl FnOnce(&mut bitbudget_math::memory::RunOptions)) -> Setup {
        Setup::new(ModelSpec::preset("mixtral-8x7b").unwrap()).with(change)
    }

    #[test]
    fn one_panel_per_group_and_a_cell_per_gpu_shown() {
        let s = setup(|r| (r.tp, r.dp, r.pp, r.ep, r.sequence_parallel) = (2, 4, 2, 4, true));
        let svg = crate::svg(
            &Input {
                setup: &s,
                selected: Some(5),
            },
            600,
            height_css(&s),
            &LIGHT,
        )
        .unwrap();
        for title in [
            "TP 2: each matrix split over 2 GPUs · 8 groups",
            "EP 4",
            "DP 4",
            "PP 2",
        ] {
            assert!(svg.contains(title), "{title}");
        }
        assert!(!svg.contains("CP "));
        assert!(svg.contains("node 2"));
    }

    #[test]
    fn big_clusters_show_their_first_nodes() {
        let s = setup(|r| (r.dp, r.ep) = (512, 8));
        assert_eq!(nodes_shown(&s), MAX_NODES_SHOWN);
        let svg = svg_at_390(&s);
        assert!(svg.contains("… 56 more nodes, the same pattern"));
    }

    #[test]
    fn huge_nodes_draw_their_first_gpus() {
        let s = setup(|r| (r.dp, r.gpus_per_node) = (4096, 1 << 20));
        let hits = draw_hits(&s);
        assert_eq!(hits.len() as u64, MAX_COLUMNS);
        let svg = svg_at_390(&s);
        assert!(svg.contains("more GPUs in each node"));
    }

    /// The grid of `s` as an SVG document 390 px wide, with no GPU chosen.
    fn svg_at_390(s: &Setup) -> String {
        let input = Input {
            setup: s,
            selected: None,
        };
        crate::svg(&input, 390, height_css(s), &LIGHT).unwrap()
    }

    fn draw_hits(s: &Setup) -> Vec<CellHit> {
        let mut out = String::new();
        let root = plotters::prelude::SVGBackend::with_string(&mut out, (600, height_css(s)))
            .into_drawing_area();
        draw(
            &root,
            &Input {
                setup: s,
                selected: None,
            },
            &LIGHT,
            Scale(1.0),
        )
        .unwrap()
    }

    #[test]
    fn ink_reads_on_every_group_colour() {
        for t in [crate::LIGHT, crate::DARK] {
            for g in Group::ALL {
                assert_ne!(ink_on(group_colour(&t, g)), group_colour(&t, g));
            }
        }
        assert_eq!(ink_on(Rgb(0, 0, 0)), Rgb(0xff, 0xff, 0xff));
    }
}
