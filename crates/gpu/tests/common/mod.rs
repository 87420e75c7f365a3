//! What the GPU test files share: one context per test binary (and two that stream in small and
//! tiny chunks), or SKIPPED with the reason; seeded inputs.

use bitbudget_gpu::{block_on, Gpu};
use bitbudget_math::quant::generate::SplitMix64;
use std::io::Write;
use std::sync::OnceLock;

/// Weights per chunk of the chunked context: small, so that every tensor below of more than a
/// few blocks streams through several chunks (and FP8 through its two passes).
pub const SMALL_CHUNK: usize = 1000;

fn open(chunk: Option<usize>) -> Result<Gpu, String> {
    let gpu = block_on(Gpu::new()).map_err(|e| e.to_string())?;
    Ok(match chunk {
        Some(c) => gpu.with_chunk_limit(c),
        None => gpu,
    })
}

/// One context for the whole test binary (or why there is none).
pub fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    usable(GPU.get_or_init(|| open(None)))
}

/// A second context that streams in chunks of [`SMALL_CHUNK`] weights.
pub fn chunked_gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    usable(GPU.get_or_init(|| open(Some(SMALL_CHUNK))))
}

/// Weights per chunk of the tiny-chunk context: a few blocks, so that a tensor of a few
/// thousand weights streams through dozens of double-buffered chunks (each chunk's readback
/// overlapping the next chunk's upload and compute). (Not every test file streams this way:
/// `gpu_kquant`'s 256-weight super-blocks do not fit it.)
#[allow(dead_code)]
pub const TINY_CHUNK: usize = 96;

/// A third context that streams in chunks of [`TINY_CHUNK`] weights.
#[allow(dead_code)]
pub fn tiny_chunk_gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    usable(GPU.get_or_init(|| open(Some(TINY_CHUNK))))
}

fn usable(g: &'static Result<Gpu, String>) -> Option<&'static Gpu> {
    match g {
        Ok(gpu) => Some(gpu),
        Err(reason) => {
            if std::env::var("BITBUDGET_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("BITBUDGET_REQUIRE_GPU=1 but {reason}");
            }
            // Straight to stderr: the test harness captures `eprintln!` of passing tests.
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIPPED: GPU parity test: {reason} ***\n"
            );
            None
        }
    }
}

/// Seeded normal weights with a per-tensor magnitude.
pub fn normal(n: usize, seed: u64, magnitude: f64) -> Vec<f32> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| (rng.normal() * magnitude) as f32).collect()
}

/// Seeded arbitrary bit patterns: every exponent, subnormals, ±∞ and NaN all turn up.
pub fn any_bits(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| f32::from_bits(rng.next_u64() as u32))
        .collect()
}
