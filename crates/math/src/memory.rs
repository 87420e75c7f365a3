//! GPU memory of training and serving transformers: an exact, documented model in integer bytes.

pub mod activations;
pub mod arch;
pub mod conventions;
pub mod estimate;
pub mod gpus;
pub mod hf_config;
pub mod kv_cache;
pub mod models;
pub mod options;
pub mod part;
pub mod plan;
pub mod report;
pub mod setup;

pub use arch::{Mla, Mlp, ModelArch, Norm};
pub use estimate::{estimate, Breakdown, Line};
pub use gpus::{find_gpu, gpu_presets, GpuPreset};
pub use models::{find_model, model_presets, ModelPreset};
pub use options::{Convention, Dtype, Mode, Offload, Optimizer, Recompute, ZeroStage};
pub use part::Part;
pub use setup::{LoraTargets, MemoryError, ModelSpec, Setup};
