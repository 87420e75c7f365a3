//! Point labels for scatter charts that do not overlap: points closer than a few pixels share one
//! label ("q8_0 · absmax-int8"), and each label takes the first free spot around its point.

/// A label box in backend pixels: top-left corner, width and height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelBox {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width.
    pub w: i32,
    /// Height.
    pub h: i32,
}

impl LabelBox {
    fn overlaps(&self, o: &LabelBox) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    fn inside(&self, area: &LabelBox) -> bool {
        self.x >= area.x
            && self.y >= area.y
            && self.x + self.w <= area.x + area.w
            && self.y + self.h <= area.y + area.h
    }
}

/// A placed label: its text and the box it occupies.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedLabel {
    /// The names of the points it stands for, joined with " · ".
    pub text: String,
    /// Where to draw it (top-left corner, size).
    pub at: LabelBox,
    /// A line from the point to the label's nearest edge, when the label had to move away from
    /// the four spots next to its point.
    pub leader: Option<[(i32, i32); 2]>,
}

/// Groups points closer than `merge` pixels (the first point of a group is its anchor), then
/// places each group's label at the first spot around the anchor (right, left, above, below, then
/// further out) that stays inside `area` (the plotting area, so labels keep off the axes) and clear of the labels placed before it and
/// of every point, with a leader line when it is not next to its point. Text is measured as `char_w` pixels per character and `line_h` high. A label
/// with no free spot goes where it covers the fewest labels and points, so no point is left unnamed.
/// A point with an empty name gets no label; labels keep clear of it like of any other point.
pub fn place_labels(
    points: &[((i32, i32), &str)],
    merge: i32,
    char_w: f64,
    line_h: i32,
    area: LabelBox,
) -> Vec<PlacedLabel> {
    let mut groups: Vec<((i32, i32), Vec<&str>)> = Vec::new();
    for &(p, name) in points.iter().filter(|(_, name)| !name.is_empty()) {
        match groups
            .iter_mut()
            .find(|(a, _)| (a.0 - p.0).abs() <= merge && (a.1 - p.1).abs() <= merge)
        {
            Some((_, names)) => names.push(name),
            None => groups.push((p, vec![name])),
        }
    }
    let dots: Vec<LabelBox> = points
        .iter()
        .map(|((x, y), _)| LabelBox {
            x: x - 3,
            y: y - 3,
            w: 7,
            h: 7,
        })
        .collect();
    let mut placed: Vec<PlacedLabel> = Vec::new();
    for ((x, y), names) in groups {
        let text = names.join(" · ");
        let (w, h) = ((text.chars().count() as f64 * char_w).ceil() as i32, line_h);
        let gap = (line_h / 2).max(4);
        let candidates = [
            (x + gap, y - h / 2),
            (x - gap - w, y - h / 2),
            (x - w / 2, y - gap - h),
            (x - w / 2, y + gap),
            (x + gap, y - h - gap / 2),
            (x + gap, y + gap / 2),
            (x - gap - w, y - h - gap / 2),
            (x - gap - w, y + gap / 2),
            (x - w / 2, y - 2 * gap - 2 * h),
            (x - w / 2, y + 2 * gap + h),
            (x - w / 2, y - 3 * gap - 3 * h),
            (x - w / 2, y + 3 * gap + 2 * h),
            (x + gap, y - 2 * gap - 2 * h),
            (x + gap, y + 2 * gap + h),
            (x - gap - w, y - 2 * gap - 2 * h),
            (x - gap - w, y + 2 * gap + h),
            (x - w / 2, y - 4 * gap - 4 * h),
            (x - w / 2, y + 4 * gap + 3 * h),
        ];
        let free = |b: &LabelBox| {
            b.inside(&area)
                && !placed.iter().any(|p| p.at.overlaps(b))
                && !dots.iter().any(|d| d.overlaps(b))
        };
        // Else the spot inside the area that covers the fewest labels and points.
        let crowding = |b: &LabelBox| {
            let n = placed.iter().filter(|p| p.at.overlaps(b)).count()
                + dots.iter().filter(|d| d.overlaps(b)).count();
            if b.inside(&area) {
                n
            } else {
                usize::MAX
            }
        };
        let spot = candidates
            .iter()
            .position(|&(x, y)| free(&LabelBox { x, y, w, h }))
            .or_else(|| {
                (0..candidates.len()).min_by_key(|&i| {
                    let (x, y) = candidates[i];
                    crowding(&LabelBox { x, y, w, h })
                })
            })
            .unwrap_or(0);
        let at = LabelBox {
            x: candidates[spot].0,
            y: candidates[spot].1,
            w,
            h,
        };
        let leader = (spot >= 4).then(|| {
            let nearest = (x.clamp(at.x, at.x + w), y.clamp(at.y, at.y + h));
            [(x, y), nearest]
        });
        placed.push(PlacedLabel { text, at, leader });
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(w: i32, h: i32) -> LabelBox {
        LabelBox { x: 0, y: 0, w, h }
    }

    #[test]
    fn close_points_share_a_label_and_labels_do_not_overlap() {
        let points = [
            ((100, 100), "q8_0"),
            ((102, 101), "absmax-int8"),
            ((110, 100), "zeropoint-uint8"),
            ((110, 108), "f8e4m3"),
            ((300, 50), "bf16"),
        ];
        let labels = place_labels(&points, 4, 6.0, 12, area(400, 200));
        assert_eq!(labels.len(), 4);
        assert_eq!(labels[0].text, "q8_0 · absmax-int8");
        for (i, a) in labels.iter().enumerate() {
            assert!(a.at.inside(&area(400, 200)), "{a:?}");
            for b in &labels[i + 1..] {
                assert!(!a.at.overlaps(&b.at), "{a:?} overlaps {b:?}");
            }
        }
    }

    #[test]
    fn labels_away_from_their_point_get_a_leader_line_to_it() {
        let points: Vec<((i32, i32), &str)> =
            (0..12).map(|i| ((40 + i * 9, 100), "name")).collect();
        let labels = place_labels(&points, 2, 6.0, 12, area(300, 200));
        let mut leaders = 0;
        for (l, &((x, y), _)) in labels.iter().zip(&points) {
            let dx = (x.clamp(l.at.x, l.at.x + l.at.w) - x).abs();
            let dy = (y.clamp(l.at.y, l.at.y + l.at.h) - y).abs();
            match l.leader {
                None => assert!(
                    dx.max(dy) <= 6,
                    "{l:?} is away from ({x}, {y}) without a leader"
                ),
                Some([from, to]) => {
                    leaders += 1;
                    assert_eq!(from, (x, y));
                    assert_eq!((to.0 - x).abs(), dx);
                }
            }
        }
        assert!(leaders > 0);
    }

    #[test]
    fn a_label_at_the_right_edge_goes_left() {
        let labels = place_labels(&[((395, 100), "bf16")], 4, 6.0, 12, area(400, 200));
        assert!(labels[0].at.x + labels[0].at.w <= 395);
    }

    #[test]
    fn a_crowded_label_still_gets_drawn() {
        let points: Vec<((i32, i32), &str)> =
            (0..40).map(|i| ((20 + i * 5, 20), "a-long-name")).collect();
        assert_eq!(place_labels(&points, 2, 6.0, 12, area(200, 40)).len(), 40);
    }
}
