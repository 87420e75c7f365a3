//! Exhaustive and randomized checks of the minifloat codec against the `half` crate and against
//! independent formulas written straight from the specs (IEEE 754-2019, OCP OFP8 1.0, OCP MX 1.0).

use bitbudget_math::format::{FormatId, Overflow};
use half::{bf16, f16};

/// A fixed-seed SplitMix64 so every run checks the same inputs.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Independent decoding from the spec's formula: (-1)^s × 2^(e-bias) × (1 + m/2^M), subnormals
/// (-1)^s × 2^(1-bias) × (m/2^M), with `special(e, m)` deciding inf/NaN.
fn spec_decode(
    bits: u32,
    e_bits: u32,
    m_bits: u32,
    bias: i32,
    special: impl Fn(u32, u32) -> Option<f64>,
) -> f64 {
    let s = (bits >> (e_bits + m_bits)) & 1;
    let e = (bits >> m_bits) & ((1 << e_bits) - 1);
    let m = bits & ((1 << m_bits) - 1);
    let sign = if s == 1 { -1.0 } else { 1.0 };
    if let Some(v) = special(e, m) {
        return sign * v;
    }
    let frac = m as f64 / (1u64 << m_bits) as f64;
    if e == 0 {
        sign * 2f64.powi(1 - bias) * frac
    } else {
        sign * 2f64.powi(e as i32 - bias) * (1.0 + frac)
    }
}

/// Asserts that `id` decodes every pattern below `count` as `expected` does.
fn decodes_every_pattern_as(id: FormatId, count: u32, expected: impl Fn(u32) -> f64) {
    for b in 0..count {
        let ours = id.decode(b);
        assert!(same(ours, expected(b)), "{id} pattern {b:#06x}: {ours}");
    }
}

#[test]
fn every_fp16_pattern_decodes_like_half() {
    decodes_every_pattern_as(FormatId::F16, 1 << 16, |b| {
        f16::from_bits(b as u16).to_f64()
    });
}

#[test]
fn every_bf16_pattern_decodes_like_half() {
    decodes_every_pattern_as(FormatId::Bf16, 1 << 16, |b| {
        bf16::from_bits(b as u16).to_f64()
    });
}

#[test]
fn every_e4m3_pattern_decodes_per_ocp_table() {
    let special = |e: u32, m: u32| (e == 15 && m == 7).then_some(f64::NAN);
    decodes_every_pattern_as(FormatId::F8E4M3, 256, |b| spec_decode(b, 4, 3, 7, special));
    assert_eq!(FormatId::F8E4M3.decode(0x7E), 448.0);
    assert_eq!(FormatId::F8E4M3.decode(0x01), 2f64.powi(-9));
    assert_eq!(FormatId::F8E4M3.decode(0x08), 2f64.powi(-6));
    assert!(FormatId::F8E4M3.decode(0xFF).is_nan());
    assert_eq!(FormatId::F8E4M3.decode(0x78), 256.0); // exponent 1111 is a normal binade in E4M3FN
}

#[test]
fn every_e5m2_pattern_is_the_top_byte_of_fp16() {
    decodes_every_pattern_as(FormatId::F8E5M2, 256, |b| {
        f16::from_bits((b << 8) as u16).to_f64()
    });
    assert_eq!(FormatId::F8E5M2.decode(0x7B), 57344.0);
    assert_eq!(FormatId::F8E5M2.decode(0x7C), f64::INFINITY);
}

