//! A GGUF file's header as the page holds it once read (a leaf: the state, the drop zone and the
//! summary all name it).

use bitbudget_math::gguf::Gguf;

/// A GGUF header read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedGguf {
    /// The file's name.
    pub name: String,
    /// The file's size in bytes.
    pub size: u64,
    /// Bytes read from its start.
    pub read: u64,
    /// `File.slice` reads it took.
    pub reads: u32,
    /// The header and tensor index.
    pub header: Gguf,
}
