//! What an estimate tells its reader: the verdict, advice, the conventions side by side, the
//! check against PyTorch, and the published JSON and CSV.

pub mod advice;
pub mod conventions;
pub mod export;
pub mod validation;
pub mod verdict;
