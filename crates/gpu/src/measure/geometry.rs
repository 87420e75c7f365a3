//! Where values land in the measuring pass, computed on the host as the kernel computes it:
//! the value bins' starts as order keys, the error histogram's range exponent, and the tiles of a
//! chunk.

use bitbudget_math::quant::lab::MeasureSetup;

/// Values per tile (`TILE` in measure_lab.wgsl).
pub(super) const TILE: usize = 32;

/// The smallest E with 2^E ≥ |v| for the nonzero finite |v| bits `u` (`ceil_log2` in the kernel;
/// GrowingHistogram's range exponent).
pub(super) fn ceil_log2(u: u32) -> i32 {
    let (m, q) = if u >> 23 == 0 {
        (u & 0x7f_ffff, -149)
    } else {
        ((u & 0x7f_ffff) | 0x80_0000, (u >> 23) as i32 - 150)
    };
    let top = q + 31 - m.leading_zeros() as i32;
    if m.is_power_of_two() {
        top
    } else {
        top + 1
    }
}

/// Order key of a non-NaN f32 (`order_key` in common.wgsl) and its inverse.
fn order_key(bits: u32) -> u32 {
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    }
}

fn from_key(key: u32) -> f32 {
    f32::from_bits(if key >> 31 == 1 {
        key ^ 0x8000_0000
    } else {
        !key
    })
}

/// The kernel's value-bin table: the bin count, then for bins 1.. the smallest order key whose
/// value the CPU puts in that bin or later (the CPU's index is monotone in the value, so a
/// binary search over the keys from −∞ to +∞ finds each start exactly).
pub(super) fn value_table(setup: &MeasureSetup) -> Vec<u32> {
    let (lowest, highest) = (
        order_key(f32::NEG_INFINITY.to_bits()),
        order_key(f32::INFINITY.to_bits()),
    );
    let mut out = vec![setup.bin_count as u32];
    for k in 1..setup.bin_count {
        let (mut lo, mut hi) = (lowest, highest);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if setup.bins.index_or_past_end(from_key(mid)) >= k {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        out.push(lo);
    }
    out
}

/// The tiles of a chunk of `n` values whose first sits at `offset` in its `block`-value heat
/// block: each tile's length (`tile_range` in the kernel).
pub(super) fn tile_lengths(n: usize, block: usize, offset: usize) -> Vec<usize> {
    let per = block.div_ceil(TILE);
    let first = offset / TILE;
    let v = offset + n - 1;
    let last = v / block * per + v % block / TILE;
    (first..=last)
        .map(|g| {
            let (seg, j) = (g / per, g % per);
            let lo = (seg * block + TILE * j).max(offset);
            let hi = (seg * block + (TILE * (j + 1)).min(block)).min(offset + n);
            hi - lo
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_never_cross_a_heat_block_and_cover_the_chunk() {
        for (n, block, offset) in [
            (1, 32, 0),
            (100, 32, 5),
            (1000, 48, 47),
            (77, 1000, 990),
            (64, 64, 0),
        ] {
            let lengths = tile_lengths(n, block, offset);
            assert_eq!(lengths.iter().sum::<usize>(), n, "{n} {block} {offset}");
            let mut at = offset;
            for len in lengths {
                assert!(len > 0 && len <= TILE);
                assert_eq!(
                    at / block,
                    (at + len - 1) / block,
                    "a tile crosses a block end"
                );
                at += len;
            }
        }
    }

    #[test]
    fn ceil_log2_is_the_smallest_power_of_two_at_or_above() {
        for v in [
            1e-45f32,
            3e-45,
            1.17e-38,
            0.5,
            0.75,
            1.0,
            1.0000001,
            3.4e38,
            2f32.powi(127),
        ] {
            let e = ceil_log2(v.to_bits());
            assert!(
                2f64.powi(e) >= v as f64 && 2f64.powi(e - 1) < v as f64,
                "{v:e}: {e}"
            );
        }
    }
}
