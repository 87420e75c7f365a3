//! GPU memory of training and serving transformers: an exact, documented model in integer bytes.

pub mod activations;
pub mod advice;
pub mod arch;
pub mod convention_comparison;
pub mod deepspeed;
pub mod error;
pub mod estimate;
pub mod gguf_fit;
pub mod gguf_mix;
pub mod gguf_tensors;
pub mod gpus;
pub mod hf_activations;
// Reads the sources from disk, so native only.
pub mod hf_config;
pub mod job;
pub mod keys;
pub mod kv_cache;
pub mod line;
pub mod lora;
pub mod model_states;
pub mod models;
pub mod options;
pub mod part;
pub mod phases;
pub mod plan;
pub mod report;
pub mod setup;
pub mod step;
pub mod validation;
pub mod verdict;

pub use arch::{Mla, Mlp, ModelArch, Norm};
pub use error::MemoryError;
pub use estimate::{estimate, Breakdown, Line};
pub use gpus::{find_gpu, gpu_presets, GpuPreset};
pub use job::{CustomArch, Job, LoadedConfig};
pub use models::{find_model, model_presets, ModelPreset};
pub use options::{
    Convention, Dtype, Mode, Offload, Optimizer, OptimizerStep, Precision, Recompute, ZeroStage,
};
pub use part::Part;
pub use setup::{LoraTargets, ModelSpec, RunOptions, Setup};
pub use verdict::verdict;
