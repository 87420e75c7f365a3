//! Two options of the block-scaled FP4 schemes `nvfp4` and `mxfp4` that NVFP4 training uses
//! (arXiv:2509.25149, sections 4.2-4.4), applied to a whole tensor: the random Hadamard transform
//! (RHT) of every 16 consecutive values before quantizing (undone after dequantizing), and
//! stochastic rounding (SR) of each value to one of its two neighbouring E2M1 codes.
//!
//! The bytes stay the scheme's own layout ([`super::layout`]): with `rht`, they hold the codes of
//! the *rotated* values, so decoding them needs the same seed ([`dequantize`] undoes the
//! rotation); without it, [`super::codec::dequantize`] returns the values in the rotated basis.
//! SR changes only which code is stored; any decoder reads the bytes.
//!
//! Both are exact and reproducible, so the GPU kernels (bitbudget-gpu) write the same bytes:
//!
//! - RHT: the ±1 signs of [`rotation::signs`], then the 16-point Walsh–Hadamard butterflies of
//!   [`rotation::rotate`] in f32 (the same additions in the same order), scaled by 1/4 exactly.
//! - SR: the uniform of element i is [`uniform24`]`(seed, i)`, a counter-based hash of the seed
//!   and the element's index in the tensor (no state carried from one value to the next), and the
//!   choice between the neighbours is made exactly in integers ([`rounds_up`]). Scales are
//!   chosen as the scheme always chooses them.

use super::checks::whole_blocks;
use super::error::QuantError;
use super::ggml::{e8m0_to_f32_half, KVALUES_MXFP4};
use super::nvfp4::{ue4m3_to_f32, BLOCK_BYTES, QK_NVFP4};
use super::rotation::{self, HADAMARD};
use super::scheme::Scheme;

pub use super::scheme::FP4_OPTION_SCHEMES as SCHEMES;

/// The options of one quantization: each a seed, or `None` for off (the scheme's plain
/// round-to-nearest bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fp4Options {
    /// Seed of the random Hadamard transform's signs ([`rotation::signs`]).
    pub rht: Option<u64>,
    /// Seed of stochastic rounding's uniforms ([`uniform24`]).
    pub sr: Option<u64>,
}

impl Fp4Options {
    /// Neither option.
    pub const NONE: Fp4Options = Fp4Options {
        rht: None,
        sr: None,
    };

    /// Whether neither option is on.
    pub const fn is_none(self) -> bool {
        self.rht.is_none() && self.sr.is_none()
    }

    /// `Ok` when the options are off or `s` is one of [`SCHEMES`]; else
    /// [`QuantError::Fp4Option`] naming the first option given (`--rht`, then `--sr`).
    pub fn check(self, s: Scheme) -> Result<(), QuantError> {
        let option = match (self.rht, self.sr) {
            _ if SCHEMES.contains(&s) => return Ok(()),
            (Some(_), _) => "--rht",
            (None, Some(_)) => "--sr",
            (None, None) => return Ok(()),
        };
        Err(QuantError::Fp4Option { scheme: s, option })
    }
}

/// Parses a seed: a whole number from 0 to 2^64 − 1 written in decimal (surrounding spaces
/// allowed). The error says what is wrong: empty, negative, not a whole number, or too large.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if let Ok(v) = t.parse::<u64>() {
        return Ok(v);
    }
    let what = if t.is_empty() {
        "is empty".to_string()
    } else if t.starts_with('-') {
        format!("'{t}' is negative")
    } else if t.bytes().all(|b| b.is_ascii_digit()) {
        format!("'{t}' is above the largest seed {}", u64::MAX)
    } else {
        format!("'{t}' is not a whole number")
    };
    Err(format!(
        "a seed must be a whole number from 0 to {}: {what}",
        u64::MAX
    ))
}

/// [`mix32`]'s two multipliers (Wellons' "lowbias32"; the GPU kernels get them from here).
pub const MIX32_MULTIPLIERS: [u32; 2] = [0x7feb_352d, 0x846c_a68b];

