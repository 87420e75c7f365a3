//! One module per tab.

pub mod bits;
pub mod memory;
pub mod quant;
