//! A memory job in the mode `inference` as the Serve inputs that answer it: serving is sized by
//! the engines' accounting ([`super::serve`]), so links and commands that ask the Memory page or
//! `bitbudget memory` to serve are sent there with what they carry.

use crate::memory::model::arch_text::arch_to_text;
use crate::memory::{find_model, model_presets, Dtype, Job};
use crate::serve::setup::DEFAULT_PROMPT_TOKENS;
use crate::serve::{Checkpoint, Engine, KvDtype};

/// The model a serving job names, as the Serve page and `bitbudget serve` take it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServedModel {
    /// A preset, by id.
    Preset(&'static str),
    /// A custom or `config.json` architecture, as [`arch_to_text`] writes it.
    Arch(String),
    /// A parameter count alone (no architecture): the preset whose parameter count is nearest on
    /// a log scale ([`nearest_preset`]).
    Nearest {
        /// The preset's id.
        id: &'static str,
        /// The parameter count the job named.
        params: u64,
    },
}

/// What a serving job carries to the Serve inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServingJob {
    /// The engine: llama.cpp for a llama.cpp file type, else vLLM (the Serve default).
    pub engine: Engine,
    /// The model.
    pub model: ServedModel,
    /// The GPU preset id, if the job names one.
    pub gpu: Option<String>,
    /// Tensor-parallel degree (1 under llama.cpp, which splits layers, not tensors).
    pub tp: u64,
    /// Pipeline stages (1 under llama.cpp).
    pub pp: u64,
    /// The weights' storage type, where the engines serve it (`None` for FP32 weights: the
    /// engines' default, BF16, serves them).
    pub dtype: Option<Checkpoint>,
    /// The KV cache's type, where the engine keeps one of it (INT8 and INT4 are llama.cpp's Q8_0
    /// and Q4_0; `None` for FP32 and FP16 caches, or FP8 under llama.cpp: the model's 16-bit
    /// cache is the default).
    pub kv: Option<KvDtype>,
    /// Tokens of each sequence: the longest request (`max_model_len`).
    pub len: u64,
    /// Sequences served at once: the concurrency asked for.
    pub concurrency: u64,
    /// Prompt tokens of a request: the Serve default, or the whole sequence when it is shorter.
    pub prompt: u64,
}

/// The Serve inputs of `job`, whatever its mode (the caller decides when to send it there).
pub fn serving_job(job: &Job) -> ServingJob {
    let model = match (job.params, job.model.as_deref().and_then(find_model)) {
        (Some(n), _) => ServedModel::Nearest {
            id: nearest_preset(n),
            params: n,
        },
        (None, Some(m)) => ServedModel::Preset(m.id),
        (None, None) => match job.config_in_force() {
            Some(c) => ServedModel::Arch(arch_to_text(c.model_type(), &c.arch)),
            None => ServedModel::Arch(arch_to_text("custom", &job.custom.arch())),
        },
    };
    let llama = job.dtype.is_gguf();
    let kv = match (job.kv_dtype, llama) {
        (Dtype::Int8, true) => Some(KvDtype::Q80),
        (Dtype::Int4, true) => Some(KvDtype::Q40),
        (Dtype::Fp8, true) => None,
        (d, _) => d.name().parse().ok(),
    };
    let split = |n: u64| if llama { 1 } else { n };
    ServingJob {
        engine: if llama {
            Engine::LlamaCpp
        } else {
            Engine::Vllm
        },
        model,
        gpu: job.gpu.clone(),
        tp: split(job.tp),
        pp: split(job.pp),
        dtype: job.dtype.name().parse().ok(),
        kv,
        len: job.seq,
        concurrency: job.batch,
        prompt: job.seq.min(DEFAULT_PROMPT_TOKENS),
    }
}

