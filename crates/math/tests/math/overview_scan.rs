//! The lab's [`Overview`] finds the range of the finite values and the first largest |x| exactly
//! as the fold one value at a time defines them (written out here), natively and in the browser,
//! where the pass runs in four simd128 lanes: ties for the largest |x| in every lane and in the
//! tail, NaN and ±∞ anywhere, ±0 as the minimum or maximum (whose sign depends on the order), and
//! lengths that leave every possible tail.

use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::lab::Overview;

/// (lo, hi, peak): the fold in order (an equal value replaces the running one, so −0 and +0 tell
/// which came last; the first strictly largest |x| is the peak), then the Overview's own
/// treatment of an empty or single-valued range.
fn in_order(x: &[f32]) -> (f32, f32, usize) {
    let (mut lo, mut hi, mut peak, mut top) = (f32::INFINITY, f32::NEG_INFINITY, 0, -1f32);
    for (i, &v) in x.iter().enumerate().filter(|(_, v)| v.is_finite()) {
        lo = if lo < v { lo } else { v };
        hi = if hi < v { v } else { hi };
        if v.abs() > top {
            (peak, top) = (i, v.abs());
        }
    }
    if lo > hi {
        return (-1.0, 1.0, peak);
    }
    if lo == hi {
        let pad = lo.abs().max(1.0) * 0.5;
        return (lo - pad, lo + pad, peak);
    }
    (lo, hi, peak)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_overview_pass_is_the_fold_in_order() {
    let mut rng = SplitMix64(0x0E5C);
    let specials = [
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2.0,
        -2.0,
        1e-45,
    ];
    for round in 0..4000 {
        let len = round % 23;
        // One round in three has no negative value, one no positive one: ±0 is then the
        // minimum or the maximum.
        let signed = [
            &[0.0, -0.0, 1.0, 2.0, f32::NAN, 0.5][..],
            &[0.0, -0.0, -1.0, -3.0, f32::INFINITY],
        ];
        let x: Vec<f32> = (0..len)
            .map(|_| match (round % 3, rng.next_u64() % 4) {
                (1 | 2, _) => {
                    let from = signed[round % 3 - 1];
                    from[(rng.next_u64() % from.len() as u64) as usize]
                }
                (_, 0) => specials[(rng.next_u64() % specials.len() as u64) as usize],
                (_, 1) => (rng.next_u64() % 5) as f32 - 2.0,
                _ => rng.normal() as f32,
            })
            .collect();
        let o = Overview::new(&x);
        let (lo, hi, peak) = in_order(&x);
        assert_eq!(
            (o.lo.to_bits(), o.hi.to_bits(), o.peak),
            (lo.to_bits(), hi.to_bits(), peak),
            "{x:?}: ({}, {}, {}) against ({lo}, {hi}, {peak})",
            o.lo,
            o.hi,
            o.peak
        );
    }
}
