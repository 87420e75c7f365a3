//! What the GPU test modules share: one context for the whole binary (and two clones of it that
//! stream in small and tiny chunks, on the same device with the same compiled pipelines), or
//! SKIPPED with the reason; seeded inputs.

use bitbudget_gpu::{block_on, Gpu};
use bitbudget_math::quant::generate::SplitMix64;
use std::io::Write;
use std::sync::OnceLock;

/// Weights per chunk of the chunked context: small, so that every tensor below of more than a
/// few blocks streams through several chunks (and FP8 through its two passes).
pub const SMALL_CHUNK: usize = 1000;

/// Weights per chunk of the tiny-chunk context: a few blocks, so that a tensor of a few
/// thousand weights streams through dozens of double-buffered chunks (each chunk's readback
/// overlapping the next chunk's upload and compute). (Not every test module streams this way:
/// `kquant`'s 256-weight super-blocks do not fit it.)
pub const TINY_CHUNK: usize = 96;

/// One context for the whole test binary (or why there is none). On a CPU Vulkan driver most of
/// these tests' time is compiling pipelines: one context compiles each once.
pub fn gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    usable(GPU.get_or_init(|| block_on(Gpu::new()).map_err(|e| e.to_string())))
}

/// [`gpu`], streaming in chunks of [`SMALL_CHUNK`] weights.
pub fn chunked_gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    gpu().map(|g| GPU.get_or_init(|| g.clone().with_chunk_limit(SMALL_CHUNK)))
}

/// [`gpu`], streaming in chunks of [`TINY_CHUNK`] weights.
pub fn tiny_chunk_gpu() -> Option<&'static Gpu> {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    gpu().map(|g| GPU.get_or_init(|| g.clone().with_chunk_limit(TINY_CHUNK)))
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

/// Panics with the first differing byte (and how many differ) unless `gpu == cpu`.
pub fn assert_same_bytes(what: &str, gpu: &[u8], cpu: &[u8]) {
    assert_eq!(
        gpu.len(),
        cpu.len(),
        "{what}: GPU gave {} bytes, CPU {}",
        gpu.len(),
        cpu.len()
    );
    if let Some(i) = gpu.iter().zip(cpu).position(|(a, b)| a != b) {
        let differ = gpu.iter().zip(cpu).filter(|(a, b)| a != b).count();
        panic!(
            "{what}: first difference at byte {i}: GPU {:#04x}, CPU {:#04x} ({differ} of {} bytes \
             differ)",
            gpu[i],
            cpu[i],
            cpu.len()
        );
    }
}

/// Panics with the first differing weight unless the bits agree (any NaN matches any NaN).
pub fn assert_same_weights(what: &str, gpu: &[f32], cpu: &[f32]) {
    assert_eq!(
        gpu.len(),
        cpu.len(),
        "{what}: GPU gave {} weights, CPU {}",
        gpu.len(),
        cpu.len()
    );
    let same = |a: &f32, b: &f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    if let Some(i) = gpu.iter().zip(cpu).position(|(a, b)| !same(a, b)) {
        let differ = gpu.iter().zip(cpu).filter(|(a, b)| !same(a, b)).count();
        panic!(
            "{what}: first difference at weight {i}: GPU {:e} ({:#010x}), CPU {:e} ({:#010x}) \
             ({differ} of {} differ)",
            gpu[i],
            gpu[i].to_bits(),
            cpu[i],
            cpu[i].to_bits(),
            cpu.len()
        );
    }
}

/// Seeded blocks whose magnitudes differ wildly from block to block (1e-42 to 1e38), so scales
/// land in the subnormal range and near overflow.
pub fn wild_blocks(n: usize, block: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix64(seed);
    let mut x = Vec::with_capacity(n);
    while x.len() < n {
        let magnitude = 10f64.powf(rng.unit() * 80.0 - 42.0);
        for _ in 0..block.min(n - x.len()) {
            x.push((rng.normal() * magnitude) as f32);
        }
    }
    x
}

/// Hand-made tensors of `len` weights that hit the rounding edge cases.
pub fn special_blocks(len: usize) -> Vec<(&'static str, Vec<f32>)> {
    let fill = |v: &[f32]| -> Vec<f32> { v.iter().copied().cycle().take(len).collect() };
    let mut ties = vec![127.0f32];
    ties.extend((0..len as i32 - 1).map(|i| (i - len as i32 / 2) as f32 * 0.5));
    let mut quarter = vec![-8.0f32];
    quarter.extend((1..len).map(|i| (i as f32 - len as f32 / 2.0) * 0.25));
    vec![
        ("zeros", vec![0.0; len]),
        ("negative zeros", vec![-0.0; len]),
        ("mixed zeros", fill(&[0.0, -0.0, -0.0, 0.0])),
        ("ties at half steps", ties),
        ("ties at quarter steps", quarter),
        (
            "subnormals",
            fill(&[1e-45, -3e-39, 1.1754942e-38, -1e-40, 0.0, 2e-44]),
        ),
        (
            "NaN among values",
            fill(&[f32::NAN, 1.0, -0.5, 0.25, f32::NAN, 3.0]),
        ),
        ("all NaN", vec![f32::NAN; len]),
        ("+inf among values", fill(&[f32::INFINITY, 1.0, -2.0, 0.5])),
        (
            "-inf among values",
            fill(&[-1.0, f32::NEG_INFINITY, 2.0, 0.0]),
        ),
        (
            "both infinities",
            fill(&[f32::INFINITY, f32::NEG_INFINITY, 1.0, f32::NAN]),
        ),
        ("largest finite", fill(&[f32::MAX, -f32::MAX, 1.0, -1e38])),
        ("constant", vec![0.75; len]),
        (
            "one outlier",
            (0..len)
                .map(|i| if i == 5 { 1e4 } else { (i as f32) * 1e-3 })
                .collect(),
        ),
    ]
}

/// Runs `cpu` on the CPU and `on_gpu` part by part with each part produced on the device
/// (`bitbudget_gpu::produce_part`), until both are done; panics with `what` on a device error.
pub fn run_parts(
    gpu: &Gpu,
    cpu: &mut bitbudget_math::quant::lab::SchemeRun,
    on_gpu: &mut bitbudget_math::quant::lab::SchemeRun,
    what: &str,
) {
    while !cpu.done() {
        let padded = on_gpu.padded_part();
        let part = block_on(bitbudget_gpu::produce_part(
            gpu,
            on_gpu.quantizer(),
            &padded,
        ))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        on_gpu.measure(&part).unwrap();
        cpu.step().unwrap();
    }
}
