//! GPU memory of training and serving transformers: an exact, documented model in integer bytes.

pub mod activation;
pub mod error;
pub mod estimate;
pub mod job;
pub mod keys;
pub mod layout;
pub mod line;
pub mod model;
pub mod options;
pub mod part;
pub mod plan;
pub mod recipe;
pub mod report;
pub mod serving;
pub mod setup;
pub mod states;
pub mod step;

pub use error::MemoryError;
pub use estimate::{estimate, Breakdown, Line};
pub use job::{CustomArch, Job, LoadedConfig};
pub use model::arch::{Mla, Mlp, ModelArch, Norm};
pub use model::gpus::{find_gpu, gpu_presets, GpuPreset, LowPrecisionCores};
pub use model::models::{find_model, model_presets, ModelPreset};
pub use options::{
    Convention, Dtype, Mode, Moments, Offload, Optimizer, OptimizerStep, Precision, Recompute,
    ZeroStage,
};
pub use part::Part;
pub use report::verdict::{verdict, verdict_brief};
pub use setup::{LoraTargets, ModelSpec, RunOptions, Setup};
