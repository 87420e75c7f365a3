//! bitbudget-math: the numbers behind bitbudget, with no web or GPU dependencies.
//!
//! - [`format`]: bit-exact number formats (FP32 … FP4, INT8/INT4) and how values round into them.
#![warn(missing_docs)]

pub mod format;
