//! State of the Quantize lab: the query, the loaded tensor, and results computed in chunks by an
//! async task that yields to the browser between chunks (with a progress value), so large tensors
//! never freeze the page. A newer request cancels an older one.

use crate::ui::quant_query::{QuantQuery, TensorSource};
use bitbudget_math::quant::analysis::{analyse, padded, PartQuantizer, SchemeResult};
use bitbudget_math::quant::generate::generate;
use bitbudget_math::quant::nf4;
use bitbudget_math::quant::scheme::{nf4_double_quant_bytes, Scheme};
use bitbudget_math::quant::tensor_io::{
    read_npy, read_safetensors, safetensors_index, Tensor, TensorInfo,
};
use leptos::prelude::*;
use std::sync::Arc;

/// Values per chunk between yields to the browser.
pub const CHUNK_VALUES: usize = 1 << 18;

/// A user's file, kept so another tensor in it can be picked.
#[derive(Clone, Debug, PartialEq)]
pub struct Upload {
    /// File name.
    pub file: String,
    /// The raw bytes.
    pub bytes: Arc<Vec<u8>>,
    /// Tensors in a safetensors file (empty for .npy).
    pub index: Vec<TensorInfo>,
    /// The tensor in use.
    pub tensor: Tensor,
}

/// The computed view: every scheme's result and the selected scheme's reconstruction.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct LabResults {
    /// The tensor analysed.
    pub original: Arc<Vec<f32>>,
    /// One row per scheme.
    pub rows: Vec<SchemeResult>,
    /// Dequantized values per scheme (same order as rows).
    pub reconstructions: Vec<Arc<Vec<f32>>>,
    /// Quantized bytes per scheme.
    pub bytes: Vec<Arc<Vec<u8>>>,
}

/// The lab's state, provided through context.
#[derive(Clone, Copy)]
pub struct QuantState {
    /// Controls.
    pub query: RwSignal<QuantQuery>,
    /// The uploaded file, if any.
    pub upload: RwSignal<Option<Upload>>,
    /// The last upload error (the previous state stays).
    pub upload_error: RwSignal<Option<String>>,
    /// The shipped sample file once fetched (or why it could not be).
    pub sample: RwSignal<Option<Result<Arc<Vec<u8>>, String>>>,
    /// Progress of the running computation, 0..=1 (1 when idle).
    pub progress: RwSignal<f64>,
    /// The latest finished results.
    pub results: RwSignal<Option<LabResults>>,
    /// Incremented for every new computation; a running task stops when it is outdated.
    pub generation: StoredValue<u64>,
    /// Parameters of the model used for whole-model bytes.
    pub model_params: RwSignal<f64>,
}

impl QuantState {
    /// State starting from `initial`.
    pub fn new(initial: QuantQuery) -> Self {
        Self {
            query: RwSignal::new(initial),
            upload: RwSignal::new(None),
            upload_error: RwSignal::new(None),
            sample: RwSignal::new(None),
            progress: RwSignal::new(1.0),
            results: RwSignal::new(None),
            generation: StoredValue::new(0),
            model_params: RwSignal::new(8.03e9),
        }
    }

    /// The tensor the query selects, or why there is none yet.
    pub fn tensor(&self) -> Result<Tensor, String> {
        self.tensor_for(&self.query.get())
    }

    /// The tensor `q` selects (tracks the sample and the upload, not the query).
    pub fn tensor_for(&self, q: &QuantQuery) -> Result<Tensor, String> {
        match &q.tensor {
            TensorSource::Synthetic(dist) => Ok(Tensor {
                name: format!("{dist:?}"),
                shape: vec![256, 512],
                values: generate(*dist, 256, 512, 0.02, q.seed),
            }),
            TensorSource::Sample(name) => match self.sample.get() {
                Some(Ok(bytes)) => read_safetensors(&bytes, name),
                Some(Err(e)) => Err(e),
                None => Err("loading the sample tensor…".into()),
            },
            TensorSource::Upload => self
                .upload
                .get()
                .map(|u| u.tensor)
                .ok_or_else(|| "choose a .npy or .safetensors file".into()),
        }
    }

