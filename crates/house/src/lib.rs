//! Checks of the repository as a whole (its tests are the point): every crate's files import
//! each other without cycles, and the README and licence files are what the project promises.

#![warn(missing_docs)]

pub mod imports;
