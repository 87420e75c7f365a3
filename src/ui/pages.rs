//! One module per tab.

pub mod bits;
pub mod learn;
pub mod memory;
pub mod quant;
