//! Four `f32` lanes for the K-quant scale searches: WebAssembly `simd128` vectors where the target
//! has them, SSE2 on x86-64, plain arrays (which the compiler vectorises as it can) elsewhere.
//! Every operation is the lane-wise IEEE `f32` operation, rounded once, so all forms give the
//! same bits.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use core::arch::wasm32::*;

/// 1.5·2^23: adding it to a value below 2^22 in magnitude and subtracting it again rounds the
/// value to an integer, ties to even (the float form of llama.cpp's `nearest_int`).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
const ROUNDER: f32 = 12_582_912.0;

/// Four `f32` values.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[derive(Clone, Copy)]
pub struct F4(v128);

/// Four `f32` values.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct F4(__m128);

/// Four lane masks (all bits set where true), from comparisons of [`F4`]s.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub struct M4(__m128);

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

// SSE2 is part of x86-64, so these intrinsics are always available there.
#[cfg(target_arch = "x86_64")]
impl F4 {
    #[inline(always)]
    pub fn splat(v: f32) -> F4 {
        F4(unsafe { _mm_set1_ps(v) })
    }
    #[inline(always)]
    pub fn new(a: [f32; 4]) -> F4 {
        F4(unsafe { _mm_loadu_ps(a.as_ptr()) })
    }
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        let mut a = [0f32; 4];
        unsafe { _mm_storeu_ps(a.as_mut_ptr(), self.0) };
        a
    }
    #[inline(always)]
    pub fn add(self, o: F4) -> F4 {
        F4(unsafe { _mm_add_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn sub(self, o: F4) -> F4 {
        F4(unsafe { _mm_sub_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn mul(self, o: F4) -> F4 {
        F4(unsafe { _mm_mul_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn div(self, o: F4) -> F4 {
        F4(unsafe { _mm_div_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn abs(self) -> F4 {
        F4(unsafe { _mm_andnot_ps(_mm_set1_ps(-0.0), self.0) })
    }
    /// `if self < o { o } else { self }` per lane (`maxps(o, self)` is `o > self ? o : self`).
    #[inline(always)]
    pub fn pmax(self, o: F4) -> F4 {
        F4(unsafe { _mm_max_ps(o.0, self.0) })
    }
    /// `if o < self { o } else { self }` per lane (`minps(o, self)` is `o < self ? o : self`).
    #[inline(always)]
    pub fn pmin(self, o: F4) -> F4 {
        F4(unsafe { _mm_min_ps(o.0, self.0) })
    }
    #[inline(always)]
    pub fn lt(self, o: F4) -> M4 {
        M4(unsafe { _mm_cmplt_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn gt(self, o: F4) -> M4 {
        M4(unsafe { _mm_cmpgt_ps(self.0, o.0) })
    }
    /// Lanes whose bits differ.
    #[inline(always)]
    pub fn bits_ne(self, o: F4) -> M4 {
        M4(unsafe {
            let eq = _mm_castsi128_ps(_mm_cmpeq_epi32(
                _mm_castps_si128(self.0),
                _mm_castps_si128(o.0),
            ));
            _mm_xor_ps(eq, _mm_castsi128_ps(_mm_set1_epi32(-1)))
        })
    }
    #[inline(always)]
    pub fn is_nan(self) -> M4 {
        M4(unsafe { _mm_cmpunord_ps(self.0, self.0) })
    }
    /// `if m { a } else { 0.0 }` per lane.
    #[inline(always)]
    pub fn masked(m: M4, a: F4) -> F4 {
        F4(unsafe { _mm_and_ps(m.0, a.0) })
    }
    /// Per lane, how many of `thresholds` the lane is below (`self < t`; NaN is below none).
    #[inline(always)]
    pub fn count_below(self, thresholds: &[f32]) -> [u32; 4] {
        let mut a = [0i32; 4];
        unsafe {
            // Each comparison gives −1 (all bits set) where true: the sum is minus the count.
            let mut n = _mm_setzero_si128();
            for &t in thresholds {
                n = _mm_add_epi32(n, _mm_castps_si128(_mm_cmplt_ps(self.0, _mm_set1_ps(t))));
            }
            _mm_storeu_si128(a.as_mut_ptr().cast(), n);
        }
        a.map(|n| n.unsigned_abs())
    }
    /// Per lane, how many of the 15 ascending `thresholds` the lane is not below (`!(self < t)`,
    /// so NaN passes all 15): 15 less [`F4::count_below`].
    #[inline(always)]
    pub fn rank_sorted15(self, thresholds: &[f32; 15]) -> [u8; 4] {
        self.count_below(thresholds).map(|n| 15 - n as u8)
    }
    /// IEEE `==` per lane (−0 equals +0, NaN equals nothing).
    #[inline(always)]
    pub fn eq(self, o: F4) -> M4 {
        M4(unsafe { _mm_cmpeq_ps(self.0, o.0) })
    }
    /// The sign flipped.
    #[inline(always)]
    pub fn neg(self) -> F4 {
        F4(unsafe { _mm_xor_ps(self.0, _mm_set1_ps(-0.0)) })
    }
    /// `if self < 0 { +0 } else { self }` per lane, for lanes that are not NaN (−0 may stay −0
    /// here and become +0 in WebAssembly).
    #[inline(always)]
    pub fn max_zero(self) -> F4 {
        F4(unsafe { _mm_max_ps(_mm_setzero_ps(), self.0) })
    }
    /// Rounded to an integer, ties to even, for lanes below 2^22 in magnitude (SSE2 has no
    /// rounding instruction: adding and subtracting 1.5·2^23 does it; a lane in (−0.5, 0) gives
    /// +0 here and −0 in WebAssembly).
    #[inline(always)]
    pub fn round_even_small(self) -> F4 {
        let r = F4::splat(ROUNDER);
        self.add(r).sub(r)
    }
    /// `if m { a } else { b }` per lane.
    #[inline(always)]
    pub fn select(m: M4, a: F4, b: F4) -> F4 {
        F4(unsafe { _mm_or_ps(_mm_and_ps(m.0, a.0), _mm_andnot_ps(m.0, b.0)) })
    }
}

#[cfg(target_arch = "x86_64")]
impl M4 {
    #[inline(always)]
    pub fn and(self, o: M4) -> M4 {
        M4(unsafe { _mm_and_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn or(self, o: M4) -> M4 {
        M4(unsafe { _mm_or_ps(self.0, o.0) })
    }
    #[inline(always)]
    pub fn any(self) -> bool {
        unsafe { _mm_movemask_ps(self.0) != 0 }
    }
    #[inline(always)]
    pub fn all(self) -> bool {
        unsafe { _mm_movemask_ps(self.0) == 0xF }
    }
}

/// Four `f32` values.
#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    target_arch = "x86_64"
)))]
#[derive(Clone, Copy)]
pub struct F4([f32; 4]);

/// Four lane masks (all bits set where true), from comparisons of [`F4`]s.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[derive(Clone, Copy)]
pub struct M4(v128);

/// Four lane masks, from comparisons of [`F4`]s.
#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    target_arch = "x86_64"
)))]
#[derive(Clone, Copy)]
pub struct M4([bool; 4]);

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
impl F4 {
    #[inline(always)]
    pub fn splat(v: f32) -> F4 {
        F4(f32x4_splat(v))
    }
    #[inline(always)]
    pub fn new(a: [f32; 4]) -> F4 {
        F4(f32x4(a[0], a[1], a[2], a[3]))
    }
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        [
            f32x4_extract_lane::<0>(self.0),
            f32x4_extract_lane::<1>(self.0),
            f32x4_extract_lane::<2>(self.0),
            f32x4_extract_lane::<3>(self.0),
        ]
    }
    #[inline(always)]
    pub fn add(self, o: F4) -> F4 {
        F4(f32x4_add(self.0, o.0))
    }
    #[inline(always)]
    pub fn sub(self, o: F4) -> F4 {
        F4(f32x4_sub(self.0, o.0))
    }
    #[inline(always)]
    pub fn mul(self, o: F4) -> F4 {
        F4(f32x4_mul(self.0, o.0))
    }
    #[inline(always)]
    pub fn div(self, o: F4) -> F4 {
        F4(f32x4_div(self.0, o.0))
    }
    #[inline(always)]
    pub fn abs(self) -> F4 {
        F4(f32x4_abs(self.0))
    }
    /// `if self < o { o } else { self }` per lane (so a NaN in `self` stays).
    #[inline(always)]
    pub fn pmax(self, o: F4) -> F4 {
        F4(f32x4_pmax(self.0, o.0))
    }
    /// `if o < self { o } else { self }` per lane.
    #[inline(always)]
    pub fn pmin(self, o: F4) -> F4 {
        F4(f32x4_pmin(self.0, o.0))
    }
    #[inline(always)]
    pub fn lt(self, o: F4) -> M4 {
        M4(f32x4_lt(self.0, o.0))
    }
    #[inline(always)]
    pub fn gt(self, o: F4) -> M4 {
        M4(f32x4_gt(self.0, o.0))
    }
    /// Lanes whose bits differ.
    #[inline(always)]
    pub fn bits_ne(self, o: F4) -> M4 {
        M4(i32x4_ne(self.0, o.0))
    }
    #[inline(always)]
    pub fn is_nan(self) -> M4 {
        M4(f32x4_ne(self.0, self.0))
    }
    /// `if m { a } else { 0.0 }` per lane.
    #[inline(always)]
    pub fn masked(m: M4, a: F4) -> F4 {
        F4(v128_and(m.0, a.0))
    }
    /// Per lane, how many of the 15 ascending `thresholds` the lane is not below (`!(self < t)`,
    /// so NaN passes all 15), in two steps instead of fifteen comparisons. The comparisons with thresholds 3, 7 and 11 pick the lane's run of four
    /// (`q` in 0..4); a byte shuffle fetches that run's first three thresholds for each lane,
    /// and the rank is `4q` plus the ones of those three it is not below. Exact for any lane as
    /// the thresholds ascend: the lane is below every threshold after its run and none before.
    #[inline(always)]
    pub fn rank_sorted15(self, thresholds: &[f32; 15]) -> [u8; 4] {
        let t = thresholds;
        let below = |v: f32| f32x4_lt(self.0, f32x4_splat(v));
        // −(runs the lane is below): −3..=0; its run is q = 3 + that.
        let coarse = i32x4_add(i32x4_add(below(t[3]), below(t[7])), below(t[11]));
        // Bytes 4q..4q+4 of each table: lane value (3 + coarse)·0x04040404 + 0x03020100.
        let at = i32x4_add(
            i32x4_mul(coarse, i32x4_splat(0x0404_0404)),
            i32x4_splat(0x0F0E_0D0C),
        );
        let mut fine = i32x4_splat(0);
        for j in 0..3 {
            let table = f32x4(t[j], t[4 + j], t[8 + j], t[12 + j]);
            let threshold = i8x16_swizzle(table, at);
            fine = i32x4_add(fine, f32x4_lt(self.0, threshold));
        }
        // 4q + (3 − fine ones below) = 15 + 4·coarse + fine.
        let rank = i32x4_add(i32x4_add(i32x4_shl(coarse, 2), fine), i32x4_splat(15));
        [
            i32x4_extract_lane::<0>(rank) as u8,
            i32x4_extract_lane::<1>(rank) as u8,
            i32x4_extract_lane::<2>(rank) as u8,
            i32x4_extract_lane::<3>(rank) as u8,
        ]
    }
    /// IEEE `==` per lane (−0 equals +0, NaN equals nothing).
    #[inline(always)]
    pub fn eq(self, o: F4) -> M4 {
        M4(f32x4_eq(self.0, o.0))
    }
    /// The sign flipped.
    #[inline(always)]
    pub fn neg(self) -> F4 {
        F4(f32x4_neg(self.0))
    }
    /// `if self < 0 { +0 } else { self }` per lane, for lanes that are not NaN (one signed
    /// integer maximum: the bits of a negative float are a negative integer; −0 becomes +0 here).
    #[inline(always)]
    pub fn max_zero(self) -> F4 {
        F4(i32x4_max(self.0, i32x4_splat(0)))
    }
    /// Rounded to an integer, ties to even (`f32x4.nearest`, one instruction), for lanes below
    /// 2^22 in magnitude, where it equals the other targets' 1.5·2^23 trick except that a lane in
    /// (−0.5, 0) gives −0 here and +0 there.
    #[inline(always)]
    pub fn round_even_small(self) -> F4 {
        F4(f32x4_nearest(self.0))
    }
    /// `if m { a } else { b }` per lane.
    #[inline(always)]
    pub fn select(m: M4, a: F4, b: F4) -> F4 {
        F4(v128_bitselect(a.0, b.0, m.0))
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
impl M4 {
    #[inline(always)]
    pub fn and(self, o: M4) -> M4 {
        M4(v128_and(self.0, o.0))
    }
    #[inline(always)]
    pub fn or(self, o: M4) -> M4 {
        M4(v128_or(self.0, o.0))
    }
    #[inline(always)]
    pub fn any(self) -> bool {
        v128_any_true(self.0)
    }
    #[inline(always)]
    pub fn all(self) -> bool {
        i32x4_all_true(self.0)
    }
}

#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    target_arch = "x86_64"
)))]
impl F4 {
    #[inline(always)]
    fn map2(self, o: F4, f: impl Fn(f32, f32) -> f32) -> F4 {
        F4([
            f(self.0[0], o.0[0]),
            f(self.0[1], o.0[1]),
            f(self.0[2], o.0[2]),
            f(self.0[3], o.0[3]),
        ])
    }
    #[inline(always)]
    fn cmp(self, o: F4, f: impl Fn(f32, f32) -> bool) -> M4 {
        M4([
            f(self.0[0], o.0[0]),
            f(self.0[1], o.0[1]),
            f(self.0[2], o.0[2]),
            f(self.0[3], o.0[3]),
        ])
    }
    #[inline(always)]
    pub fn splat(v: f32) -> F4 {
        F4([v; 4])
    }
    #[inline(always)]
    pub fn new(a: [f32; 4]) -> F4 {
        F4(a)
    }
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0
    }
    #[inline(always)]
    pub fn add(self, o: F4) -> F4 {
        self.map2(o, |a, b| a + b)
    }
    #[inline(always)]
    pub fn sub(self, o: F4) -> F4 {
        self.map2(o, |a, b| a - b)
    }
    #[inline(always)]
    pub fn mul(self, o: F4) -> F4 {
        self.map2(o, |a, b| a * b)
    }
    #[inline(always)]
    pub fn div(self, o: F4) -> F4 {
        self.map2(o, |a, b| a / b)
    }
    #[inline(always)]
    pub fn abs(self) -> F4 {
        self.map2(self, |a, _| a.abs())
    }
    /// `if self < o { o } else { self }` per lane (so a NaN in `self` stays).
    #[inline(always)]
    pub fn pmax(self, o: F4) -> F4 {
        self.map2(o, |a, b| if a < b { b } else { a })
    }
    /// `if o < self { o } else { self }` per lane.
    #[inline(always)]
    pub fn pmin(self, o: F4) -> F4 {
        self.map2(o, |a, b| if b < a { b } else { a })
    }
    #[inline(always)]
    pub fn lt(self, o: F4) -> M4 {
        self.cmp(o, |a, b| a < b)
    }
    #[inline(always)]
    pub fn gt(self, o: F4) -> M4 {
        self.cmp(o, |a, b| a > b)
    }
    /// Lanes whose bits differ.
    #[inline(always)]
    pub fn bits_ne(self, o: F4) -> M4 {
        self.cmp(o, |a, b| a.to_bits() != b.to_bits())
    }
    #[inline(always)]
    pub fn is_nan(self) -> M4 {
        self.cmp(self, |a, _| a.is_nan())
    }
    /// `if m { a } else { 0.0 }` per lane.
    #[inline(always)]
    pub fn masked(m: M4, a: F4) -> F4 {
        F4([0, 1, 2, 3].map(|k| if m.0[k] { a.0[k] } else { 0.0 }))
    }
    /// Per lane, how many of `thresholds` the lane is below (`self < t`; NaN is below none).
    #[inline(always)]
    pub fn count_below(self, thresholds: &[f32]) -> [u32; 4] {
        self.0
            .map(|v| thresholds.iter().filter(|&&t| v < t).count() as u32)
    }
    /// Per lane, how many of the 15 ascending `thresholds` the lane is not below (`!(self < t)`,
    /// so NaN passes all 15): 15 less [`F4::count_below`].
    #[inline(always)]
    pub fn rank_sorted15(self, thresholds: &[f32; 15]) -> [u8; 4] {
        self.count_below(thresholds).map(|n| 15 - n as u8)
    }
    /// IEEE `==` per lane (−0 equals +0, NaN equals nothing).
    #[inline(always)]
    pub fn eq(self, o: F4) -> M4 {
        self.cmp(o, |a, b| a == b)
    }
    /// The sign flipped.
    #[inline(always)]
    pub fn neg(self) -> F4 {
        self.map2(self, |a, _| -a)
    }
    /// `if self < 0 { +0 } else { self }` per lane, for lanes that are not NaN.
    #[inline(always)]
    pub fn max_zero(self) -> F4 {
        self.map2(self, |a, _| if a < 0.0 { 0.0 } else { a })
    }
    /// Rounded to an integer, ties to even, for lanes below 2^22 in magnitude (adding and
    /// subtracting 1.5·2^23; a lane in (−0.5, 0) gives +0).
    #[inline(always)]
    pub fn round_even_small(self) -> F4 {
        let r = F4::splat(ROUNDER);
        self.add(r).sub(r)
    }
    /// `if m { a } else { b }` per lane.
    #[inline(always)]
    pub fn select(m: M4, a: F4, b: F4) -> F4 {
        F4([0, 1, 2, 3].map(|k| if m.0[k] { a.0[k] } else { b.0[k] }))
    }
}

#[cfg(not(any(
    all(target_arch = "wasm32", target_feature = "simd128"),
    target_arch = "x86_64"
)))]
impl M4 {
    #[inline(always)]
    pub fn and(self, o: M4) -> M4 {
        M4([0, 1, 2, 3].map(|k| self.0[k] && o.0[k]))
    }
    #[inline(always)]
    pub fn or(self, o: M4) -> M4 {
        M4([0, 1, 2, 3].map(|k| self.0[k] || o.0[k]))
    }
    #[inline(always)]
    pub fn any(self) -> bool {
        self.0.iter().any(|&b| b)
    }
    #[inline(always)]
    pub fn all(self) -> bool {
        self.0.iter().all(|&b| b)
    }
}
