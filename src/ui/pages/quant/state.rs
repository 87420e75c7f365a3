//! State of the Quantize lab: the query, the loaded tensor, and results computed in chunks by an
//! async task that yields to the browser between chunks (with a progress value), so large tensors
//! never freeze the page. A newer request cancels an older one. The tensor itself is built once
//! per [`TensorKey`] (a memo) and shared by `Arc` with everything that reads it.

use crate::ui::pages::quant::gpu_lab::{look_for_gpu, GpuStatus};
use crate::ui::pages::quant::lab_upload;
use crate::ui::pages::quant::query::{QuantQuery, TensorSource};
use crate::ui::pages::quant::ran_on::RanOn;
use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::generate::generate;
use bitbudget_math::quant::lab::{Overview, SchemeDetail};
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::{read_safetensors, Tensor, TensorInfo};
use bitbudget_worker::read_upload;
use leptos::prelude::*;
use std::sync::Arc;

mod compute;

pub use compute::compute;

/// Files up to this size (bytes) are read on the page's thread: a worker costs more to start
/// than they take to read.
pub const READ_HERE_BYTES: usize = 4 << 20;

/// Values per part of the analysis (the page yields to the browser every [`SLICE_MS`]).
pub const CHUNK_VALUES: usize = 1 << 16;

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
    pub tensor: Arc<Tensor>,
}

/// The computed view: what every scheme shares about the tensor, and per scheme its row and the
/// summaries the charts draw. No per-scheme copy of the tensor is kept, so memory stays at about
/// one copy of the tensor whatever its size.
#[derive(Clone, Debug, PartialEq)]
pub struct LabResults {
    /// The tensor analysed (shared, not copied).
    pub tensor: Arc<Tensor>,
    /// Range and histogram of the tensor.
    pub overview: Arc<Overview>,
    /// One row per scheme.
    pub rows: Vec<SchemeResult>,
    /// Histograms, block errors and first values per scheme (same order as rows).
    pub details: Vec<Arc<SchemeDetail>>,
    /// Where the work ran.
    pub ran_on: RanOn,
}

/// What defines the current tensor: its source (a synthetic distribution carries its
/// parameters) and, for a synthetic one, the seed. Other query fields (scheme, block, double
/// quantization) do not rebuild it.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorKey {
    /// Where the tensor comes from.
    pub source: TensorSource,
    /// The generator's seed (0 for a sample or an upload, whose values do not depend on it).
    pub seed: u64,
}

impl TensorKey {
    /// The key of the tensor `q` selects.
    pub fn of(q: &QuantQuery) -> Self {
        let seed = match q.tensor {
            TensorSource::Synthetic(_) => q.seed,
            TensorSource::Sample(_) | TensorSource::Upload => 0,
        };
        Self {
            source: q.tensor.clone(),
            seed,
        }
    }
}

/// The current tensor, or why there is none yet (a sentence to show).
pub type TensorResult = Result<Arc<Tensor>, String>;

/// Whether a rebuilt tensor differs from the last one: the same `Arc` (or the same message) is
/// no change, without comparing the values.
fn tensor_changed(old: Option<&TensorResult>, new: Option<&TensorResult>) -> bool {
    match (old, new) {
        (Some(Ok(a)), Some(Ok(b))) => !Arc::ptr_eq(a, b),
        (Some(Err(a)), Some(Err(b))) => a != b,
        _ => true,
    }
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
    /// Incremented for every file read (or tensor picked) off the thread: only the latest one
    /// is used when it is done.
    pub reads: StoredValue<u64>,
    /// Parameters of the model used for whole-model bytes.
    pub model_params: RwSignal<f64>,
    /// The tensor the query selects, built once per [`TensorKey`] (read it with
    /// [`QuantState::tensor`]).
    pub current: Memo<TensorResult>,
    /// The page's GPU: looked for once at start.
    pub gpu: RwSignal<GpuStatus>,
    /// The scheme shown in detail, as a memo: what draws only it (the charts, the values grid)
    /// is not redrawn when another control changes, and waits for that change's new results.
    pub shown: Memo<Scheme>,
}

