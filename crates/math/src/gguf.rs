//! GGUF files (llama.cpp's model format): the header, the metadata and the tensor index, read
//! from a prefix of the file so that a model of tens of gigabytes is sized from its first few
//! megabytes ([`parse`] says how many more bytes it needs).
//!
//! - [`types`]: every GGML tensor type with its block size and bytes per block.
//! - [`value`]: metadata values.
//! - [`reader`]: the parser and its limits.
//! - [`writer`]: builds small GGUF files for tests.

pub mod error;
pub mod reader;
pub mod types;
pub mod value;
pub mod writer;

pub use error::GgufError;
pub use reader::{next_read_len, parse, Gguf, TensorInfo, FIRST_READ};
pub use types::TensorType;
pub use value::{MetaArray, Value, ValueType};
pub use writer::GgufWriter;