    /// Reads a user file; on any error the previous tensor stays and the error is shown.
    pub fn load_file(&self, file: String, bytes: Vec<u8>) {
        let bytes = Arc::new(bytes);
        let result = if file.ends_with(".npy") {
            // A .npy holds one unnamed array: the file's name says which it is.
            read_npy(&bytes).map(|t| {
                let name = file.clone();
                (Vec::new(), Tensor { name, ..t })
            })
        } else {
            safetensors_index(&bytes).and_then(|index| {
                let first = index
                    .iter()
                    .find(|t| t.supported)
                    .ok_or("no F32, F16 or BF16 tensor in the file")?;
                Ok((index.clone(), read_safetensors(&bytes, &first.name)?))
            })
        };
        match result.and_then(|(index, tensor)| {
            if tensor.values.is_empty() {
                Err("the tensor is empty".into())
            } else {
                Ok((index, tensor))
            }
        }) {
            Ok((index, tensor)) => {
                self.upload_error.set(None);
                self.upload.set(Some(Upload {
                    file,
                    bytes,
                    index,
                    tensor,
                }));
                self.query.update(|q| q.tensor = TensorSource::Upload);
            }
            Err(e) => self.upload_error.set(Some(format!("{file}: {e}"))),
        }
    }

    /// Picks another tensor of the uploaded safetensors file.
    pub fn pick_uploaded(&self, name: &str) {
        let Some(u) = self.upload.get_untracked() else {
            return;
        };
        match read_safetensors(&u.bytes, name) {
            Ok(tensor) => {
                self.upload_error.set(None);
                self.upload.set(Some(Upload { tensor, ..u }));
            }
            Err(e) => self.upload_error.set(Some(e)),
        }
    }
}

/// Yields to the browser's event loop (a zero-delay timeout).
async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Analyses `values` under every scheme, a chunk at a time; publishes the results unless a newer
/// computation started meanwhile.
pub async fn compute(state: QuantState, values: Vec<f32>, query: QuantQuery, generation: u64) {
    let outdated = move || state.generation.get_value() != generation;
    let total = (Scheme::ALL.len() * values.len().div_ceil(CHUNK_VALUES).max(1)) as f64;
    let mut done = 0.0;
    let mut results = LabResults {
        original: Arc::new(values.clone()),
        ..Default::default()
    };
    for scheme in Scheme::ALL {
        let block = query.block_for(scheme);
        let x = padded(&values, block);
        let q = PartQuantizer::new(scheme, &x, block);
        let mut bytes = q.header();
        for part in x.chunks(q.part_len(CHUNK_VALUES)) {
            match q.part(part) {
                Ok(b) => bytes.extend(b),
                Err(e) => {
                    web_sys::console::warn_1(&format!("{scheme}: {e}").into());
                    break;
                }
            }
            done += 1.0;
            state.progress.set((done / total).min(0.99));
            yield_now().await;
            if outdated() {
                return;
            }
        }
        if scheme == Scheme::Nf4 && query.double_quant {
            match nf4_double_quant_bytes(&x, block) {
                Ok(b) => bytes = b,
                Err(e) => web_sys::console::warn_1(&format!("nf4 double quantization: {e}").into()),
            }
        }
        if let Ok((mut row, y)) = analyse(scheme, &x, values.len(), block, &bytes) {
            if scheme == Scheme::Nf4 && query.double_quant {
                row.bits_per_weight = nf4::bits_per_weight(block, true);
                row.bytes = (row.bits_per_weight * x.len() as f64 / 8.0).ceil() as usize;
            }
            results.rows.push(row);
            results.reconstructions.push(Arc::new(y));
            results.bytes.push(Arc::new(bytes));
        }
    }
    if !outdated() {
        state.results.set(Some(results));
        state.progress.set(1.0);
    }
}