impl QuantState {
    /// State starting from `initial` (call inside a reactive owner: it creates memos).
    pub fn new(initial: QuantQuery) -> Self {
        let query = RwSignal::new(initial);
        let upload: RwSignal<Option<Upload>> = RwSignal::new(None);
        let sample = RwSignal::new(None);
        let key = Memo::new(move |_| query.with(TensorKey::of));
        let current = Memo::new_with_compare(
            move |_| key.with(|k| build_tensor(k, sample, upload)),
            tensor_changed,
        );
        Self {
            query,
            upload,
            upload_error: RwSignal::new(None),
            sample,
            progress: RwSignal::new(1.0),
            results: RwSignal::new(None),
            generation: StoredValue::new(0),
            reads: StoredValue::new(0),
            model_params: RwSignal::new(8.03e9),
            current,
            shown: Memo::new(move |_| query.with(|q| q.scheme)),
            gpu: {
                let gpu = RwSignal::new(GpuStatus::Looking);
                look_for_gpu(gpu);
                gpu
            },
        }
    }

    /// The tensor the query selects, or why there is none yet (tracked; shared, not rebuilt).
    pub fn tensor(&self) -> TensorResult {
        self.current.get()
    }

    /// Reads a user's chosen file `name` in a Web Worker, or on the page's thread where none can
    /// start; on any error the previous tensor stays and the error is shown. Of files chosen one
    /// after the other, the last one chosen is used, whichever is read first.
    pub async fn load_chosen(self, name: String, file: web_sys::File) {
        let read = self.next_read();
        let result = lab_upload::read_off_thread(&name, &file).await;
        // A later file was chosen meanwhile, or the page is gone.
        if self.reads.try_get_value() != Some(read) {
            return;
        }
        match result {
            Ok(Some((index, tensor, bytes))) => {
                self.accept_upload(name, Ok((index, tensor)), bytes)
            }
            Ok(None) => {
                let Ok(buffer) = wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await
                else {
                    let why = format!("{name}: the browser could not read the file");
                    return self.upload_error.set(Some(why));
                };
                if self.reads.get_value() == read {
                    self.load_file(name, js_sys::Uint8Array::new(&buffer).to_vec())
                }
            }
            Err(e) => self.upload_error.set(Some(format!("{name}: {e}"))),
        }
    }

    /// Reads a user file on the page's thread; on any error the previous tensor stays and the
    /// error is shown.
    pub fn load_file(&self, file: String, bytes: Vec<u8>) {
        let read = read_upload(&file, &bytes);
        self.accept_upload(file, read, Arc::new(bytes));
    }

    /// Uses a file `read` (its tensors and tensor) or shows why not; `bytes` are kept where
    /// the file has other tensors to pick.
    fn accept_upload(
        &self,
        file: String,
        read: Result<(Vec<TensorInfo>, Tensor), String>,
        bytes: Arc<Vec<u8>>,
    ) {
        match read {
            Ok((index, tensor)) => {
                self.upload_error.set(None);
                self.upload.set(Some(Upload {
                    file,
                    // A .npy has nothing else to pick: keep only the values.
                    bytes: if index.is_empty() {
                        Arc::default()
                    } else {
                        bytes
                    },
                    index,
                    tensor: Arc::new(tensor),
                }));
                self.query.update(|q| q.tensor = TensorSource::Upload);
            }
            Err(e) => self.upload_error.set(Some(format!("{file}: {e}"))),
        }
    }

