//! The math behind the Learn page's two experiments that no other part of bitbudget needs: a tiny
//! classifier trained with and without fake quantization ([`qat`]), deterministic for a seed and
//! small enough to train in a browser in milliseconds; and real gradients of an open model
//! ([`gradient_sample`]) seen through FP16 under a loss scale ([`loss_scale`]).

pub mod gradient_sample;
pub mod loss_scale;
pub mod qat;
