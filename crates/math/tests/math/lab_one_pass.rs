//! The lab's measuring pass (histogram bins and the metrics' sums in simd128 lanes in wasm)
//! gives exactly what measuring pair by pair gives: the metrics of `error_metrics`, the
//! whole-tensor histograms of the dequantized values and of the errors, and for each error-map
//! cell the RMSE of its block. Parts start on odd ranks, error-map blocks of odd and even
//! lengths end anywhere in a vector, NaN and ±inf break the runs of 256 and an error widens the
//! error histogram's range; natively and in the browser.

use bitbudget_math::quant::codec::{dequantize, quantize};
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::histogram::{histogram, GrowingHistogram};
use bitbudget_math::quant::lab::{Overview, SchemeRun, BINS};
use bitbudget_math::quant::metrics::error_metrics;
use bitbudget_math::quant::scheme::Scheme;

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_one_pass_measures_what_measuring_pair_by_pair_gives() {
    let clean = generate(Distribution::Laplace, 7, 1000, 0.05, 31);
    let mut broken = clean.clone();
    for (at, v) in [
        (5, f32::NAN),
        (255, f32::INFINITY),
        (256, -1e-30),
        (1301, 40.0),
        (2047, f32::NEG_INFINITY),
        (4323, 0.0),
    ] {
        broken[at] = v;
    }
    for x in [&clean, &broken] {
        let overview = Overview::new(x);
        for (scheme, block, target) in [
            (Scheme::AbsmaxInt8, 33, 700),
            (Scheme::AbsmaxInt8, 50, 700),
            (Scheme::AbsmaxInt8, 64, 1000),
            (Scheme::Nf4, 64, 700),
            (Scheme::Bf16, 1, 701),
            (Scheme::Bf16, 1, 333),
            (Scheme::ZeroPointInt4, 37, 900),
        ] {
            let mut run = SchemeRun::new(scheme, x, block, false, &overview, target);
            while !run.done() {
                run.step().expect("whole blocks");
            }
            let (row, detail) = run.finish();
            let mut padded = x.clone();
            padded.resize(x.len().next_multiple_of(block), 0.0);
            let bytes = quantize(scheme, &padded, block).expect("whole blocks");
            let y = &dequantize(scheme, &bytes, block).expect("its bytes")[..x.len()];
            let what = format!("{scheme} block {block}, parts of {target}");
            // Debug text: every digit, and a NaN cosine equals a NaN cosine.
            assert_eq!(
                format!("{:?}", row.metrics),
                format!("{:?}", error_metrics(x, y)),
                "{what}"
            );
            assert_eq!(
                detail.dequantized,
                histogram(y, overview.lo, overview.hi, BINS),
                "{what}"
            );
            let mut errors = GrowingHistogram::default();
            for (a, b) in x.iter().zip(y) {
                errors.push(b - a);
            }
            assert_eq!(detail.errors, errors.finish(BINS), "{what}");
            let heat: Vec<f32> = x
                .chunks(detail.heat_block)
                .zip(y.chunks(detail.heat_block))
                .map(|(a, b)| error_metrics(a, b))
                .map(|m| {
                    if m.lost > 0 {
                        f32::INFINITY
                    } else {
                        m.rmse as f32
                    }
                })
                .collect();
            assert_eq!(detail.heat, heat, "{what}");
        }
    }
}