#[test]
fn every_fp6_and_fp4_pattern_decodes_per_mx_table() {
    let none = |_: u32, _: u32| None;
    decodes_every_pattern_as(FormatId::F6E3M2, 64, |b| spec_decode(b, 3, 2, 3, none));
    decodes_every_pattern_as(FormatId::F6E2M3, 64, |b| spec_decode(b, 2, 3, 1, none));
    let fp4: Vec<f64> = (0..8).map(|b| FormatId::F4E2M1.decode(b)).collect();
    assert_eq!(fp4, vec![0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
}

#[test]
fn encode_of_decode_is_identity_for_every_non_nan_pattern() {
    for id in FormatId::ALL {
        let count: u64 = if id == FormatId::F32 {
            1 << 16
        } else {
            1 << id.bits()
        };
        let mut rng = SplitMix(7);
        for i in 0..count {
            let b = if id == FormatId::F32 {
                rng.next() as u32
            } else {
                i as u32
            };
            let v = id.decode(b);
            if v.is_nan() {
                continue;
            }
            assert_eq!(
                id.encode(v, Overflow::Native),
                b,
                "{id}: pattern {b:#x} ({v})"
            );
        }
    }
}

#[test]
fn fp16_and_bf16_encoding_agree_with_half_on_two_million_inputs() {
    let mut rng = SplitMix(2026);
    for i in 0..1_000_000u32 {
        let r = rng.next();
        // Half the inputs are uniform bit patterns (NaN, inf, subnormals included); half sit in
        // FP16's range, where rounding and subnormal handling are most delicate.
        let bits = if i % 2 == 0 {
            r as u32
        } else {
            (r as u32 & 0x83FF_FFFF) | (((r >> 40) as u32 % 40 + 97) << 23)
        };
        let x = f32::from_bits(bits);
        for (id, expect) in [
            (FormatId::F16, f16::from_f32(x).to_bits()),
            (FormatId::Bf16, bf16::from_f32(x).to_bits()),
        ] {
            let ours = id.encode(x as f64, Overflow::Native);
            if x.is_nan() {
                assert!(id.decode(ours).is_nan());
            } else {
                assert_eq!(ours, expect as u32, "{id}: f32 {bits:#010x} ({x:e})");
            }
        }
    }
}

#[test]
fn encoding_is_correctly_rounded_to_the_nearest_neighbour() {
    let mut rng = SplitMix(11);
    for id in [
        FormatId::F16,
        FormatId::Bf16,
        FormatId::F8E4M3,
        FormatId::F8E5M2,
        FormatId::F6E2M3,
        FormatId::F4E2M1,
    ] {
        for _ in 0..20_000 {
            let x = f64::from_bits(rng.next() >> 2) * if rng.next() & 1 == 1 { -1.0 } else { 1.0 };
            let x = x % (id.max_value() * 1.01);
            let stored = id.decode(id.encode(x, Overflow::Saturate));
            let around = bitbudget_math::format::neighbours::representable_around(id, x, 2);
            let best = around
                .iter()
                .map(|v| (v - x).abs())
                .fold(f64::INFINITY, f64::min);
            assert_eq!((stored - x).abs(), best, "{id}: {x:e} stored as {stored:e}");
        }
    }
}

/// Tie cases written out bit by bit: a value exactly halfway between two neighbours goes to the
/// one whose last mantissa bit is 0.
#[test]
fn ties_round_to_even_bit_by_bit() {
    let f32b = |b: u32| f32::from_bits(b) as f64;
    // BF16: 0x3F80_8000 = 1.0000000_1 (the dropped bit is exactly half): 0x3F80 is even.
    assert_eq!(
        FormatId::Bf16.encode(f32b(0x3F80_8000), Overflow::Native),
        0x3F80
    );
    // 0x3F81_8000 = 1.0000001_1: neighbours 0x3F81 (odd) and 0x3F82 (even): up.
    assert_eq!(
        FormatId::Bf16.encode(f32b(0x3F81_8000), Overflow::Native),
        0x3F82
    );
    // One bit more than half rounds up even towards an odd pattern.
    assert_eq!(
        FormatId::Bf16.encode(f32b(0x3F80_8001), Overflow::Native),
        0x3F81
    );
    // FP16: 1 + 2^-11 is half an ulp above 1.0 (0x3C00, even): stays.
    assert_eq!(
        FormatId::F16.encode(1.0 + 2f64.powi(-11), Overflow::Native),
        0x3C00
    );
    // 1 + 3·2^-11 lies between 0x3C01 (odd) and 0x3C02 (even): up.
    assert_eq!(
        FormatId::F16.encode(1.0 + 3.0 * 2f64.powi(-11), Overflow::Native),
        0x3C02
    );
    // FP16 subnormals: 2^-25 is half the smallest subnormal 0x0001: ties to 0x0000.
    assert_eq!(
        FormatId::F16.encode(2f64.powi(-25), Overflow::Native),
        0x0000
    );
    assert_eq!(
        FormatId::F16.encode(3.0 * 2f64.powi(-25), Overflow::Native),
        0x0002
    );
    assert_eq!(
        FormatId::F16.encode(-(2f64.powi(-25)), Overflow::Native),
        0x8000
    );
    // E4M3: 1.0625 = 0.0111.000_1: between 0x38 (1.0, even) and 0x39 (1.125): 0x38.
    assert_eq!(FormatId::F8E4M3.encode(1.0625, Overflow::Native), 0x38);
    assert_eq!(FormatId::F8E4M3.encode(1.1875, Overflow::Native), 0x3A);
    // E4M3 top: 464 is halfway between 448 (0x7E, even) and the NaN slot 480: 448. Above: NaN.
    assert_eq!(FormatId::F8E4M3.encode(464.0, Overflow::Native), 0x7E);
    assert_eq!(FormatId::F8E4M3.encode(464.5, Overflow::Native), 0x7F);
    assert_eq!(FormatId::F8E4M3.encode(464.5, Overflow::Saturate), 0x7E);
    assert_eq!(FormatId::F8E4M3.encode(-1e9, Overflow::Native), 0xFF);
    // E5M2 and FP16: halfway past max goes to the (even) infinity pattern.
    assert_eq!(FormatId::F8E5M2.encode(61440.0, Overflow::Native), 0x7C);
    assert_eq!(FormatId::F8E5M2.encode(61439.0, Overflow::Native), 0x7B);
    assert_eq!(FormatId::F16.encode(65520.0, Overflow::Native), 0x7C00);
    assert_eq!(FormatId::F16.encode(65519.99, Overflow::Native), 0x7BFF);
    // FP4 saturates: 5 is a tie between 4 (0b0110, even) and 6 (0b0111): 4; 100 clamps to 6.
    assert_eq!(FormatId::F4E2M1.encode(5.0, Overflow::Native), 0b0110);
    assert_eq!(FormatId::F4E2M1.encode(100.0, Overflow::Native), 0b0111);
    assert_eq!(
        FormatId::F4E2M1.encode(f64::NEG_INFINITY, Overflow::Native),
        0b1111
    );
}

#[test]
fn nan_and_infinity_inputs_follow_each_convention() {
    use Overflow::{Native, Saturate};
    let cases = [
        (FormatId::F16, f64::NAN, Native, 0x7E00),
        (FormatId::F8E4M3, f64::NAN, Native, 0x7F),
        (FormatId::F8E4M3, f64::INFINITY, Native, 0x7F),
        (FormatId::F8E4M3, f64::INFINITY, Saturate, 0x7E),
        (FormatId::F8E5M2, f64::NEG_INFINITY, Native, 0xFC),
        (FormatId::F8E5M2, f64::INFINITY, Saturate, 0x7B),
        (FormatId::F32, f64::NAN, Native, 0x7FC0_0000),
    ];
    for (id, x, overflow, bits) in cases {
        assert_eq!(id.encode(x, overflow), bits, "{id} {x} {overflow:?}");
    }
}
