//! Number formats: one minifloat codec for FP32 down to FP4, two's complement integers, and what
//! the explorer shows about them.

pub mod cast;
pub mod catalog;
pub mod decimal;
pub mod describe;
pub mod facts;
pub mod fp8;
pub mod half;
pub mod integer;
pub mod minifloat;
pub mod neighbours;
pub mod parse;

pub use catalog::{FormatId, Spec};
pub use describe::{bit_roles, describe, describe_bits, BitRole, Described, ValueClass};
pub use facts::FormatFacts;
pub use minifloat::{Decoded, Minifloat, Overflow, Specials};
pub use parse::{parse_value, ParsedValue, ValueError};
