//! Quantization schemes. [`ggml`] holds llama.cpp's block formats, byte for byte.

pub mod ggml;
