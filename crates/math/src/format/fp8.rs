//! Fast FP8 (OCP E4M3 and E5M2) and FP6 (OCP MX E3M2 and E2M3) conversions on bit patterns for
//! the quantizers' hot loops. They give exactly what the general codec gives
//! (`encode(v as f64, Overflow::Saturate)` and `decode`), which the tests check on every pattern,
//! every rounding midpoint and its neighbours, and a stride through all f32.

use super::{FormatId, Overflow, Spec};
use std::sync::OnceLock;

/// One FP8 or FP6 format's saturating encoder and decoding table.
#[derive(Clone, Debug)]
pub struct Fp8Codec {
    /// Where the sign goes in a pattern (7 for FP8, 5 for FP6).
    sign_bit: u32,
    /// Stored mantissa bits (3 for E4M3, 2 for E5M2).
    man_bits: u32,
    /// f32 exponent field of the smallest normal FP8 value.
    min_normal_field: u32,
    /// 2^-(subnormal quantum exponent): multiplying by it counts subnormal steps exactly.
    to_steps: f32,
    /// Largest finite magnitude pattern (E4M3 0x7E = 448, E5M2 0x7B = 57344).
    max_bits: u32,
    /// The codec's NaN pattern (positive, canonical).
    nan_bits: u8,
    /// Value of every pattern.
    table: [f32; 256],
}

impl Fp8Codec {
    fn new(id: FormatId) -> Self {
        let Spec::Float(f) = id.spec() else {
            unreachable!("FP8 formats are minifloats")
        };
        let bias = f.bias;
        let emin = 1 - bias;
        let mut table = [0f32; 256];
        for (b, t) in table.iter_mut().enumerate() {
            *t = id.decode(b as u32) as f32;
        }
        Self {
            sign_bit: f.exp_bits + f.man_bits,
            man_bits: f.man_bits,
            min_normal_field: (127 + emin) as u32,
            to_steps: 2f32.powi(f.man_bits as i32 - emin),
            max_bits: f.max_bits(),
            nan_bits: id.encode(f64::NAN, Overflow::Saturate) as u8,
            table,
        }
    }

    /// The pattern nearest to `v`, ties to even; beyond the largest finite value (±inf included)
    /// saturates to ±max; values below half the smallest subnormal become ±0 (keeping the sign);
    /// NaN becomes the canonical positive NaN (for FP6, which has none, what the general codec
    /// gives for NaN).
    #[inline]
    pub fn encode_saturating(&self, v: f32) -> u8 {
        let bits = v.to_bits();
        let sign = (bits >> 31) << self.sign_bit;
        let abs = bits & 0x7FFF_FFFF;
        if abs > 0x7F80_0000 {
            return self.nan_bits;
        }
        let magnitude = if abs >> 23 < self.min_normal_field {
            // Subnormal range: count steps of the subnormal quantum, ties to even. The count can
            // reach 2^man_bits, which is exactly the smallest normal's pattern.
            (f32::from_bits(abs) * self.to_steps).round_ties_even() as u32
        } else {
            // Normal: drop mantissa bits with ties to even and rebias the exponent; a carry moves
            // into the exponent, as it should.
            let drop = 23 - self.man_bits;
            let rebias = (self.min_normal_field - 1) << 23;
            let odd = (abs >> drop) & 1;
            (abs - rebias + (1 << (drop - 1)) - 1 + odd) >> drop
        };
        (sign | magnitude.min(self.max_bits)) as u8
    }

    /// Appends the pattern of `v / divisor` (the f32 quotient) for each `v` of `x`: the bytes
    /// of [`Fp8Codec::encode_saturating`] on each. In wasm with simd128, sixteen values at a time
    /// in lanes (the same quotient, since an f32 division is exactly rounded either way, and the
    /// same bit arithmetic, both branches computed and the right one selected).
    pub fn encode_divided(&self, x: &[f32], divisor: f32, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + x.len(), 0);
        let out = &mut out[start..];
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        let done = simd128::encode_divided(self, x, divisor, out);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        let done = 0;
        for (o, v) in out[done..].iter_mut().zip(&x[done..]) {
            *o = self.encode_saturating(*v / divisor);
        }
    }

    /// The value of pattern `b` (exact; NaN patterns give NaN).
    #[inline]
    pub fn decode(&self, b: u8) -> f32 {
        self.table[b as usize]
    }
}

