//! bitbudget-math: the numbers behind bitbudget, with no web or GPU dependencies.
//!
//! - [`format`]: bit-exact number formats (FP32 … FP4, INT8/INT4) and how values round into them.
//! - [`gguf`]: llama.cpp's GGUF model files: header, metadata and tensor index, read from a prefix.
//! - [`memory`]: per-GPU memory of training and serving transformers, in integer bytes.
//! - [`quant`]: quantization schemes, byte-exact with their reference implementations, and the lab.
//! - [`serve`]: serving as vLLM, SGLang, TensorRT-LLM and llama.cpp do: KV budget, concurrency, tokens/s.
//! - [`learn`]: the Learn page's tiny experiments (PTQ against QAT, gradients under a loss scale).
//! - [`numbers`]: formatting sizes, counts and decimals for people.
#![warn(missing_docs)]

pub mod format;
pub mod gguf;
mod lanes;
pub mod learn;
pub mod memory;
pub mod named;
pub mod numbers;
pub mod quant;
pub mod serve;
