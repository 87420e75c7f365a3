//! One module per tab.

pub mod bits;
