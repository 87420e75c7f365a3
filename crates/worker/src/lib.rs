//! The Quantize lab's work in a Web Worker: the messages between the page and a worker, and what
//! a worker does with them ([`Analyst`]). The page splits the lab's schemes over its workers, one
//! scheme per job; each worker holds its own copy of the tensor and analyses a whole scheme with
//! [`SchemeRun`], exactly as the page's own thread does, so the results are identical bit for bit
//! (whole-tensor facts such as FP8's scale and NF4's mean are computed once per scheme, over the
//! whole tensor, by [`SchemeRun::new`]).
//!
//! Messages are a postcard header ([`encode`], [`decode`]): f32 and f64 travel as their bits, so
//! NaN and ±inf come back exactly, which JSON cannot do; and its decoder is small, which matters
//! because the Quantize page links it. A tensor's values travel beside the header as a
//! transferred `Float32Array`, never in it.
//!
//! This crate depends on the math only (and, in wasm, on wasm-bindgen), so the worker's wasm is
//! small; natively the same [`Analyst`] runs in tests.

#![warn(missing_docs)]

use bitbudget_math::quant::analysis::SchemeResult;
use bitbudget_math::quant::fp4_options::Fp4Options;
use bitbudget_math::quant::lab::{Overview, SchemeDetail, SchemeRun};
use bitbudget_math::quant::scheme::Scheme;
use bitbudget_math::quant::tensor_io::{
    read_npy, read_safetensors, safetensors_index, Tensor, TensorInfo,
};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// What the page asks of a worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Values `offset..offset + len` of tensor `tensor` (of `total` values) follow as a
    /// `Float32Array`. An offset of 0 or another tensor starts the tensor anew.
    TensorPart {
        /// The page's number for the tensor (a new one for every new tensor).
        tensor: u64,
        /// Index of the first value in this part.
        offset: usize,
        /// Values in the whole tensor.
        total: usize,
    },
    /// The [`Overview`] of the tensor.
    Overview {
        /// The computation this belongs to (answers carry it back).
        generation: u64,
        /// The tensor to look at (it must have been sent whole).
        tensor: u64,
    },
    /// One scheme's row and detail on the tensor.
    Analyse(SchemeTask),
    /// Read a user's file (its bytes follow as a `Uint8Array`) with [`read_request`]; the
    /// answer's values follow it as a `Float32Array`.
    Parse {
        /// The file's name.
        file: String,
        /// The safetensors tensor to read (`None`: the file's first readable one).
        tensor: Option<String>,
    },
}

/// One scheme's analysis, as the page's own thread would run it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeTask {
    /// The computation this belongs to.
    pub generation: u64,
    /// The tensor to analyse (it must have been sent whole).
    pub tensor: u64,
    /// The scheme's position in the page's table (answers carry it back).
    pub index: usize,
    /// The scheme's name (as [`Scheme::name`]).
    pub scheme: String,
    /// Values per block.
    pub block: usize,
    /// NF4 double quantization.
    pub double_quant: bool,
    /// Values per part of the streamed analysis (as the page's `CHUNK_VALUES`).
    pub part_values: usize,
    /// NVFP4's and MXFP4's random Hadamard transform: its seed, or `None` for off (other
    /// schemes ignore it).
    pub rht: Option<u64>,
    /// NVFP4's and MXFP4's stochastic rounding: its seed, or `None` for off.
    pub sr: Option<u64>,
}

/// This build's message format: an FNV-1a hash of the sources that define the messages (this
/// file and the math crate's types they carry). A worker says it in [`Response::Ready`], so that a
/// page and worker files from different builds (a browser's stale cache after an update) notice
/// at once, and the page computes on its own thread instead of misreading messages.
pub const PROTOCOL: u64 = fnv1a(&[
    include_bytes!("lib.rs"),
    include_bytes!("../../math/src/quant/lab.rs"),
    include_bytes!("../../math/src/quant/analysis.rs"),
    include_bytes!("../../math/src/quant/metrics.rs"),
    include_bytes!("../../math/src/quant/histogram.rs"),
    include_bytes!("../../math/src/quant/tensor_io.rs"),
]);

/// 64-bit FNV-1a over `parts`, one after the other.
const fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            hash ^= parts[p][i] as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
            i += 1;
        }
        p += 1;
    }
    hash
}

/// What a worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// The worker has started and listens (messages sent before this are lost).
    Ready {
        /// The worker's [`PROTOCOL`]: another value means files from another build.
        protocol: u64,
    },
    /// The tensor's overview.
    Overview {
        /// As asked.
        generation: u64,
        /// The overview.
        overview: Overview,
    },
    /// One scheme's results.
    Analysed {
        /// As asked.
        generation: u64,
        /// As asked.
        index: usize,
        /// The table row.
        row: SchemeResult,
        /// What the charts draw.
        detail: SchemeDetail,
    },
    /// A user's file, read: its values follow as a `Float32Array`.
    Parsed {
        /// The tensors of a safetensors file (empty for .npy).
        index: Vec<TensorInfo>,
        /// The tensor's name.
        name: String,
        /// Its shape.
        shape: Vec<usize>,
    },
    /// A request could not be served, with a sentence saying why.
    Failed {
        /// As asked (0 when the request could not be read).
        generation: u64,
        /// Why.
        message: String,
    },
}

/// The postcard bytes of `value` (serialising these types into memory cannot fail; should it,
/// the result is empty and decoding says so).
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).unwrap_or_default()
}

/// Reads what [`encode`] wrote; malformed bytes are an error that says so.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("unreadable lab message: {e}"))
}

/// A worker's state: the tensor it holds (possibly still arriving) and its overview.
#[derive(Debug, Default)]
pub struct Analyst {
    tensor: Option<u64>,
    values: Vec<f32>,
    total: usize,
    overview: Option<Overview>,
}

