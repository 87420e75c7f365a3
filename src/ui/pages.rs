//! One module per tab.

pub mod bits;
pub mod memory;