/// [`mix32`]'s three xorshift distances, in order.
pub const MIX32_SHIFTS: [u32; 3] = [16, 15, 16];

/// Bits of stochastic rounding's uniform ([`uniform24`]): the draw is U / 2^24.
pub const UNIFORM_BITS: u32 = 24;

/// A 32-bit integer hash (Wellons' "lowbias32": two multiply-xorshift rounds).
pub const fn mix32(mut x: u32) -> u32 {
    x ^= x >> MIX32_SHIFTS[0];
    x = x.wrapping_mul(MIX32_MULTIPLIERS[0]);
    x ^= x >> MIX32_SHIFTS[1];
    x = x.wrapping_mul(MIX32_MULTIPLIERS[1]);
    x ^= x >> MIX32_SHIFTS[2];
    x
}

/// The seed's part of [`uniform24`], a 32-bit key (what the GPU kernels get as a parameter).
pub const fn seed_key(seed: u64) -> u32 {
    mix32(seed as u32 ^ mix32((seed >> 32) as u32 ^ 0x9e37_79b9))
}

/// Stochastic rounding's uniform for element `index` of the tensor: a 24-bit integer U, the draw
/// being U / 2^24 in [0, 1). Counter-based (a hash of the seed's key and both halves of the
/// index), so any part of a tensor draws the same numbers wherever it is computed.
pub const fn uniform24(seed: u64, index: u64) -> u32 {
    mix32(index as u32 ^ mix32((index >> 32) as u32 ^ seed_key(seed))) >> (32 - UNIFORM_BITS)
}

/// A finite f32's magnitude as m · 2^e with m odd (or 0), exactly (subnormals included).
fn odd_parts(v: f32) -> (u64, i32) {
    let bits = v.to_bits() & 0x7fff_ffff;
    let field = (bits >> 23) as i32;
    let (m, e) = if field == 0 {
        (bits, -149)
    } else {
        (bits & 0x7f_ffff | 0x80_0000, field - 150)
    };
    if m == 0 {
        return (0, 0);
    }
    let tz = m.trailing_zeros();
    ((m >> tz) as u64, e + tz as i32)
}

/// Whether a value `a` above its lower neighbour rounds up to the upper one, `b` apart, for the
/// draw `u24` / 2^24: exactly `u24 · b < a · 2^24`, decided in integers (no division, no
/// rounding), so the probability of rounding up is a / b to within 2^-24. `a` and `b` are
/// finite, 0 ≤ a < b.
pub fn rounds_up(a: f32, b: f32, u24: u32) -> bool {
    let (ma, ea) = odd_parts(a);
    let (mb, eb) = odd_parts(b);
    // u24 · mb < 2^48; with a < b, ma · 2^shift < mb · 2^24 < 2^48 as well, and past 2^60 the
    // comparison is decided whatever the exact value (ma ≥ 1), so the cap loses nothing.
    let left = (u24 as u128) * mb as u128;
    let shift = ea + UNIFORM_BITS as i32 - eb;
    let right = if shift >= 0 {
        (ma as u128) << shift.min(60)
    } else if -shift >= 63 {
        (ma > 0) as u128
    } else {
        ((ma + (1u64 << -shift) - 1) >> -shift) as u128
    };
    // left is a whole number: left < a·2^24/2^eb·… ⟺ left < ⌈…⌉.
    left < right
}

