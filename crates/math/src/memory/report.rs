//! What an estimate tells its reader: the verdict, advice, how many layers of a GGUF file fit a
//! GPU, the conventions side by side, the check against PyTorch, and the published JSON and CSV.

pub mod advice;
pub mod conventions;
pub mod export;
pub mod gguf_fit;
pub mod validation;
pub mod verdict;
