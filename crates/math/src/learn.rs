//! The math behind the Learn page's two experiments that no other part of bitbudget needs: a tiny
//! classifier trained with and without fake quantization ([`qat`]), and the gradients it produces
//! seen through FP16 under a loss scale ([`loss_scale`]). Deterministic for a seed, small enough
//! to run in a browser in milliseconds.

pub mod loss_scale;
pub mod qat;