    /// Picks another tensor of the uploaded safetensors file: in a Web Worker when the file is
    /// over [`READ_HERE_BYTES`] (the page's thread where none can start), else at once.
    pub fn pick_uploaded(&self, name: &str) {
        let Some(u) = self.upload.get_untracked() else {
            return;
        };
        let ticket = self.next_read();
        if u.bytes.len() <= READ_HERE_BYTES {
            let read = read_safetensors(&u.bytes, name).map_err(|e| e.to_string());
            return self.use_picked(u, read);
        }
        let (state, name) = (*self, name.to_string());
        leptos::task::spawn_local(async move {
            let read = match lab_upload::pick_off_thread(&u.bytes, &name).await {
                Ok(Some(tensor)) => Ok(tensor),
                Ok(None) => read_safetensors(&u.bytes, &name).map_err(|e| e.to_string()),
                Err(e) => Err(e),
            };
            if state.reads.get_value() == ticket {
                state.use_picked(u, read);
            }
        });
    }

    /// A new ticket for a read off the thread (older reads still under way are then dropped).
    fn next_read(&self) -> u64 {
        let ticket = self.reads.get_value() + 1;
        self.reads.set_value(ticket);
        ticket
    }

    /// Uses a picked tensor of upload `u`, or shows why not.
    fn use_picked(&self, u: Upload, read: Result<Tensor, String>) {
        match read {
            Ok(tensor) => {
                self.upload_error.set(None);
                self.upload.set(Some(Upload {
                    tensor: Arc::new(tensor),
                    ..u
                }));
            }
            Err(e) => self.upload_error.set(Some(e)),
        }
    }
}

/// Builds the tensor `key` selects: generates a synthetic one, decodes the sample, or takes the
/// upload's (tracks the sample and the upload).
fn build_tensor(
    key: &TensorKey,
    sample: RwSignal<Option<Result<Arc<Vec<u8>>, String>>>,
    upload: RwSignal<Option<Upload>>,
) -> TensorResult {
    match &key.source {
        TensorSource::Synthetic(dist) => Ok(Arc::new(Tensor {
            name: dist.to_string(),
            shape: vec![256, 512],
            values: generate(*dist, 256, 512, 0.02, key.seed),
        })),
        TensorSource::Sample(name) => sample.with(|s| match s {
            Some(Ok(bytes)) => read_safetensors(bytes, name)
                .map(Arc::new)
                .map_err(|e| e.to_string()),
            Some(Err(e)) => Err(e.clone()),
            None => Err("loading the sample tensor…".into()),
        }),
        TensorSource::Upload => upload
            .with(|u| u.as_ref().map(|u| u.tensor.clone()))
            .ok_or_else(|| "choose a .npy or .safetensors file".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::quant::generate::Distribution;
    use bitbudget_math::quant::scheme::Scheme;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn the_tensor_is_built_once_per_source_and_seed() {
        // The state looks for the page's GPU in a task of its own.
        let _ = any_spawner::Executor::init_wasm_bindgen();
        Owner::new().with(|| {
            let state = QuantState::new(QuantQuery::default());
            assert_eq!(
                state.tensor(),
                Err("loading the sample tensor…".to_string())
            );
            state
                .query
                .update(|q| q.tensor = TensorSource::Synthetic(Distribution::Laplace));
            let first = state.tensor().unwrap();
            state.query.update(|q| {
                q.scheme = Scheme::Nf4;
                q.block = 128;
                q.double_quant = !q.double_quant;
            });
            assert!(Arc::ptr_eq(&first, &state.tensor().unwrap()));
            state.query.update(|q| q.seed += 1);
            let reseeded = state.tensor().unwrap();
            assert!(!Arc::ptr_eq(&first, &reseeded));
            assert_ne!(first.values, reseeded.values);
            state
                .query
                .update(|q| q.tensor = TensorSource::Synthetic(Distribution::Normal));
            assert_eq!(state.tensor().unwrap().name, "normal values");
        });
    }

    #[wasm_bindgen_test]
    fn the_seed_is_no_part_of_a_sample_s_key() {
        let mut q = QuantQuery {
            tensor: TensorSource::Sample("x".into()),
            ..QuantQuery::default()
        };
        let before = TensorKey::of(&q);
        q.seed += 5;
        assert_eq!(TensorKey::of(&q), before);
        q.tensor = TensorSource::Synthetic(Distribution::Laplace);
        assert_eq!(TensorKey::of(&q).seed, q.seed);
    }
}
