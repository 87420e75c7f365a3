//! Chapter 13's widget: absmax and zero-point INT8 on a small worked example, with and without an
//! outlier, through the math crate's quantizers.

use super::qat_widget::QatWidget;
use crate::ui::pages::quant::query::{QuantQuery, TensorSource};
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::numbers::short;
use bitbudget_math::quant::generate::Distribution;
use bitbudget_math::quant::llm_int8::OUTLIER_THRESHOLD;
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::{absmax, zeropoint};
use leptos::prelude::*;

/// The worked example: eight weights of a typical size (inputs, not results).
const EXAMPLE: [f32; 8] = [0.12, -0.31, 0.05, 0.27, -0.08, 0.19, -0.22, 0.02];

/// The outlier that replaces the last weight when asked for.
const OUTLIER: f32 = 6.0;

/// One worked row: the value, its absmax code and value back, its zero-point code and value back.
pub struct Worked {
    /// The input.
    pub x: f32,
    /// Absmax INT8 code.
    pub absmax_code: i8,
    /// What the absmax code decodes to.
    pub absmax_back: f32,
    /// Zero-point UINT8 code.
    pub zp_code: u8,
    /// What the zero-point code decodes to.
    pub zp_back: f32,
    /// Absmax INT8 with one scale per block of [`BLOCK`] weights, decoded.
    pub block_back: f32,
    /// Weights with |x| ≥ LLM.int8()'s threshold kept in FP16, the rest absmax INT8 over
    /// themselves, decoded.
    pub mixed_back: f32,
}

/// Weights per block in the block-wise column.
pub const BLOCK: usize = 4;

/// Absmax INT8 of `x` decoded again.
fn absmax_round_trip(x: &[f32]) -> Vec<f32> {
    let q = absmax::quantize(x);
    let mut back = vec![0.0; x.len()];
    absmax::dequantize_codes(q.scale, q.codes.iter().copied(), &mut back);
    back
}

/// LLM.int8()'s split on single weights: |x| ≥ [`OUTLIER_THRESHOLD`] stays in FP16, the others
/// share one absmax INT8 scale.
fn mixed_round_trip(x: &[f32]) -> Vec<f32> {
    let outlier = |v: f32| v.abs() >= OUTLIER_THRESHOLD;
    let inliers: Vec<f32> = x
        .iter()
        .map(|&v| if outlier(v) { 0.0 } else { v })
        .collect();
    let back = absmax_round_trip(&inliers);
    x.iter()
        .zip(back)
        .map(|(&v, b)| {
            if outlier(v) {
                FormatId::F16.decode(FormatId::F16.encode(v as f64, Overflow::Native)) as f32
            } else {
                b
            }
        })
        .collect()
}

/// The example (with the outlier when `outlier`), quantized both ways as one block.
pub fn worked(outlier: bool) -> Vec<Worked> {
    let mut x = EXAMPLE.to_vec();
    if outlier {
        x[7] = OUTLIER;
    }
    let a = absmax::quantize(&x);
    let z = zeropoint::quantize(&x, 8);
    let mut a_back = vec![0.0; x.len()];
    absmax::dequantize_codes(a.scale, a.codes.iter().copied(), &mut a_back);
    let mut z_back = vec![0.0; x.len()];
    zeropoint::dequantize_codes(z.scale, z.zero_point, &z.codes, &mut z_back);
    let block_back: Vec<f32> = x.chunks(BLOCK).flat_map(absmax_round_trip).collect();
    let mixed_back = mixed_round_trip(&x);
    (0..x.len())
        .map(|i| Worked {
            x: x[i],
            absmax_code: a.codes[i],
            absmax_back: a_back[i],
            zp_code: z.codes[i],
            zp_back: z_back[i],
            block_back: block_back[i],
            mixed_back: mixed_back[i],
        })
        .collect()
}

/// The example table with an outlier switch.
#[component]
pub fn QuantizeWidget() -> impl IntoView {
    let outlier = RwSignal::new(false);
    let rows = move || {
        worked(outlier.get())
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                view! {
                    <tr>
                        <td class="num">{short(w.x as f64, 3)}</td>
                        <td class="num" data-testid=format!("learn-absmax-{i}")>{format!("{} → {}", w.absmax_code, short(w.absmax_back as f64, 3))}</td>
                        <td class="num" data-testid=format!("learn-zp-{i}")>{format!("{} → {}", w.zp_code, short(w.zp_back as f64, 3))}</td>
                        <td class="num" data-testid=format!("learn-block-{i}")>{short(w.block_back as f64, 3)}</td>
                        <td class="num" data-testid=format!("learn-mixed-{i}")>{short(w.mixed_back as f64, 3)}</td>
                    </tr>
                }
            })
            .collect_view()
    };
    let link = move || {
        let mut q = QuantQuery {
            scheme: Scheme::AbsmaxInt8,
            ..QuantQuery::default()
        };
        if outlier.get() {
            q.tensor = TensorSource::Synthetic(q.outlier_distribution());
        } else {
            q.tensor = TensorSource::Synthetic(Distribution::Normal);
        }
        q.to_query_string(false)
    };
    view! {
        <div class="learn-widget" data-testid="learn-widget">
            <label class="learn-knob"><input type="checkbox" data-testid="learn-outlier" on:change=move |ev| outlier.set(event_target_checked(&ev)) />" add an outlier (6.0)"</label>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on narrow screens)">
                <table class="learn-table">
                    <thead><tr><th scope="col">"weight"</th><th scope="col">"absmax INT8: code → back"</th><th scope="col">"zero-point UINT8: code → back"</th><th scope="col">{format!("absmax per {BLOCK}: back")}</th><th scope="col">"|x| ≥ 6 in FP16: back"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <QatWidget />
            <p><a href=link data-testid="learn-open-quant">"Open absmax on a whole tensor in the Quantize page"</a></p>
        </div>
    }
}
