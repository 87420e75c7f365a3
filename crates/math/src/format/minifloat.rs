//! One generic codec for binary floating-point formats described by their exponent width,
//! mantissa width, bias and special-value convention: FP32, FP16, BF16, FP8, FP6 and FP4.
//!
//! Bit routines are small pure functions on raw bits (as in half-rs `convert.rs`); the
//! [`Minifloat`] value only describes a format.

use serde::Serialize;

/// How a format spends its top exponent code on infinities and NaNs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Specials {
    /// IEEE 754: an all-ones exponent field means infinity (mantissa 0) or NaN (mantissa != 0).
    Ieee,
    /// OCP FP8 E4M3 "FN": no infinities; only S.1111.111 is NaN, so the top exponent holds
    /// ordinary finite values with mantissa 000..110.
    NanOnlyAllOnes,
    /// OCP MX FP6/FP4: every bit pattern is a finite number; no infinity, no NaN.
    FiniteOnly,
}

/// What encoding does with a finite value whose rounded magnitude exceeds the largest finite value,
/// and with an infinite input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
pub enum Overflow {
    /// The format's own convention: IEEE formats give ±infinity, E4M3 gives NaN (as PyTorch and
    /// ml_dtypes do), FP6/FP4 (which have neither) saturate to ±max.
    #[default]
    Native,
    /// Clamp to ±max finite (OCP "saturating" conversion). NaN still gives NaN where the format has one.
    Saturate,
}

/// A binary floating-point format: 1 sign bit, `exp_bits` exponent bits, `man_bits` stored
/// mantissa bits, exponent `bias`, and a [`Specials`] convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Minifloat {
    /// Width of the exponent field in bits (2..=11).
    pub exp_bits: u32,
    /// Width of the stored mantissa (fraction) field in bits, without the implicit leading bit.
    pub man_bits: u32,
    /// Exponent bias: a normal number with exponent field `e` is scaled by 2^(e - bias).
    pub bias: i32,
    /// How infinities and NaNs are encoded.
    pub specials: Specials,
}

/// A decoded bit pattern (after rust's `flt2dec::decoder`): the value is exactly
/// `(-1)^negative × significand × 2^exponent` for `Finite`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// Not a number.
    Nan,
    /// Positive or negative infinity.
    Inf {
        /// True for -infinity.
        negative: bool,
    },
    /// Positive or negative zero.
    Zero {
        /// True for -0.
        negative: bool,
    },
    /// A non-zero finite value `(-1)^negative × significand × 2^exponent`.
    Finite {
        /// Sign.
        negative: bool,
        /// Integer significand including the implicit bit for normals (< 2^(man_bits+1)).
        significand: u64,
        /// Power of two applied to the integer significand.
        exponent: i32,
        /// True for subnormals (exponent field 0).
        subnormal: bool,
    },
}

impl Minifloat {
    /// The format with `exp_bits` exponent bits, `man_bits` stored mantissa bits, exponent
    /// `bias` and `specials` (no check: the catalog's constants are the formats in use).
    pub const fn new(exp_bits: u32, man_bits: u32, bias: i32, specials: Specials) -> Self {
        Minifloat {
            exp_bits,
            man_bits,
            bias,
            specials,
        }
    }

