//! The math's tests that run natively only (see main.rs).

mod config_links;
mod context_expert_parallel;
mod format_exhaustive;
mod ggml_reference;
mod gguf_fuzz;
mod gguf_mix;
mod gguf_reader;
mod hf_config;
mod megatron_convention;
mod memory_golden;
mod mx_formats;
mod published_checks;
mod pytorch_validation;
mod sample_tensor;
mod serve_logs;
mod serve_parallel;
mod step_golden;
