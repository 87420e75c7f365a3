//! Representable values near a point, and how their spacing grows: the data behind number lines.

use super::catalog::{FormatId, Spec};
use super::minifloat::pow2;
use serde::Serialize;

/// The finite representable values of `id` nearest to `x`: the stored value of `x` and up to
/// `per_side` neighbours on each side, ascending, without duplicate zeros. Empty for NaN; infinite
/// or overflowing `x` is taken as the nearest end of the finite range.
pub fn representable_around(id: FormatId, x: f64, per_side: i64) -> Vec<f64> {
    if x.is_nan() {
        return Vec::new();
    }
    let clamped = x.clamp(id.lowest_value(), id.max_value());
    match id.spec() {
        Spec::Int(i) => {
            let c = clamped.round_ties_even() as i64;
            (c - per_side..=c + per_side)
                .filter(|v| (i.min()..=i.max()).contains(v))
                .map(|v| v as f64)
                .collect()
        }
        Spec::Float(f) => {
            let bits = f.encode(clamped, super::minifloat::Overflow::Saturate);
            let magnitude = (bits & !f.sign_mask()) as i64;
            let centre = if bits & f.sign_mask() != 0 {
                -magnitude
            } else {
                magnitude
            };
            let top = f.max_bits() as i64;
            (centre - per_side..=centre + per_side)
                .filter(|o| o.abs() <= top)
                .map(|o| {
                    let pattern = if o < 0 {
                        f.sign_mask() | (-o) as u32
                    } else {
                        o as u32
                    };
                    f.to_f64(pattern)
                })
                .collect()
        }
    }
}

/// A range of magnitudes [lo, hi) in which consecutive representable values are `spacing` apart.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SpacingBand {
    /// Lower end (inclusive).
    pub lo: f64,
    /// Upper end (exclusive; the max finite value for the last band, inclusive).
    pub hi: f64,
    /// Gap between neighbours in this band.
    pub spacing: f64,
    /// Whether the band is the subnormal range.
    pub subnormal: bool,
}

/// The positive range of `id` as bands of constant spacing, ascending: the subnormal band, then one
/// band per binade (floats); one band 1..=max with spacing 1 for integers.
pub fn spacing_bands(id: FormatId) -> Vec<SpacingBand> {
    match id.spec() {
        Spec::Int(_) => vec![SpacingBand {
            lo: 1.0,
            hi: id.max_value(),
            spacing: 1.0,
            subnormal: false,
        }],
        Spec::Float(f) => {
            let m = f.man_bits as i32;
            let mut bands = vec![SpacingBand {
                lo: pow2(f.emin() - m),
                hi: pow2(f.emin()),
                spacing: pow2(f.emin() - m),
                subnormal: true,
            }];
            for e in f.emin()..=f.emax() {
                let hi = if e == f.emax() {
                    id.max_value()
                } else {
                    pow2(e + 1)
                };
                bands.push(SpacingBand {
                    lo: pow2(e),
                    hi,
                    spacing: pow2(e - m),
                    subnormal: false,
                });
            }
            bands
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_of_one_in_bf16() {
        let v = representable_around(FormatId::Bf16, 1.0, 1);
        assert_eq!(v, vec![1.0 - 1.0 / 256.0, 1.0, 1.0 + 1.0 / 128.0]);
    }

    #[test]
    fn neighbours_cross_zero_once_and_stop_at_max() {
        let v = representable_around(FormatId::F4E2M1, 0.0, 2);
        assert_eq!(v, vec![-1.0, -0.5, 0.0, 0.5, 1.0]);
        let top = representable_around(FormatId::F8E4M3, 1e9, 2);
        assert_eq!(top, vec![384.0, 416.0, 448.0]);
        assert_eq!(
            representable_around(FormatId::Int4, 7.0, 2),
            vec![5.0, 6.0, 7.0]
        );
    }

    #[test]
    fn spacing_doubles_every_binade() {
        let bands = spacing_bands(FormatId::F8E4M3);
        assert!(bands[0].subnormal && bands[0].spacing == 0.001953125);
        assert_eq!(bands.last().unwrap().spacing, 32.0);
        assert_eq!(bands.last().unwrap().hi, 448.0);
        for w in bands[1..].windows(2) {
            assert_eq!(w[1].spacing, 2.0 * w[0].spacing);
        }
    }
}