impl Analyst {
    /// Serves `request`; `values` are the values sent beside a [`Request::TensorPart`] (ignored
    /// otherwise). A tensor part has no answer; everything else has one ([`Request::Parse`] is
    /// not the analyst's: it is answered with a [`Response::Failed`]).
    pub fn handle(&mut self, request: Request, values: &[f32]) -> Option<Response> {
        match request {
            Request::TensorPart {
                tensor,
                offset,
                total,
            } => {
                self.receive(tensor, offset, total, values);
                None
            }
            Request::Overview { generation, tensor } => Some(match self.whole(tensor) {
                Ok(_) => Response::Overview {
                    generation,
                    overview: self.overview().clone(),
                },
                Err(message) => Response::Failed {
                    generation,
                    message,
                },
            }),
            Request::Analyse(job) => {
                Some(
                    self.analyse(&job)
                        .unwrap_or_else(|message| Response::Failed {
                            generation: job.generation,
                            message,
                        }),
                )
            }
            Request::Parse { .. } => Some(Response::Failed {
                generation: 0,
                message: "a file is read with read_upload, not by the analyst".into(),
            }),
        }
    }

    fn receive(&mut self, tensor: u64, offset: usize, total: usize, values: &[f32]) {
        if self.tensor != Some(tensor) || offset == 0 {
            self.tensor = Some(tensor);
            self.values = Vec::with_capacity(total);
            self.total = total;
            self.overview = None;
        }
        if offset == self.values.len() {
            let room = self.total - self.values.len();
            self.values
                .extend_from_slice(&values[..values.len().min(room)]);
        } else {
            // A part out of order can only come from a cut-off send: start over next time.
            self.tensor = None;
        }
    }

    /// The whole tensor `tensor`, or why it is not here.
    fn whole(&self, tensor: u64) -> Result<&[f32], String> {
        if self.tensor != Some(tensor) || self.values.len() != self.total {
            return Err(format!(
                "the worker does not hold tensor {tensor} whole ({} of {} values)",
                self.values.len(),
                self.total
            ));
        }
        Ok(&self.values)
    }

    fn overview(&mut self) -> &Overview {
        self.overview
            .get_or_insert_with(|| Overview::new(&self.values))
    }

    fn analyse(&mut self, job: &SchemeTask) -> Result<Response, String> {
        self.whole(job.tensor)?;
        let scheme: Scheme = job.scheme.parse().map_err(|e| format!("{e}"))?;
        self.overview();
        let overview = self.overview.as_ref().ok_or("no overview")?;
        let (row, detail) = run_scheme(
            scheme,
            &self.values,
            job.block,
            job.double_quant,
            overview,
            job.part_values,
            Fp4Options {
                rht: job.rht,
                sr: job.sr,
            },
        )
        .map_err(|e| format!("{scheme}: {e}"))?;
        Ok(Response::Analysed {
            generation: job.generation,
            index: job.index,
            row,
            detail,
        })
    }
}

/// Runs one scheme's [`SchemeRun`] over `x` to the end on the CPU, in parts of about
/// `part_values` values, with NVFP4's and MXFP4's `opts` (other schemes ignore them); errors as
/// [`SchemeRun::step`].
pub fn run_scheme(
    scheme: Scheme,
    x: &[f32],
    block: usize,
    double_quant: bool,
    overview: &Overview,
    part_values: usize,
    opts: Fp4Options,
) -> Result<(SchemeResult, SchemeDetail), bitbudget_math::quant::error::QuantError> {
    let mut run =
        SchemeRun::new(scheme, x, block, double_quant, overview, part_values).with_options(opts);
    while !run.done() {
        run.step()?;
    }
    Ok(run.finish())
}

/// The order in which to hand out schemes: the slowest (the K-quants' scale searches) first, so
/// that the last jobs, while other workers may already be idle, are short ones.
pub fn slowest_first(schemes: &[Scheme]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..schemes.len()).collect();
    order.sort_by_key(|&i| !matches!(schemes[i], Scheme::KQuant(_)));
    order
}

/// Reads a user's file as the lab does: a `.npy` (by its name) is one array, named after the file;
/// anything else is a safetensors file, whose first F32, F16 or BF16 tensor is read. Returns the
/// file's tensors (empty for .npy) and the tensor; a malformed file or an empty tensor is an
/// error that says why.
pub fn read_upload(file: &str, bytes: &[u8]) -> Result<(Vec<TensorInfo>, Tensor), String> {
    let (index, tensor) = if file.ends_with(".npy") {
        let t = read_npy(bytes).map_err(|e| e.to_string())?;
        let name = file.to_string();
        (Vec::new(), Tensor { name, ..t })
    } else {
        let index = safetensors_index(bytes).map_err(|e| e.to_string())?;
        let first = index
            .iter()
            .find(|t| t.supported)
            .ok_or("no F32, F16 or BF16 tensor in the file")?;
        let tensor = read_safetensors(bytes, &first.name).map_err(|e| e.to_string())?;
        (index, tensor)
    };
    if tensor.values.is_empty() {
        return Err("the tensor is empty".into());
    }
    Ok((index, tensor))
}

/// What a [`Request::Parse`] asks: the file as [`read_upload`] reads it, or, with `tensor`, that
/// tensor of a safetensors file (then without the file's index, which the page already has).
pub fn read_request(
    file: &str,
    tensor: Option<&str>,
    bytes: &[u8],
) -> Result<(Vec<TensorInfo>, Tensor), String> {
    match tensor {
        None => read_upload(file, bytes),
        Some(name) => read_safetensors(bytes, name)
            .map(|t| (Vec::new(), t))
            .map_err(|e| e.to_string()),
    }
}
