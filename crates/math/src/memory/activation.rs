//! Activations: what a step saves for the backward pass (bitbudget's and Hugging Face's
//! accounting), and what is alive at each phase's peak.

pub mod activations;
pub mod hf_activations;
pub mod phases;
