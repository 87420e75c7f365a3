//! simd128 lane helpers that the number formats' and the quantizers' WebAssembly loops share:
//! one load, and one conversion of whole lanes to integers. Empty in other builds.

/// Reads four f32 from `x` (exactly four long; panics otherwise) as one simd128 vector: the one
/// load of the quantizers' and the lab's simd128 loops.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn load_f32x4(x: &[f32]) -> core::arch::wasm32::v128 {
    assert!(x.len() == 4);
    // SAFETY: `x` holds four f32 (16 bytes), and `v128_load` has no alignment requirement.
    unsafe { core::arch::wasm32::v128_load(x.as_ptr().cast()) }
}

/// The i32 in each lane of `v`, which must hold an integer of magnitude at most 2^22 (any other
/// lane, NaN included, gives an unspecified value): v + 1.5·2^23 is then exact and lies in
/// [2^23, 2^24], where consecutive f32 bit patterns are one unit apart, so the bits less those of
/// 1.5·2^23 are the integer. Two instructions, where `i32x4_trunc_sat_f32x4` takes about eight in
/// V8 on x86-64 (its NaN and overflow fix-ups); the quantizers' and histograms' lanes use it
/// once their values are clamped and whole.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn small_integers(v: core::arch::wasm32::v128) -> core::arch::wasm32::v128 {
    use core::arch::wasm32::{f32x4_add, f32x4_splat, i32x4_splat, i32x4_sub};
    const MAGIC: f32 = 12_582_912.0;
    i32x4_sub(
        f32x4_add(v, f32x4_splat(MAGIC)),
        i32x4_splat(MAGIC.to_bits() as i32),
    )
}
