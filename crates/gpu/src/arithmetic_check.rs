//! Tests of common.wgsl's exact f32 arithmetic on the GPU itself: `f_div`, `f_mul`, `f_add`,
//! `f_sub` and `f_sqrt` (check_arithmetic.wgsl) against Rust's `/`, `*`, `+`, `-` and
//! `f32::sqrt` on the CPU, bit for bit,
//! on hard cases (ties, subnormal operands and results, results at the edges of the normal
//! range, overflow and underflow, ±0, ±∞, NaN) and seeded arbitrary bit patterns. Every
//! quantize kernel builds on these functions; WGSL's own `/` may be off by 2.5 ulp, its `sqrt`
//! has no exactness guarantee, and either may flush subnormals, which is why the kernels never
//! use them.
//!
//! NaN results: an invalid operation gives x86's default NaN and a NaN operand comes back
//! quieted, as on the x86-64 CPU the tests run on (checked bit for bit there; elsewhere any NaN
//! matches a NaN). When both operands are NaN, IEEE 754 does not say whose payload wins, and the
//! compiler may swap the operands of `+` and `*`: there, and only there, either operand's
//! quieted payload is accepted.

use crate::context::{Gpu, Role};
use crate::dispatch::{f32_bytes, read, submit, table, words, CheckedOut, Params, Pass};
use crate::shaders::Family;
use crate::tables::Table;
use bitbudget_math::quant::generate::SplitMix64;

/// The operations of check_arithmetic.wgsl, by `params.variant`.
#[derive(Clone, Copy, Debug)]
enum Op {
    Div = 0,
    Mul = 1,
    Add = 2,
    Sub = 3,
    /// The square root of the first operand.
    Sqrt = 4,
}

impl Op {
    fn cpu(self, a: f32, b: f32) -> f32 {
        let (a, b) = (std::hint::black_box(a), std::hint::black_box(b));
        match self {
            Op::Div => a / b,
            Op::Mul => a * b,
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Sqrt => a.sqrt(),
        }
    }
}

/// The GPU's results of `op` on each pair.
fn on_gpu(gpu: &Gpu, op: Op, pairs: &[(f32, f32)]) -> Vec<u32> {
    let x: Vec<f32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let n = pairs.len() as u64;
    let mut buffers = CheckedOut::new(gpu);
    let input = buffers.get(Role::Input, 4 * x.len() as u64);
    let blocks = buffers.get(Role::Blocks, 16);
    let out = buffers.get(Role::Output, 4 * n);
    let read_out = buffers.get(Role::ReadOutput, 4 * n);
    let params_buffer = buffers.get(Role::Params(0), 48);
    gpu.queue.write_buffer(&input, 0, &f32_bytes(&x));
    let none = table(gpu, Table::None);
    let params = Params {
        count: n as u32,
        n: x.len() as u32,
        variant: op as u32,
        ..Params::default()
    };
    let submitted = submit(
        gpu,
        &[Pass {
            family: Family::CheckArithmetic,
            entry: "quantize",
            params,
            params_buffer: &params_buffer,
            bindings: &[&input, &none, &blocks, &out],
        }],
        &[(&out, &read_out, 4 * n)],
    );
    let data = crate::block_on(read(gpu, &[(&read_out, 4 * n)], submitted)).expect("readback");
    words(&data[0])
}

/// Whether the GPU's `got` is the CPU's result of `op` on `(a, b)` (see the module docs for NaN).
fn agrees(op: Op, a: f32, b: f32, got: u32) -> bool {
    let want = op.cpu(a, b);
    if !want.is_nan() {
        return got == want.to_bits();
    }
    let got_nan = f32::from_bits(got).is_nan();
    if !cfg!(target_arch = "x86_64") {
        return got_nan;
    }
    let quiet = |v: f32| v.to_bits() | 0x0040_0000;
    let commutes = matches!(op, Op::Add | Op::Mul);
    let either = commutes && a.is_nan() && b.is_nan() && (got == quiet(a) || got == quiet(b));
    got == want.to_bits() || either
}

/// Operands worth pairing with each other: zeros, infinities, NaNs, the edges of the subnormal
/// and normal ranges, and ordinary values.
fn specials() -> Vec<f32> {
    let bits = [
        0x0000_0000u32,
        0x0000_0001,
        0x0000_0002,
        0x0000_0003,
        0x0040_0000,
        0x007f_ffff,
        0x0080_0000,
        0x0080_0001,
        0x00ff_ffff,
        0x3380_0000, // 2^-24
        0x3f80_0000,
        0x3f80_0001,
        0x3fff_ffff,
        0x3fc0_0000,
        0x4040_0000,
        0x3dcc_cccd, // 0.1
        0x4b40_0000, // 1.5·2^23
        0x7e80_0000,
        0x7f7f_ffff,
        0x7f00_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0x7f80_0001, // signalling NaN
        0x7fa5_5555,
    ];
    bits.iter()
        .flat_map(|&b| [f32::from_bits(b), f32::from_bits(b | 0x8000_0000)])
        .collect()
}

