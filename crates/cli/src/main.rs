//! `bitbudget`: the command-line face of bitbudget-math. Errors print one line naming the problem
//! and exit with status 2.

mod commands;
mod io;
mod stream;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Where GPU memory goes, and what number precision costs and buys.
#[derive(Parser)]
#[command(name = "bitbudget", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a raw little-endian array from one number format to another.
    Cast(commands::cast::CastArgs),
    /// Show how a value is stored in a format: fields, stored value, rounding error.
    Bits(commands::bits::BitsArgs),
    /// Per-GPU memory of training or fine-tuning a model (weights, gradients, optimizer, activations).
    Memory(Box<commands::memory::MemoryArgs>),
    /// Serve a model as vLLM, SGLang, TensorRT-LLM or llama.cpp would: the per-GPU budget, KV cache, concurrency and tokens/s.
    Serve(Box<commands::serve::ServeArgs>),
    /// List the model presets with their computed parameter counts.
    Models(commands::presets::ListArgs),
    /// List the GPU presets with their memory capacities.
    Gpus(commands::presets::ListArgs),
    /// Quantize raw little-endian f32 values (GGML blocks, MXFP4, NF4, absmax, zero-point, FP8).
    Quantize(commands::quantize::QuantizeArgs),
    /// Turn quantized bytes back into raw little-endian f32 values.
    Dequantize(commands::quantize::DequantizeArgs),
    /// FP8 per-tensor scaling over a sequence of tensors: delayed (amax history) against current.
    Scaling(commands::scaling::ScalingArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Cast(args) => commands::cast::run(args),
        Command::Bits(args) => commands::bits::run(args),
        Command::Memory(args) => commands::memory::run(*args),
        Command::Serve(args) => commands::serve::run(*args),
        Command::Models(args) => commands::presets::run_models(args),
        Command::Gpus(args) => commands::presets::run_gpus(args),
        Command::Quantize(args) => commands::quantize::run_quantize(args),
        Command::Dequantize(args) => commands::quantize::run_dequantize(args),
        Command::Scaling(args) => commands::scaling::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
