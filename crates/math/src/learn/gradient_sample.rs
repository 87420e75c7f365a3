//! Real gradients read from a safetensors file written by `scripts/extract_sample_gradient.py`
//! (all-MiniLM-L6-v2 fine-tuned a few steps under PyTorch): a large sample of one step's
//! gradients for a histogram, a small sample of each training step for dynamic loss scaling, and
//! the file's provenance (its `__metadata__`).

use crate::quant::error::QuantError;
use crate::quant::tensor_io::{read_safetensors, safetensors_index, safetensors_metadata};

/// Name of the tensor holding the histogram's sample.
pub const HISTOGRAM_TENSOR: &str = "histogram";

/// Prefix of the per-step tensors (`step_01`, `step_02`, …; the number is the 1-based step).
pub const STEP_PREFIX: &str = "step_";

/// The gradients and provenance of one gradient file.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientSample {
    /// One step's gradients, sampled for a histogram (F32 as computed, never rounded).
    pub histogram: Vec<f32>,
    /// Each training step's sample, in step order.
    pub steps: Vec<Vec<f32>>,
    /// The `__metadata__` entries, in file order (model, package, loss, versions, …).
    pub metadata: Vec<(String, String)>,
}

impl GradientSample {
    /// Reads a gradient file: a 1-D F32 tensor named [`HISTOGRAM_TENSOR`] and one or more named
    /// [`STEP_PREFIX`]`NN`, ordered by name. A file without them, or with another dtype, is an
    /// `Err` naming what is missing; nothing panics.
    pub fn read(bytes: &[u8]) -> Result<Self, QuantError> {
        let index = safetensors_index(bytes)?;
        let float = |name: &str| -> Result<Vec<f32>, QuantError> {
            match index.iter().find(|t| t.name == name) {
                Some(t) if t.dtype != "F32" => Err(QuantError::BadFile(format!(
                    "gradient tensor '{name}' is {}, not F32",
                    t.dtype
                ))),
                _ => Ok(read_safetensors(bytes, name)?.values),
            }
        };
        let mut step_names: Vec<&str> = index
            .iter()
            .map(|t| t.name.as_str())
            .filter(|n| n.starts_with(STEP_PREFIX))
            .collect();
        step_names.sort_unstable();
        if step_names.is_empty() {
            return Err(QuantError::BadFile(format!(
                "the gradient file has no per-step tensors ('{STEP_PREFIX}01', …)"
            )));
        }
        Ok(Self {
            histogram: float(HISTOGRAM_TENSOR)?,
            steps: step_names
                .into_iter()
                .map(float)
                .collect::<Result<_, _>>()?,
            metadata: safetensors_metadata(bytes)?,
        })
    }

    /// The metadata entry `key`, if the file has it.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The metadata entry `key` read as a JSON list of numbers (`[0.038, 0.0297]`), or as one
    /// number; empty when the entry is absent or anything in it is not a number.
    pub fn meta_numbers(&self, key: &str) -> Vec<f64> {
        let Some(text) = self.meta(key) else {
            return Vec::new();
        };
        let inner = text.trim().trim_start_matches('[').trim_end_matches(']');
        inner
            .split(',')
            .filter(|t| !t.trim().is_empty())
            .map(|t| t.trim().parse::<f64>())
            .collect::<Result<Vec<_>, _>>()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A safetensors file of 1-D F32 tensors and string metadata, as the extraction script writes.
    fn file(tensors: &[(&str, &[f32])], meta: &str) -> Vec<u8> {
        let mut header = format!("{{\"__metadata__\":{{{meta}}}");
        let mut data = Vec::new();
        for (name, values) in tensors {
            let start = data.len();
            data.extend(values.iter().flat_map(|v| v.to_le_bytes()));
            header += &format!(
                ",\"{name}\":{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[{start},{}]}}",
                values.len(),
                data.len()
            );
        }
        header.push('}');
        let mut out = (header.len() as u64).to_le_bytes().to_vec();
        out.extend(header.as_bytes());
        out.extend(data);
        out
    }

    #[test]
    fn steps_come_back_in_step_order_with_the_metadata() {
        let bytes = file(
            &[
                ("step_02", &[2.0]),
                ("histogram", &[1e-9, 0.5]),
                ("step_01", &[1.0, -1.0]),
            ],
            "\"model\":\"m\",\"losses\":\"[0.1, 0.2]\"",
        );
        let g = GradientSample::read(&bytes).unwrap();
        assert_eq!(g.histogram, vec![1e-9, 0.5]);
        assert_eq!(g.steps, vec![vec![1.0, -1.0], vec![2.0]]);
        assert_eq!(g.meta("model"), Some("m"));
        assert_eq!(g.meta("losses"), Some("[0.1, 0.2]"));
        assert_eq!(g.meta("nothing"), None);
        assert_eq!(g.meta_numbers("losses"), vec![0.1, 0.2]);
        assert_eq!(g.meta_numbers("model"), Vec::<f64>::new());
    }

    #[test]
    fn a_file_without_the_gradient_tensors_says_what_is_missing() {
        let no_steps = file(&[("histogram", &[1.0])], "");
        let e = GradientSample::read(&no_steps).unwrap_err().to_string();
        assert!(e.contains("no per-step tensors"), "{e}");
        let no_histogram = file(&[("step_01", &[1.0])], "");
        let e = GradientSample::read(&no_histogram).unwrap_err().to_string();
        assert!(e.contains("histogram"), "{e}");
        assert!(GradientSample::read(b"not a file").is_err());
        assert!(GradientSample::read(&[]).is_err());
    }
}