/// The E4M3 codec (built once).
pub fn e4m3() -> &'static Fp8Codec {
    static CODEC: OnceLock<Fp8Codec> = OnceLock::new();
    CODEC.get_or_init(|| Fp8Codec::new(FormatId::F8E4M3))
}

/// The E5M2 codec (built once).
pub fn e5m2() -> &'static Fp8Codec {
    static CODEC: OnceLock<Fp8Codec> = OnceLock::new();
    CODEC.get_or_init(|| Fp8Codec::new(FormatId::F8E5M2))
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// The FP6 E3M2 codec of the MX formats (built once; patterns 0..64).
pub fn e3m2() -> &'static Fp8Codec {
    static CODEC: OnceLock<Fp8Codec> = OnceLock::new();
    CODEC.get_or_init(|| Fp8Codec::new(FormatId::F6E3M2))
}

/// The FP6 E2M3 codec of the MX formats (built once; patterns 0..64).
pub fn e2m3() -> &'static Fp8Codec {
    static CODEC: OnceLock<Fp8Codec> = OnceLock::new();
    CODEC.get_or_init(|| Fp8Codec::new(FormatId::F6E2M3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: FormatId, codec: &Fp8Codec, v: f32) {
        let slow = id.encode(v as f64, Overflow::Saturate) as u8;
        assert_eq!(
            codec.encode_saturating(v),
            slow,
            "{id:?} {v:e} ({:#010x})",
            v.to_bits()
        );
    }

    fn both() -> [(FormatId, &'static Fp8Codec); 4] {
        [
            (FormatId::F8E4M3, e4m3()),
            (FormatId::F8E5M2, e5m2()),
            (FormatId::F6E3M2, e3m2()),
            (FormatId::F6E2M3, e2m3()),
        ]
    }

    #[test]
    fn decode_matches_the_codec_for_every_pattern() {
        for (id, codec) in both() {
            for b in (0..1u32 << (codec.sign_bit + 1)).map(|b| b as u8) {
                let slow = id.decode(b as u32) as f32;
                let fast = codec.decode(b);
                assert!(
                    fast.to_bits() == slow.to_bits() || (fast.is_nan() && slow.is_nan()),
                    "{id:?} {b:#04x}"
                );
            }
        }
    }

    #[test]
    fn encode_matches_the_codec_at_every_value_midpoint_and_neighbour() {
        for (id, codec) in both() {
            let mut values: Vec<f32> = (0..1u32 << codec.sign_bit)
                .map(|b| id.decode(b) as f32)
                .filter(|v| v.is_finite())
                .collect();
            values.sort_by(f32::total_cmp);
            for w in values.windows(2) {
                let mid = ((w[0] as f64 + w[1] as f64) / 2.0) as f32;
                for v in [w[0], w[1], mid] {
                    for d in -2i32..=2 {
                        let n = f32::from_bits((v.to_bits() as i32 + d).max(0) as u32);
                        check(id, codec, n);
                        check(id, codec, -n);
                    }
                }
            }
            let max = *values.last().unwrap();
            for v in [
                max * 1.03,
                max * 1.2,
                1e30,
                f32::MAX,
                f32::INFINITY,
                f32::NAN,
                0.0,
                -0.0,
            ] {
                check(id, codec, v);
                check(id, codec, -v);
            }
        }
    }

    #[test]
    fn encode_matches_the_codec_on_a_stride_through_all_f32() {
        for (id, codec) in both() {
            for i in 0..(1u64 << 20) {
                check(id, codec, f32::from_bits((i * 4093) as u32));
            }
        }
    }
}
