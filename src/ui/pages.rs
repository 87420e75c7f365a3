//! One folder per page: its state, URL query, components and runtime.

pub mod bits;
pub mod learn;
pub mod memory;
pub mod quant;
pub mod serve;
