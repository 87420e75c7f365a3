//! The shipped sample tensor (real MiniLM weights) parses and quantizes as expected.

use bitbudget_math::quant::codec::{dequantize, quantize};
use bitbudget_math::quant::metrics::error_metrics;
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::{read_safetensors, safetensors_index};

const SAMPLE: &[u8] = include_bytes!("../../../../../assets/tensors/minilm-l6-layer0.safetensors");

#[test]
fn sample_tensor_has_the_documented_tensors() {
    let index = safetensors_index(SAMPLE).unwrap();
    let names: Vec<&str> = index.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "layer0.attention.query.weight",
            "layer0.mlp.up.weight[:256]"
        ]
    );
    let q = read_safetensors(SAMPLE, "layer0.attention.query.weight").unwrap();
    assert_eq!(q.shape, vec![384, 384]);
    assert!(q.values.iter().all(|v| v.is_finite()));
    let rms =
        (q.values.iter().map(|v| (*v as f64).powi(2)).sum::<f64>() / q.values.len() as f64).sqrt();
    assert!(rms > 0.01 && rms < 0.5, "{rms}");
}

/// More bits, less error: on real weights SQNR orders Q8_0 > Q5_0 > Q4_0.
#[test]
fn more_bits_give_less_error_on_real_weights() {
    let x = read_safetensors(SAMPLE, "layer0.attention.query.weight")
        .unwrap()
        .values;
    let sqnr = |s: Scheme| {
        let b = s.block(None).unwrap();
        error_metrics(&x, &dequantize(s, &quantize(s, &x, b).unwrap(), b).unwrap()).sqnr_db
    };
    let (q8, q5, q4) = (
        sqnr("q8_0".parse().unwrap()),
        sqnr("q5_0".parse().unwrap()),
        sqnr("q4_0".parse().unwrap()),
    );
    assert!(q8 > q5 && q5 > q4 && q4 > 10.0, "{q8} {q5} {q4}");
}
