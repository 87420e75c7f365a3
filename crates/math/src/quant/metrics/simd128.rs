//! The metrics' sums in f64x2 lanes for wasm, where V8 runs the scalar form one f64 operation at
//! a time: lane 0 of each vector is the partial sum over pairs of even rank, lane 1 over pairs
//! of odd rank (see [`MetricsAccumulator`]), so the lanes compute exactly what the native
//! `Sums` computes, with half the instructions.

use super::{Lanes, MetricsAccumulator};
use crate::lanes::load_f32x4;
use core::arch::wasm32::*;

/// The native `Sums` (the definition) with each pair of partial sums in one f64x2.
pub(super) struct Sums {
    se: v128,
    sx: v128,
    sy: v128,
    sxy: v128,
    sd: v128,
    block: v128,
    /// The largest |e| of either lane (both lanes start from the accumulator's).
    max: v128,
}

/// Two partial sums as one vector.
#[inline(always)]
fn vector(l: Lanes) -> v128 {
    f64x2(l[0], l[1])
}

/// One vector as two partial sums.
#[inline(always)]
fn lanes(v: v128) -> Lanes {
    [f64x2_extract_lane::<0>(v), f64x2_extract_lane::<1>(v)]
}

impl Sums {
    /// The accumulator's sums, and `block` as the block's.
    #[inline(always)]
    pub(super) fn load(acc: &MetricsAccumulator, block: Lanes) -> Self {
        Self {
            se: vector(acc.se),
            sx: vector(acc.sx),
            sy: vector(acc.sy),
            sxy: vector(acc.sxy),
            sd: vector(acc.sd),
            block: vector(block),
            max: f64x2_splat(acc.max),
        }
    }

    /// Adds two pairs, [a0, a1] and [b0, b1] as f64: e = a − b, then each sum adds both its
    /// products in one instruction; the largest |e| is a lane maximum (`pmax`), which for finite
    /// pairs is the scalar comparison.
    #[inline(always)]
    fn two(&mut self, a: v128, b: v128) {
        let e = f64x2_sub(a, b);
        let squared = f64x2_mul(e, e);
        self.se = f64x2_add(self.se, squared);
        self.block = f64x2_add(self.block, squared);
        self.sx = f64x2_add(self.sx, f64x2_mul(a, a));
        self.sy = f64x2_add(self.sy, f64x2_mul(b, b));
        self.sxy = f64x2_add(self.sxy, f64x2_mul(a, b));
        self.sd = f64x2_add(self.sd, e);
        self.max = f64x2_pmax(self.max, f64x2_abs(e));
    }

    /// Adds the pairs of `a` and `b` (an even number, the first of even rank), four at a time,
    /// calling `each` with each pair's index.
    #[inline(always)]
    pub(super) fn halves(&mut self, a: &[f32], b: &[f32], mut each: impl FnMut(usize)) {
        let n = a.len().min(b.len());
        let fours = n / 4 * 4;
        let high = |v: v128| f64x2_promote_low_f32x4(i32x4_shuffle::<2, 3, 2, 3>(v, v));
        for k in (0..fours).step_by(4) {
            let (va, vb) = (load_f32x4(&a[k..k + 4]), load_f32x4(&b[k..k + 4]));
            each(k);
            each(k + 1);
            self.two(f64x2_promote_low_f32x4(va), f64x2_promote_low_f32x4(vb));
            each(k + 2);
            each(k + 3);
            self.two(high(va), high(vb));
        }
        if fours + 2 <= n {
            each(fours);
            each(fours + 1);
            let widen = |x: &[f32]| f64x2(x[fours] as f64, x[fours + 1] as f64);
            self.two(widen(a), widen(b));
        }
    }

    /// Adds one pair to `lane`'s sums: the other lane adds zeros, which changes none of its
    /// sums (a partial sum is never −0, the only value that adding +0 changes: sums start at
    /// +0, and a sum is −0 only when both terms are) nor the maximum (never below 0).
    #[inline(always)]
    pub(super) fn one(&mut self, lane: usize, a: f32, b: f32) {
        let alone = |v: f32| {
            if lane == 0 {
                f64x2(v as f64, 0.0)
            } else {
                f64x2(0.0, v as f64)
            }
        };
        self.two(alone(a), alone(b));
    }

    /// The block's sums, which start again from zero.
    #[inline(always)]
    pub(super) fn take_block(&mut self) -> Lanes {
        let block = lanes(self.block);
        self.block = f64x2_splat(0.0);
        block
    }

    /// Writes the sums back to `acc`; returns the open block's.
    #[inline(always)]
    pub(super) fn store(self, acc: &mut MetricsAccumulator) -> Lanes {
        (acc.se, acc.sx, acc.sy, acc.sxy, acc.sd) = (
            lanes(self.se),
            lanes(self.sx),
            lanes(self.sy),
            lanes(self.sxy),
            lanes(self.sd),
        );
        let max = lanes(self.max);
        acc.max = if max[1] > max[0] { max[1] } else { max[0] };
        lanes(self.block)
    }
}