/// The E2M1 code (0..16, [`KVALUES_MXFP4`] index) that stochastic rounding gives `x` on the grid
/// `k · d` (k = 0, 1, 2, 3, 4, 6, 8, 12; `d` a block's half scale): the magnitude's lower
/// neighbour, or the upper one when [`rounds_up`]; beyond 12·d, code 7 (saturation); 0 for a
/// non-finite `x` or `d = 0` (as round-to-nearest gives them); negative values take the
/// mirrored code (+8) unless their magnitude rounds to 0.
pub fn sr_code(x: f32, d: f32, u24: u32) -> u8 {
    if !x.is_finite() || d == 0.0 {
        return 0;
    }
    let a = x.abs();
    let mut i = 0;
    while i < 7 && KVALUES_MXFP4[i + 1] as f32 * d <= a {
        i += 1;
    }
    if i < 7 {
        let lo = KVALUES_MXFP4[i] as f32 * d;
        let hi = KVALUES_MXFP4[i + 1] as f32 * d;
        if rounds_up(a - lo, hi - lo, u24) {
            i += 1;
        }
    }
    let negative = (x < 0.0 && i != 0) as usize;
    (i + 8 * negative) as u8
}

/// Quantizes `x` with `s` and the options into `s`'s bytes ([`super::codec::quantize`]'s layout
/// and errors; its fixed block). `first` is the index in the whole tensor of `x[0]` (0 for a
/// whole tensor; parts pass their offset so SR draws the whole tensor's uniforms). With RHT
/// the bytes hold the rotated values' codes; with SR, each value's code is [`sr_code`] of the
/// block's usual scale. Options on another scheme: [`QuantError::Fp4Option`].
pub fn quantize(s: Scheme, x: &[f32], opts: Fp4Options, first: u64) -> Result<Vec<u8>, QuantError> {
    opts.check(s)?;
    let block = s.default_block();
    whole_blocks(x.len(), block)?;
    let rotated;
    let x = match opts.rht {
        Some(seed) => {
            rotated = rotation::rotate(x, &rotation::signs(seed)).expect("whole blocks of 16");
            &rotated[..]
        }
        None => x,
    };
    let mut out = super::codec::quantize(s, x, block)?;
    if let Some(seed) = opts.sr {
        let u = |i: usize| uniform24(seed, first + i as u64);
        if s == Scheme::Nvfp4 {
            for (b, o) in out.chunks_exact_mut(BLOCK_BYTES).enumerate() {
                for sub in 0..4 {
                    let d = ue4m3_to_f32(o[sub]) * 0.5;
                    for j in 0..8 {
                        let at = QK_NVFP4 * b + 16 * sub + j;
                        o[4 + 8 * sub + j] =
                            sr_code(x[at], d, u(at)) | sr_code(x[at + 8], d, u(at + 8)) << 4;
                    }
                }
            }
        } else {
            for (b, o) in out.chunks_exact_mut(17).enumerate() {
                let d = e8m0_to_f32_half(o[0]);
                for j in 0..16 {
                    let at = 32 * b + j;
                    o[1 + j] = sr_code(x[at], d, u(at)) | sr_code(x[at + 16], d, u(at + 16)) << 4;
                }
            }
        }
    }
    Ok(out)
}

/// Reverses [`quantize`]: [`super::codec::dequantize`] of the bytes (its errors), then with RHT
/// the inverse transform ([`rotation::unrotate`], f32), so the values are in the original basis.
/// The RHT seed must be the one the bytes were written with; SR needs nothing to decode.
pub fn dequantize(s: Scheme, bytes: &[u8], opts: Fp4Options) -> Result<Vec<f32>, QuantError> {
    opts.check(s)?;
    let y = super::codec::dequantize(s, bytes, s.default_block())?;
    Ok(match opts.rht {
        Some(seed) => rotation::unrotate(&y, &rotation::signs(seed)).expect("whole blocks of 16"),
        None => y,
    })
}

