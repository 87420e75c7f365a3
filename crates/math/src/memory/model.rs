//! The model and the hardware: architectures, the model and GPU presets, and Hugging Face
//! `config.json` files and GGUF headers read into an architecture.

pub mod arch;
pub mod arch_text;
pub mod gguf_arch;
pub mod gpus;
pub mod hf_config;
pub mod models;
pub mod published;