/// The hard cases of `op`, then `random` seeded pairs of arbitrary bit patterns.
fn cases(op: Op, random: usize) -> Vec<(f32, f32)> {
    let s = specials();
    let mut pairs: Vec<(f32, f32)> = s
        .iter()
        .flat_map(|&a| s.iter().map(move |&b| (a, b)))
        .collect();
    let mut rng = SplitMix64(0xd1f);
    let mut next = || rng.next_u64() as u32;
    // Exact ties of subnormal results: odd multiples of the smallest subnormal halved (quotients
    // and products can only tie where the result is subnormal), and their neighbours.
    for k in 1..2000u32 {
        let a = f32::from_bits(k);
        for b in [2.0f32, 4.0, 8.0, -2.0, 0.5, 0.25, 1.5, 3.0] {
            match op {
                Op::Div => pairs.push((a, b)),
                Op::Mul => pairs.push((a, 1.0 / b)),
                Op::Sqrt => pairs.push((a, b)),
                _ => pairs.push((a, f32::from_bits(k * 3) * b.signum())),
            }
        }
    }
    for _ in 0..40_000 {
        // Near-ties: a quotient (product) within a rounding of a midpoint between two floats.
        let q = f32::from_bits(0x3f80_0000 | (next() & 0x007f_ffff));
        let mid = q as f64 + f64::powi(2.0, -24);
        let b = f32::from_bits((next() & 0x807f_ffff) | ((next() % 200 + 27) << 23));
        match op {
            Op::Div => pairs.push(((mid * b as f64) as f32, b)),
            Op::Mul => pairs.push(((mid / b as f64) as f32, b)),
            // Squares of midpoints (and of floats: exact roots), at every scale.
            Op::Sqrt => {
                let scale = f64::powi(2.0, (next() % 200) as i32 - 100);
                pairs.push((((mid * scale) * (mid * scale)) as f32, b));
                pairs.push((((q as f64 * scale) * (q as f64 * scale)) as f32, b));
            }
            _ => pairs.push((
                q,
                (mid - q as f64) as f32 * if next() % 2 == 0 { 1.0 } else { -1.0 },
            )),
        }
        // Close exponents with arbitrary mantissas and signs, and results that overflow,
        // underflow into the subnormals or round to the smallest normal.
        let e = next() % 254 + 1;
        let near = (e as i32 + (next() % 7) as i32 - 3).clamp(1, 254) as u32;
        pairs.push((
            f32::from_bits((next() & 0x807f_ffff) | (e << 23)),
            f32::from_bits((next() & 0x807f_ffff) | (near << 23)),
        ));
        let big = f32::from_bits((next() & 0x807f_ffff) | ((next() % 24 + 230) << 23));
        let small = f32::from_bits((next() & 0x807f_ffff) | ((next() % 24 + 1) << 23));
        let subnormal = f32::from_bits(next() & 0x807f_ffff);
        pairs.extend([
            (big, small),
            (small, big),
            (subnormal, big),
            (big, subnormal),
        ]);
        pairs.extend([(subnormal, small), (small, subnormal)]);
        let edge = f32::from_bits(0x0080_0000 - (next() % 16));
        pairs.push((edge, f32::from_bits(0x3f80_0000 - (next() % 16))));
        pairs.push((edge, f32::from_bits(0x3f80_0000 + (next() % 16))));
    }
    pairs.extend((0..random).map(|_| (f32::from_bits(next()), f32::from_bits(next()))));
    pairs
}

/// Panics with the first disagreement (and how many there are).
fn check(gpu: &Gpu, op: Op) {
    let pairs = cases(op, 200_000);
    let got = on_gpu(gpu, op, &pairs);
    let bad: Vec<usize> = (0..pairs.len())
        .filter(|&i| !agrees(op, pairs[i].0, pairs[i].1, got[i]))
        .collect();
    if let Some(&i) = bad.first() {
        let (a, b) = pairs[i];
        panic!(
            "{op:?}: first difference at pair {i}: {a:e} ({:#010x}), {b:e} ({:#010x}): GPU \
             {:#010x}, CPU {:#010x} ({} of {} pairs differ)",
            a.to_bits(),
            b.to_bits(),
            got[i],
            op.cpu(a, b).to_bits(),
            bad.len(),
            pairs.len()
        );
    }
}

/// The test context, or `None` (with SKIPPED and the reason on stderr) where there is no adapter,
/// which `BITBUDGET_REQUIRE_GPU=1` turns into a failure.
fn gpu() -> Option<Gpu> {
    match crate::block_on(Gpu::new()) {
        Ok(gpu) => Some(gpu),
        Err(e) if std::env::var("BITBUDGET_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("BITBUDGET_REQUIRE_GPU=1 but {e}")
        }
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIPPED: GPU arithmetic test: {e} ***\n"
            );
            None
        }
    }
}

#[test]
fn gpu_division_is_correctly_rounded_like_the_cpus() {
    let Some(gpu) = gpu() else { return };
    check(&gpu, Op::Div);
}

#[test]
fn gpu_multiplication_addition_and_subtraction_are_correctly_rounded_like_the_cpus() {
    let Some(gpu) = gpu() else { return };
    for op in [Op::Mul, Op::Add, Op::Sub] {
        check(&gpu, op);
    }
}

#[test]
fn gpu_square_root_is_correctly_rounded_like_the_cpus() {
    let Some(gpu) = gpu() else { return };
    check(&gpu, Op::Sqrt);
}