/// The mean signed error mean(y − x) over the pairs where both are finite (0 for none): the
/// bias that stochastic rounding removes and round-to-nearest can have.
pub fn mean_error(x: &[f32], y: &[f32]) -> f64 {
    let (mut sum, mut n) = (0f64, 0u64);
    for (a, b) in x.iter().zip(y) {
        if a.is_finite() && b.is_finite() {
            sum += *b as f64 - *a as f64;
            n += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

const _: () = assert!(QK_NVFP4 % HADAMARD == 0 && 32 % HADAMARD == 0);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::generate::{generate, Distribution};
    use crate::quant::ggml::GgmlType;
    use crate::quant::metrics::error_metrics;

    const MXFP4: Scheme = Scheme::Ggml(GgmlType::Mxfp4);

    fn ramp(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 37 % 101) as f32 / 50.0 - 1.0) * 0.3)
            .collect()
    }

    #[test]
    fn without_options_the_bytes_are_the_schemes_own() {
        let x = ramp(256);
        for s in SCHEMES {
            let plain = crate::quant::codec::quantize(s, &x, s.default_block()).unwrap();
            assert_eq!(quantize(s, &x, Fp4Options::NONE, 0).unwrap(), plain);
        }
    }

    #[test]
    fn rht_round_trips_to_the_original_basis_and_needs_its_seed() {
        let x = ramp(512);
        for s in SCHEMES {
            let o = Fp4Options {
                rht: Some(7),
                sr: None,
            };
            let bytes = quantize(s, &x, o, 0).unwrap();
            let y = dequantize(s, &bytes, o).unwrap();
            let plain = crate::quant::codec::dequantize(s, &bytes, s.default_block()).unwrap();
            let good = error_metrics(&x, &y).sqnr_db;
            assert!(good > 12.0, "{s}: {good}");
            let wrong = dequantize(
                s,
                &bytes,
                Fp4Options {
                    rht: Some(8),
                    sr: None,
                },
            )
            .unwrap();
            assert!(error_metrics(&x, &wrong).sqnr_db < good - 6.0, "{s}");
            assert!(error_metrics(&x, &plain).sqnr_db < good - 6.0, "{s}");
        }
    }

    #[test]
    fn rht_helps_mxfp4_with_outlier_channels_but_not_nvfp4s_16_value_scales() {
        let dist = Distribution::OutlierChannels {
            count: 4,
            magnitude: 20.0,
        };
        let x = generate(dist, 64, 256, 0.02, 11);
        let sqnr = |s: Scheme, rht: Option<u64>| {
            let o = Fp4Options { rht, sr: None };
            let y = dequantize(s, &quantize(s, &x, o, 0).unwrap(), o).unwrap();
            error_metrics(&x, &y).sqnr_db
        };
        // MXFP4's power-of-two scale over 32 values: spreading the outlier over its 16
        // neighbours gains several dB. NVFP4's finer scales per 16 already confine the outlier
        // to its own sub-block, where the transform only mixes it into the others: it loses.
        let (m0, m1) = (sqnr(MXFP4, None), sqnr(MXFP4, Some(1)));
        let (n0, n1) = (sqnr(Scheme::Nvfp4, None), sqnr(Scheme::Nvfp4, Some(1)));
        assert!(m1 > m0 + 1.0, "mxfp4: {m1} dB with RHT, {m0} without");
        assert!(n1 < n0, "nvfp4: {n1} dB with RHT, {n0} without");
    }

    #[test]
    fn rounds_up_is_the_exact_comparison() {
        // a / b = 1/3: U·3 < 2^24 ⟺ U ≤ 5592405.
        assert!(rounds_up(1.0, 3.0, 5_592_405));
        assert!(!rounds_up(1.0, 3.0, 5_592_406));
        assert!(!rounds_up(0.0, 1.5, 0));
        assert!(rounds_up(f32::from_bits(1), 0.25, 0));
        assert!(!rounds_up(f32::from_bits(1), 0.25, 1));
        // A wide b (odd part 2^24 − 1) against a power-of-two a: shift 47, U·b < a·2^24 exactly
        // when U < 2^47 / (2^24 − 1), i.e. U ≤ 2^23.
        let wide = (16_777_215.0f32) / 1024.0;
        assert!(rounds_up(8192.0, wide, 1 << 23));
        assert!(!rounds_up(8192.0, wide, (1 << 23) + 1));
        // Against f64 arithmetic, which is exact here (24 + 4 bits).
        for (k, u) in (0..5000u32).map(|k| (k, uniform24(5, k as u64))) {
            let b = [0.5f32, 0.75, 1.25, 0.0625 * 15.0][k as usize % 4];
            let a = b * ((k * 7919 % 1000) as f32 / 1000.0);
            let exact = (u as f64) * (b as f64) < a as f64 * 16_777_216.0;
            assert_eq!(rounds_up(a, b, u), exact, "{a} {b} {u}");
        }
    }

    #[test]
    fn sr_codes_are_the_two_neighbours_and_nearest_where_on_the_grid() {
        let d = 0.5f32;
        for (x, u, code) in [
            (0.25f32, 0, 1u8), // half way between 0 and 0.5: up with u < 1/2
            (0.25, (1 << 23) + 1, 0),
            (-0.25, 0, 9),
            (-0.1, 1 << 23, 0),
            (1.0, 0, 2),
            (6.0, 0, 7),
            (9.0, 0, 7),
            (f32::NAN, 0, 0),
        ] {
            assert_eq!(sr_code(x, d, u), code, "{x} {u}");
        }
        assert_eq!(sr_code(1.0, 0.0, 0), 0);
    }

    #[test]
    fn stochastic_rounding_removes_the_bias_of_round_to_nearest() {
        // Every value sits a quarter of the way from 1·d to 2·d: nearest always rounds down.
        let mut x = vec![1.25f32; 4096];
        for b in x.chunks_exact_mut(16) {
            b[0] = 6.0; // each block's largest value fixes d = 0.5 (E2M1's 12·d = 6)
        }
        for s in SCHEMES {
            let near = dequantize(
                s,
                &quantize(s, &x, Fp4Options::NONE, 0).unwrap(),
                Fp4Options::NONE,
            )
            .unwrap();
            let o = Fp4Options {
                rht: None,
                sr: Some(3),
            };
            let sr = dequantize(s, &quantize(s, &x, o, 0).unwrap(), o).unwrap();
            let (bn, bs) = (mean_error(&x, &near), mean_error(&x, &sr));
            assert!(bn < -0.2, "{s}: nearest's bias {bn}");
            assert!(bs.abs() < 0.02, "{s}: stochastic rounding's bias {bs}");
        }
    }

    #[test]
    fn sr_is_reproducible_and_parts_draw_the_tensors_numbers() {
        let x = ramp(1024);
        let o = Fp4Options {
            rht: Some(2),
            sr: Some(9),
        };
        for s in SCHEMES {
            let whole = quantize(s, &x, o, 0).unwrap();
            assert_eq!(quantize(s, &x, o, 0).unwrap(), whole);
            let mut parts = quantize(s, &x[..512], o, 0).unwrap();
            parts.extend(quantize(s, &x[512..], o, 512).unwrap());
            assert_eq!(parts, whole, "{s}");
            let other = Fp4Options { sr: Some(10), ..o };
            assert_ne!(quantize(s, &x, other, 0).unwrap(), whole, "{s}");
        }
    }

    #[test]
    fn other_schemes_and_bad_seeds_are_refused_with_a_reason() {
        let e = Fp4Options {
            rht: Some(1),
            sr: None,
        }
        .check(Scheme::Nf4)
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--rht applies to nvfp4 and mxfp4 only, not nf4"
        );
        let e = Fp4Options {
            rht: None,
            sr: Some(1),
        }
        .check(Scheme::Bf16)
        .unwrap_err();
        assert!(e.to_string().starts_with("--sr applies"), "{e}");
        assert!(Fp4Options::NONE.check(Scheme::Nf4).is_ok());
        assert_eq!(parse_seed(" 18446744073709551615 "), Ok(u64::MAX));
        assert!(parse_seed("-1").unwrap_err().contains("negative"));
        assert!(parse_seed("1.5")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(parse_seed("18446744073709551616")
            .unwrap_err()
            .contains("above"));
        assert!(parse_seed("").unwrap_err().contains("empty"));
    }
}
