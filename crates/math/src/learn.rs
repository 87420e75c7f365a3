//! The math behind the Learn page's experiments that no other part of bitbudget needs: a tiny
//! classifier trained with and without fake quantization ([`qat`]), deterministic for a seed and
//! small enough to train in a browser in milliseconds; real gradients of an open model
//! ([`gradient_sample`]) seen through FP16 under a loss scale ([`loss_scale`]); and the error of
//! the FP8 and FP4 training formats' block shapes on a real tensor ([`block_shapes`]).

pub mod block_shapes;
pub mod gradient_sample;
pub mod loss_scale;
pub mod qat;
