//! Model states: weights (as stored, GGUF quantization mixes included), gradients and optimizer
//! states per GPU under every sharding and offload strategy and parallel layout, LoRA adapters, and
//! DeepSpeed's and Megatron-LM's own estimators.

pub mod deepspeed;
pub mod gguf_mix;
pub mod gguf_preset;
pub mod gguf_tensors;
pub mod lora;
pub mod low_precision;
pub mod megatron;
pub mod model_states;
pub mod sharing;
