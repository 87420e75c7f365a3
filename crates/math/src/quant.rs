//! Quantization schemes: llama.cpp's GGML blocks and MXFP4 byte for byte, absmax and zero-point
//! integers, NF4, scaled FP8, LLM.int8()'s decomposition, and error metrics.

pub mod absmax;
pub mod analysis;
pub mod bit_string;
pub mod checks;
pub mod codec;
pub mod delayed;
pub mod error;
pub mod fp4_options;
pub mod fp8_tiles;
pub mod generate;
pub mod ggml;
pub mod ggml_blocks;
pub mod histogram;
pub mod iq4_nl;
pub mod kernels;
pub mod kquants;
pub mod lab;
pub mod layout;
pub mod llm_int8;
pub mod metrics;
pub mod mx;
pub mod nf4;
pub mod nvfp4;
pub mod rotation;
pub mod scaled;
pub mod scheme;
pub mod tensor_io;
pub mod zeropoint;
