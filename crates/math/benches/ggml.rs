//! Throughput of the GGML block quantizers (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, MXFP4) on one core, in
//! bytes of f32 input per second (criterion), each next to llama.cpp's reference on the same
//! input in the same run:
//! - `<scheme>/bitbudget`: `quantize_row` into a buffer allocated once;
//! - `<scheme>/bitbudget_scalar`: `quantize_row_scalar`, the one-value-at-a-time reference (the
//!   quantizers before their fast paths);
//! - `<scheme>/llama.cpp`: `quantize_row_<scheme>_ref` from llama.cpp's ggml-quants.c, loaded
//!   from `build/llama-reference/libggml-ref.so` when `scripts/build_llama_reference.py` has
//!   built it (else left out, and said so); its bytes are checked equal to ours first.
//!
//! The input is the little-endian f32 file named by `KQUANT_BENCH_INPUT` (a multiple of 32
//! values), else a generated 4M-value N(0, 1) tensor.
//! Run: `cargo bench -p bitbudget-math --bench ggml` (or `python3 scripts/bench_ggml_reference.py`,
//! which builds the library and prints a table). Target: every scheme at least llama.cpp's speed.

use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::ggml::scalar::quantize_row_scalar;
use bitbudget_math::quant::ggml::{quantize_row, GgmlType, QK};
use bitbudget_math::quant::scheme::Scheme;
use cpu_time::ThreadCpuTime;
use criterion::{Criterion, Throughput};
use std::hint::black_box;

#[macro_use]
#[path = "common/cpu_time.rs"]
mod cpu_time;
#[path = "common/input.rs"]
mod input;

/// The benchmark input: the file named by `KQUANT_BENCH_INPUT`, else a generated tensor.
fn input() -> Vec<f32> {
    input::from_env("KQUANT_BENCH_INPUT", QK)
        .unwrap_or_else(|| generate(Distribution::Normal, 4096, 1024, 1.0, 1))
}

/// llama.cpp's `quantize_row_<scheme>_ref(const float * x, block * y, int64_t k)`.
type RowRef = unsafe extern "C" fn(*const f32, *mut u8, i64);

/// The reference library, when built (natively; the bench does not run in wasm).
#[cfg(not(target_arch = "wasm32"))]
mod reference {
    /// The loaded library.
    pub struct Reference(libloading::Library);

    impl Reference {
        /// Loads build/llama-reference/libggml-ref.so, or says that it is not built.
        pub fn load() -> Option<Self> {
            let path = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../build/llama-reference/libggml-ref.so"
            );
            if !std::path::Path::new(path).exists() {
                eprintln!(
                    "llama.cpp reference not built ({path}): run scripts/build_llama_reference.py"
                );
                return None;
            }
            // SAFETY: the library is ggml built by scripts/build_llama_reference.py; loading it
            // runs no initialiser beyond the C runtime's.
            Some(Self(
                unsafe { libloading::Library::new(path) }.expect("load libggml-ref.so"),
            ))
        }

        /// `quantize_row_<name>_ref`.
        pub fn row(&self, name: &str) -> super::RowRef {
            let symbol = format!("quantize_row_{name}_ref");
            // SAFETY: the symbol has the `RowRef` signature in ggml-quants.h.
            *unsafe { self.0.get::<super::RowRef>(symbol.as_bytes()) }.expect("reference symbol")
        }
    }
}

/// No reference library in wasm builds (which only type-check the bench).
#[cfg(target_arch = "wasm32")]
mod reference {
    /// Never loaded.
    pub struct Reference;

    impl Reference {
        /// `None`: the reference is a native library.
        pub fn load() -> Option<Self> {
            None
        }

        /// Unreachable: nothing is loaded.
        pub fn row(&self, _name: &str) -> super::RowRef {
            unreachable!("no reference library in wasm")
        }
    }
}

fn bench(c: &mut Criterion<ThreadCpuTime>) {
    let x = input();
    let lib = reference::Reference::load();
    let mut group = c.benchmark_group("ggml_quantize");
    group.throughput(Throughput::Bytes((x.len() * 4) as u64));
    group.sample_size(10);
    for t in GgmlType::ALL {
        let name = Scheme::Ggml(t).name();
        let mut ours = vec![0u8; x.len() / QK * t.block_bytes()];
        quantize_row(t, &x, &mut ours).expect("whole blocks");
        if let Some(lib) = &lib {
            let row = lib.row(name);
            let mut theirs = vec![0u8; ours.len()];
            // SAFETY: `x` holds `x.len()` floats and `theirs` their blocks' bytes.
            let run = |out: &mut [u8]| unsafe { row(x.as_ptr(), out.as_mut_ptr(), x.len() as i64) };
            run(&mut theirs);
            assert!(
                ours == theirs,
                "{name}: bitbudget's bytes differ from llama.cpp's"
            );
            group.bench_function(format!("{name}/llama.cpp"), |b| {
                b.iter(|| run(black_box(&mut theirs)))
            });
        }
        group.bench_function(format!("{name}/bitbudget_scalar"), |b| {
            b.iter(|| quantize_row_scalar(t, black_box(&x), &mut ours))
        });
        group.bench_function(format!("{name}/bitbudget"), |b| {
            b.iter(|| quantize_row(t, black_box(&x), &mut ours))
        });
    }
    group.finish();
}

cpu_time_main!(bench);