    /// Total width in bits, including the sign.
    pub const fn total_bits(&self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    /// Mask of the sign bit.
    pub const fn sign_mask(&self) -> u32 {
        1 << (self.exp_bits + self.man_bits)
    }

    const fn exp_all_ones(&self) -> u32 {
        (1 << self.exp_bits) - 1
    }

    const fn man_mask(&self) -> u32 {
        (1 << self.man_bits) - 1
    }

    /// Smallest unbiased exponent of a normal number (`1 - bias`); subnormals share it.
    pub const fn emin(&self) -> i32 {
        1 - self.bias
    }

    /// Largest unbiased exponent that holds finite values.
    pub const fn emax(&self) -> i32 {
        match self.specials {
            Specials::Ieee => self.exp_all_ones() as i32 - 1 - self.bias,
            Specials::NanOnlyAllOnes | Specials::FiniteOnly => {
                self.exp_all_ones() as i32 - self.bias
            }
        }
    }

    /// Largest integer significand (implicit bit included) allowed at [`Self::emax`].
    const fn max_significand(&self) -> u64 {
        let all = (1u64 << (self.man_bits + 1)) - 1;
        match self.specials {
            Specials::NanOnlyAllOnes => all - 1,
            Specials::Ieee | Specials::FiniteOnly => all,
        }
    }

    /// Whether the format encodes ±infinity.
    pub const fn has_inf(&self) -> bool {
        matches!(self.specials, Specials::Ieee)
    }

    /// Whether the format has a NaN encoding.
    pub const fn has_nan(&self) -> bool {
        !matches!(self.specials, Specials::FiniteOnly)
    }

    /// The canonical (positive, quiet) NaN pattern, or `None` for formats without NaN.
    pub const fn nan_bits(&self) -> Option<u32> {
        match self.specials {
            Specials::Ieee => {
                Some((self.exp_all_ones() << self.man_bits) | (1 << (self.man_bits - 1)))
            }
            Specials::NanOnlyAllOnes => {
                Some((self.exp_all_ones() << self.man_bits) | self.man_mask())
            }
            Specials::FiniteOnly => None,
        }
    }

    /// The +infinity pattern, or `None` where the format has no infinity.
    pub const fn inf_bits(&self) -> Option<u32> {
        match self.specials {
            Specials::Ieee => Some(self.exp_all_ones() << self.man_bits),
            _ => None,
        }
    }

    /// Bit pattern of the largest finite positive value.
    pub const fn max_bits(&self) -> u32 {
        let field = (self.emax() - self.emin() + 1) as u32;
        (field << self.man_bits) | (self.max_significand() as u32 & self.man_mask())
    }

    /// Splits a pattern into (sign, exponent field, mantissa field). Bits above the format's width
    /// are ignored.
    pub const fn fields(&self, bits: u32) -> (u32, u32, u32) {
        let sign = (bits >> (self.exp_bits + self.man_bits)) & 1;
        let exp = (bits >> self.man_bits) & self.exp_all_ones();
        (sign, exp, bits & self.man_mask())
    }

    /// Decodes a bit pattern exactly. Bits above the format's width are ignored.
    pub fn decode(&self, bits: u32) -> Decoded {
        let (sign, exp, man) = self.fields(bits);
        let negative = sign == 1;
        if exp == self.exp_all_ones() {
            match self.specials {
                Specials::Ieee if man == 0 => return Decoded::Inf { negative },
                Specials::Ieee => return Decoded::Nan,
                Specials::NanOnlyAllOnes if man == self.man_mask() => return Decoded::Nan,
                _ => {}
            }
        }
        if exp == 0 && man == 0 {
            return Decoded::Zero { negative };
        }
        let subnormal = exp == 0;
        let significand = if subnormal {
            man as u64
        } else {
            (man | (1 << self.man_bits)) as u64
        };
        let field = if subnormal { 1 } else { exp as i32 };
        Decoded::Finite {
            negative,
            significand,
            exponent: field - self.bias - self.man_bits as i32,
            subnormal,
        }
    }

    /// Decodes a pattern to `f64`. Exact for every format up to FP32 (all fit in binary64).
    pub fn to_f64(&self, bits: u32) -> f64 {
        match self.decode(bits) {
            Decoded::Nan => f64::NAN,
            Decoded::Inf { negative } => signed(f64::INFINITY, negative),
            Decoded::Zero { negative } => signed(0.0, negative),
            Decoded::Finite {
                negative,
                significand,
                exponent,
                ..
            } => signed(significand as f64 * pow2(exponent), negative),
        }
    }

    /// Encodes `x` in one correctly rounded step: round to nearest, ties to even, with exact
    /// subnormals (no flush to zero). Values too small round to ±0, keeping the sign.
    ///
    /// Overflow follows `overflow` (see [`Overflow`]). A NaN input gives the canonical positive
    /// quiet NaN; formats without NaN (FP6, FP4) have no way to store it and give +0: callers that
    /// show values should check [`Self::has_nan`] and say so.
    pub fn encode(&self, x: f64, overflow: Overflow) -> u32 {
        if x.is_nan() {
            return self.nan_bits().unwrap_or(0);
        }
        let sign = if x.is_sign_negative() {
            self.sign_mask()
        } else {
            0
        };
        if x.is_infinite() {
            return sign | self.overflow_bits(overflow);
        }
        if x == 0.0 {
            return sign;
        }
        let (m, e) = split_f64(x.abs());
        let log2 = e + 63 - m.leading_zeros() as i32;
        let mut exp = log2.max(self.emin());
        let quantum = exp - self.man_bits as i32;
        let mut n = shift_round_even(m, quantum - e);
        if n >> (self.man_bits + 1) != 0 {
            n >>= 1;
            exp += 1;
        }
        if n == 0 {
            return sign;
        }
        if exp > self.emax() || (exp == self.emax() && n > self.max_significand()) {
            return sign | self.overflow_bits(overflow);
        }
        let hidden = 1u64 << self.man_bits;
        let (field, man) = if n >= hidden {
            ((exp - self.emin() + 1) as u32, (n - hidden) as u32)
        } else {
            (0, n as u32)
        };
        sign | (field << self.man_bits) | man
    }

    fn overflow_bits(&self, overflow: Overflow) -> u32 {
        match (overflow, self.specials) {
            (Overflow::Native, Specials::Ieee) => self.exp_all_ones() << self.man_bits,
            (Overflow::Native, Specials::NanOnlyAllOnes) => {
                (self.exp_all_ones() << self.man_bits) | self.man_mask()
            }
            _ => self.max_bits(),
        }
    }
}

/// `2^e` as an exact `f64` for any `e` in -1074..=1023.
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

fn signed(v: f64, negative: bool) -> f64 {
    if negative {
        -v
    } else {
        v
    }
}

/// Splits a positive finite non-zero `f64` into an integer significand and power of two.
fn split_f64(a: f64) -> (u64, i32) {
    let bits = a.to_bits();
    let field = (bits >> 52) as i32;
    let frac = bits & ((1 << 52) - 1);
    if field == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), field - 1075)
    }
}

/// `m × 2^-shift` rounded to the nearest integer, ties to even. Negative shifts are exact left
/// shifts (the caller guarantees no overflow: the result is below 2^(man_bits+2)).
fn shift_round_even(m: u64, shift: i32) -> u64 {
    if shift <= 0 {
        return m << (-shift);
    }
    if shift >= 64 {
        return 0; // m < 2^53, so the value is below half a quantum.
    }
    let kept = m >> shift;
    let rest = m & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    if rest > half || (rest == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    }
}
