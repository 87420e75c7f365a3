//! `bitbudget`: the command-line face of bitbudget-math. Errors print one line naming the problem
//! and exit with status 2.

mod commands;
mod io;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Cast(args) => commands::cast::run(args),
        Command::Bits(args) => commands::bits::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