/// The id of the preset whose total parameter count is nearest `params` by ratio (the first in
/// the preset list on a tie); `params` 0 counts as 1.
pub fn nearest_preset(params: u64) -> &'static str {
    let target = params.max(1) as f64;
    let ratio = |n: u64| {
        let n = n.max(1) as f64;
        n.max(target) / n.min(target)
    };
    let mut best = (crate::memory::job::DEFAULT_MODEL, f64::INFINITY);
    for m in model_presets() {
        let r = ratio(m.arch.params());
        if r < best.1 {
            best = (m.id, r);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::arch_text::arch_from_text;

    fn job(pairs: &[(&str, &str)]) -> Job {
        let mut j = Job::default();
        for (k, v) in pairs {
            j.apply(k, v).unwrap().unwrap();
        }
        j
    }

    #[test]
    fn a_preset_carries_its_id_gpu_and_sizes() {
        let s = serving_job(&job(&[
            ("model", "llama-3-70b"),
            ("mode", "inference"),
            ("gpu", "a100-80gb"),
            ("tp", "2"),
            ("seq", "8192"),
            ("batch", "16"),
            ("dtype", "int4"),
        ]));
        assert_eq!(s.model, ServedModel::Preset("llama-3-70b"));
        assert_eq!(s.gpu.as_deref(), Some("a100-80gb"));
        assert_eq!((s.tp, s.len, s.concurrency, s.prompt), (2, 8192, 16, 1000));
        assert_eq!(
            (s.dtype, s.kv),
            (Some(Checkpoint::Int4), Some(KvDtype::Bf16))
        );
        let fp32 = serving_job(&job(&[
            ("mode", "inference"),
            ("dtype", "fp32"),
            ("kv-dtype", "int8"),
        ]));
        assert_eq!((fp32.dtype, fp32.kv), (None, None));
    }

    #[test]
    fn a_llama_cpp_file_type_is_served_by_llama_cpp_on_one_device() {
        let s = serving_job(&job(&[
            ("model", "llama-3-70b"),
            ("mode", "inference"),
            ("dtype", "q3_k_m"),
            ("kv-dtype", "int8"),
            ("tp", "2"),
            ("pp", "2"),
        ]));
        assert_eq!(s.engine, Engine::LlamaCpp);
        assert_eq!((s.tp, s.pp), (1, 1));
        assert_eq!(
            (s.dtype, s.kv),
            (Some(Checkpoint::Q3KM), Some(KvDtype::Q80))
        );
        let fp8_kv = serving_job(&job(&[
            ("mode", "inference"),
            ("dtype", "q4_k_m"),
            ("kv-dtype", "fp8"),
        ]));
        assert_eq!(fp8_kv.kv, None);
        let vllm = serving_job(&job(&[("mode", "inference"), ("tp", "8"), ("pp", "2")]));
        assert_eq!((vllm.engine, vllm.tp, vllm.pp), (Engine::Vllm, 8, 2));
    }

    #[test]
    fn a_parameter_count_goes_to_the_nearest_preset() {
        assert_eq!(nearest_preset(1_000_000_000), "gemma-3-1b");
        assert_eq!(nearest_preset(8_000_000_000), "llama-3-8b");
        assert_eq!(nearest_preset(70_000_000_000), "llama-3-70b");
        assert_eq!(nearest_preset(405_000_000_000), "llama-3.1-405b");
        assert_eq!(nearest_preset(0), "gpt2");
        assert_eq!(nearest_preset(u64::MAX), "deepseek-v3");
        let s = serving_job(&job(&[("params", "8e9"), ("mode", "inference")]));
        assert_eq!(
            s.model,
            ServedModel::Nearest {
                id: "llama-3-8b",
                params: 8_000_000_000
            }
        );
    }

    #[test]
    fn a_custom_architecture_travels_as_text_that_reads_back() {
        let j = job(&[
            ("model", "custom"),
            ("layers", "12"),
            ("hidden", "1024"),
            ("heads", "16"),
            ("mode", "inference"),
        ]);
        let ServedModel::Arch(text) = serving_job(&j).model else {
            panic!("a custom model is an architecture");
        };
        let (name, arch) = arch_from_text(&text).unwrap();
        assert_eq!(name, "custom");
        assert_eq!(arch.params(), j.custom.arch().params());
    }
}
