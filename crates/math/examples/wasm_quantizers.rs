//! bitbudget's quantizers as plain WebAssembly exports (no wasm-bindgen, no JS glue), so that
//! `scripts/bench_ggml_wasm.mjs` can run them next to llama.cpp's reference C compiled to
//! WebAssembly, on the same input in one Node.js process (every GGML and MXFP4
//! quantizer at least as fast as llama.cpp's reference, in wasm too).
//!
//! Build: `cargo build --release -p bitbudget-math --example wasm_quantizers --target
//! wasm32-unknown-unknown` (simd128 on, from `.cargo/config.toml`), or let
//! `python3 scripts/build_llama_reference.py --wasm-bench` do it.
//!
//! Exports: `bb_alloc(bytes) -> ptr` (zeroed, 16-byte aligned, never freed: the bench allocates
//! its buffers once), `bb_quantized_len(name, name_len, n) -> bytes` (what `n` values take,
//! `usize::MAX` for an unknown name) and `bb_quantize(name, name_len, x, n, out, out_len) ->
//! written`, which
//! quantizes `n` f32 values into `out` with the scheme of that name at its default block size
//! and returns the bytes written, or `usize::MAX` for an unknown name, a length that is not whole
//! blocks, or an output of another size. The GGML types and MXFP4 quantize straight into `out`
//! (`quantize_row`, as llama.cpp's `quantize_row_*_ref` do); the others through
//! [`quantize`]'s vector, copied into `out`.

use bitbudget_math::quant::codec::quantize;
use bitbudget_math::quant::ggml::quantize_row;
use bitbudget_math::quant::layout::Layout;
use bitbudget_math::quant::scheme::Scheme;

/// `bytes` zeroed bytes, 16-byte aligned, that live as long as the module.
#[no_mangle]
pub extern "C" fn bb_alloc(bytes: usize) -> *mut u8 {
    let words = vec![0u128; bytes.div_ceil(16)];
    Box::leak(words.into_boxed_slice()).as_mut_ptr().cast()
}

/// The scheme named by the `len` UTF-8 bytes at `name`.
///
/// # Safety
/// `name` points to `len` bytes.
unsafe fn scheme_named(name: *const u8, len: usize) -> Option<Scheme> {
    // SAFETY: the caller's contract above.
    let name = unsafe { std::slice::from_raw_parts(name, len) };
    std::str::from_utf8(name).ok()?.parse().ok()
}

/// Bytes of `n` values (whole blocks) in the scheme named by the `name_len` bytes at `name`, at
/// its default block size, with its per-tensor header; `usize::MAX` for an unknown name.
///
/// # Safety
/// `name` points to `name_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bb_quantized_len(name: *const u8, name_len: usize, n: usize) -> usize {
    // SAFETY: the caller's contract above.
    match unsafe { scheme_named(name, name_len) } {
        Some(s) => Layout::of(s, s.default_block()).bytes_for(n),
        None => usize::MAX,
    }
}

/// Quantizes `n` values at `x` with the scheme named by the `name_len` UTF-8 bytes at `name`
/// into the `out_len` bytes at `out`; returns the bytes written, or `usize::MAX` on any error.
///
/// # Safety
/// `name`, `x` and `out` point to `name_len` bytes, `n` f32 values and `out_len` bytes that the
/// caller owns (from [`bb_alloc`]), and `out` overlaps neither of the others.
#[no_mangle]
pub unsafe extern "C" fn bb_quantize(
    name: *const u8,
    name_len: usize,
    x: *const f32,
    n: usize,
    out: *mut u8,
    out_len: usize,
) -> usize {
    // SAFETY: the caller's contract above.
    let (scheme, x, out) = unsafe {
        (
            scheme_named(name, name_len),
            std::slice::from_raw_parts(x, n),
            std::slice::from_raw_parts_mut(out, out_len),
        )
    };
    let Some(scheme) = scheme else {
        return usize::MAX;
    };
    if let Scheme::Ggml(t) = scheme {
        return match quantize_row(t, x, out) {
            Ok(()) => out.len(),
            Err(_) => usize::MAX,
        };
    }
    match quantize(scheme, x, scheme.default_block()) {
        Ok(bytes) if bytes.len() == out.len() => {
            out.copy_from_slice(&bytes);
            bytes.len()
        }
        _ => usize::MAX,
    }
}
