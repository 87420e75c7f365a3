//! The histograms' fast bin loops (f32 arithmetic, simd128 lanes in wasm) give exactly the bins
//! of the f64 definitions: [`Bins::indices`] against [`Bins::index_or_past_end`] value by value,
//! and [`GrowingHistogram::add_differences`] against [`GrowingHistogram::push`] of each
//! difference, on values placed at, just below and just above every bin edge, on tiny errors
//! around the sizes where the f64 sum starts to round, on ±0, NaN, ±∞, subnormals and the
//! largest floats, and over ranges from 2^-140 to 2^127. The f32 loops run in wasm only
//! (`histogram/f32_bins.rs`, `USED`), so the browser run is the one that checks them; natively
//! the same assertions hold for the f64 loops.

use bitbudget_math::quant::generate::SplitMix64;
use bitbudget_math::quant::histogram::{Bins, GrowingHistogram, FINE};

/// `v` (finite) and the floats on either side of it.
fn around(v: f32) -> [f32; 3] {
    if v == 0.0 {
        return [-1e-45, v, 1e-45];
    }
    let (toward_zero, away) = (
        f32::from_bits(v.to_bits() - 1),
        f32::from_bits(v.to_bits() + 1),
    );
    if v > 0.0 {
        [toward_zero, v, away]
    } else {
        [away, v, toward_zero]
    }
}

/// Values at and around every edge of `count` bins over [lo, hi], some beyond, and the specials.
fn edge_values(count: usize, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = Vec::new();
    for k in 0..=count + 1 {
        let t = k as f64 / count as f64;
        let edge = (lo as f64 + (hi as f64 - lo as f64) * t) as f32;
        x.extend(around(edge));
        x.extend(around(
            (edge as f64 + (hi as f64 - lo as f64) / count as f64 / 2.0) as f32,
        ));
    }
    x.extend([
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
    ]);
    x.extend([
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        3.0e38,
        -3.0e38,
    ]);
    x
}

/// `indices` over runs of every length up to 9 (lanes and tails) equals `index_or_past_end`.
fn assert_fixed_bins_agree(count: usize, lo: f32, hi: f32, x: &[f32]) {
    let bins = Bins::new(count, lo, hi);
    for len in 1..=9 {
        for run in x.chunks(len) {
            let mut at = vec![7u32; run.len()];
            bins.indices(run, &mut at);
            for (v, got) in run.iter().zip(&at) {
                let want = bins.index_or_past_end(*v) as u32;
                assert_eq!(
                    *got,
                    want,
                    "{v:e} ({:#x}) in {count} bins over [{lo:e}, {hi:e}]",
                    v.to_bits()
                );
            }
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn fixed_bins_from_f32_lanes_are_the_f64_bins_at_every_edge() {
    let mut rng = SplitMix64(0xB1B5);
    let mut ranges = vec![
        (80, -0.1, 0.1),
        (80, -1.0, 3.0),
        (80, 0.0, 1.0),
        (80, -3.0e38, 3.0e38),
        (80, 1e-40, 1e-39),
        (80, 5.0, 5.0),
        (1, -2.0, 2.0),
        (4096, -1.0, 1.0),
        (70_000, -1.0, 1.0),
    ];
    for _ in 0..200 {
        let a = (rng.normal() * 10f64.powf(rng.unit() * 12.0 - 6.0)) as f32;
        let b = a + (rng.unit() * 10f64.powf(rng.unit() * 12.0 - 6.0)) as f32;
        ranges.push((1 + (rng.next_u64() % 200) as usize, a, b));
    }
    for (count, lo, hi) in ranges {
        let mut x = edge_values(count.min(4096), lo, hi);
        x.extend((0..64).map(|_| lo + (hi - lo) * (rng.unit() as f32 * 1.2 - 0.1)));
        assert_fixed_bins_agree(count, lo, hi, &x);
    }
}

/// `add_differences` of (a, b) equals `push` of each b − a, from a range of 2^`exponent`.
fn assert_fine_bins_agree(exponent: i32, a: &[f32], b: &[f32]) {
    let (mut fast, mut one_by_one) = (
        GrowingHistogram::starting_at(Some(exponent)),
        GrowingHistogram::starting_at(Some(exponent)),
    );
    fast.add_differences(a, b);
    for (a, b) in a.iter().zip(b) {
        one_by_one.push(b - a);
    }
    assert_eq!(
        fast.exponent(),
        one_by_one.exponent(),
        "range from 2^{exponent}"
    );
    let (got, want) = (fast.fine_counts(), one_by_one.fine_counts());
    if got != want {
        let bin = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
        panic!(
            "range 2^{exponent}: fine bin {bin} counts {} against {}",
            got[bin], want[bin]
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn fine_bins_from_f32_lanes_are_the_f64_bins_for_every_range() {
    let mut rng = SplitMix64(0xF1E);
    for exponent in (-140..=127).step_by(3).chain([-116, -117, -115, 0, 11, 12]) {
        let r = 2f64.powi(exponent);
        let width = 2.0 * r / FINE as f64;
        let mut e = Vec::new();
        // Every 37th edge and the ones next to 0 and ±R, each with its neighbours.
        for k in (0..=FINE)
            .step_by(37)
            .chain([FINE / 2 - 1, FINE / 2, FINE / 2 + 1, 0, 1, FINE])
        {
            let edge = (-r + k as f64 * width) as f32;
            e.extend(around(edge));
        }
        // Tiny errors around 2^-29 R and 2^-54 R, where the f64 sum e + R starts to round.
        for shift in [-20, -28, -29, -30, -53, -54, -55, -80] {
            let t = (r * 2f64.powi(shift)) as f32;
            for v in around(t) {
                e.extend([v, -v, v * 1.5, -v * 1.5]);
            }
        }
        e.extend([0.0, -0.0, 1e-45, -1e-45]);
        e.retain(|v| v.is_finite() && (v.abs() as f64) <= r);
        // As differences of 0 and e (exact), then of random pairs around the same scale.
        let zeros = vec![0.0; e.len()];
        assert_fine_bins_agree(exponent, &zeros, &e);
        let a: Vec<f32> = (0..600).map(|_| (rng.normal() * r) as f32).collect();
        let b: Vec<f32> = a
            .iter()
            .map(|v| v + (rng.normal() * r * 10f64.powf(-rng.unit() * 8.0)) as f32)
            .collect();
        assert_fine_bins_agree(exponent, &a, &b);
    }
    // Non-finite values and differences beyond the range take the one-by-one path, as before.
    let a = [0.0, 1.0, f32::NAN, 2.0, 0.5];
    let b = [0.25, f32::INFINITY, 1.0, 2.0, 4.0];
    assert_fine_bins_agree(-1, &a, &b);
}
