//! The formats bitbudget knows, by name, with one uniform API over floats and integers.

use super::integer::IntFormat;
use super::minifloat::{Minifloat, Overflow, Specials};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// IEEE 754 binary32. IEEE 754-2019 table 3.5.
pub const FP32: Minifloat = Minifloat::new(8, 23, 127, Specials::Ieee);
/// IEEE 754 binary16. IEEE 754-2019 table 3.5: max 65504.
pub const FP16: Minifloat = Minifloat::new(5, 10, 15, Specials::Ieee);
/// bfloat16: the top 16 bits of binary32 (Google Brain / Intel BF16 spec): 8 exponent bits, bias 127.
pub const BF16: Minifloat = Minifloat::new(8, 7, 127, Specials::Ieee);
/// OCP 8-bit Floating Point Specification (OFP8) rev 1.0, table 1: E4M3, bias 7, max 448,
/// no infinities, NaN only S.1111.111 (PyTorch/ml_dtypes `float8_e4m3fn`).
pub const FP8_E4M3: Minifloat = Minifloat::new(4, 3, 7, Specials::NanOnlyAllOnes);
/// OCP OFP8 rev 1.0, table 1: E5M2, bias 15, max 57344, IEEE-style infinities and NaNs.
pub const FP8_E5M2: Minifloat = Minifloat::new(5, 2, 15, Specials::Ieee);
/// OCP Microscaling (MX) Formats Specification v1.0, table 2: FP6 E3M2, bias 3, max 28, no inf/NaN.
pub const FP6_E3M2: Minifloat = Minifloat::new(3, 2, 3, Specials::FiniteOnly);
/// OCP MX v1.0, table 2: FP6 E2M3, bias 1, max 7.5, no inf/NaN.
pub const FP6_E2M3: Minifloat = Minifloat::new(2, 3, 1, Specials::FiniteOnly);
/// OCP MX v1.0, table 3: FP4 E2M1, bias 1, max 6, no inf/NaN.
pub const FP4_E2M1: Minifloat = Minifloat::new(2, 1, 1, Specials::FiniteOnly);

/// Every format shown in the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FormatId {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    #[default]
    Bf16,
    /// OCP FP8 E4M3 (FN).
    F8E4M3,
    /// OCP FP8 E5M2.
    F8E5M2,
    /// OCP MX FP6 E3M2.
    F6E3M2,
    /// OCP MX FP6 E2M3.
    F6E2M3,
    /// OCP MX FP4 E2M1.
    F4E2M1,
    /// 8-bit two's complement.
    Int8,
    /// 8-bit unsigned.
    Uint8,
    /// 4-bit two's complement.
    Int4,
}

/// The shape of a format: a minifloat or an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    /// A binary floating-point format.
    Float(Minifloat),
    /// An integer format.
    Int(IntFormat),
}

/// Each format's short name, label and layout, in the order of [`FormatId`]'s variants (which
/// is [`FormatId::ALL`]'s; a test checks it).
const FACTS: [(&str, &str, Spec); 11] = [
    ("f32", "FP32", Spec::Float(FP32)),
    ("f16", "FP16", Spec::Float(FP16)),
    ("bf16", "BF16", Spec::Float(BF16)),
    ("f8e4m3", "FP8 E4M3", Spec::Float(FP8_E4M3)),
    ("f8e5m2", "FP8 E5M2", Spec::Float(FP8_E5M2)),
    ("f6e3m2", "FP6 E3M2", Spec::Float(FP6_E3M2)),
    ("f6e2m3", "FP6 E2M3", Spec::Float(FP6_E2M3)),
    ("f4e2m1", "FP4 E2M1", Spec::Float(FP4_E2M1)),
    ("int8", "INT8", Spec::Int(IntFormat::new(8, true))),
    ("uint8", "UINT8", Spec::Int(IntFormat::new(8, false))),
    ("int4", "INT4", Spec::Int(IntFormat::new(4, true))),
];

impl FormatId {
    /// All formats, widest first.
    pub const ALL: [FormatId; 11] = [
        Self::F32,
        Self::F16,
        Self::Bf16,
        Self::F8E4M3,
        Self::F8E5M2,
        Self::F6E3M2,
        Self::F6E2M3,
        Self::F4E2M1,
        Self::Int8,
        Self::Uint8,
        Self::Int4,
    ];

    /// The short name used by the CLI and URLs (`f32`, `bf16`, `f8e4m3`, `int8`, ...).
    pub const fn name(self) -> &'static str {
        FACTS[self as usize].0
    }

    /// A human label (`FP32`, `FP8 E4M3`, ...).
    pub const fn label(self) -> &'static str {
        FACTS[self as usize].1
    }

    /// The format's layout.
    pub const fn spec(self) -> Spec {
        FACTS[self as usize].2
    }

    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self.spec() {
            Spec::Float(f) => f.total_bits(),
            Spec::Int(i) => i.bits,
        }
    }

    /// Mask covering the format's bits.
    pub const fn mask(self) -> u32 {
        if self.bits() == 32 {
            u32::MAX
        } else {
            (1 << self.bits()) - 1
        }
    }

    /// Encodes `x` (see [`Minifloat::encode`] and [`IntFormat::encode`] for rounding and overflow).
    pub fn encode(self, x: f64, overflow: Overflow) -> u32 {
        match self.spec() {
            Spec::Float(f) => f.encode(x, overflow),
            Spec::Int(i) => i.encode(x),
        }
    }

    /// Decodes a pattern exactly to `f64`.
    pub fn decode(self, bits: u32) -> f64 {
        match self.spec() {
            Spec::Float(f) => f.to_f64(bits),
            Spec::Int(i) => i.decode(bits) as f64,
        }
    }

    /// Largest finite value.
    pub fn max_value(self) -> f64 {
        match self.spec() {
            Spec::Float(f) => f.to_f64(f.max_bits()),
            Spec::Int(i) => i.max() as f64,
        }
    }

    /// Most negative finite value.
    pub fn lowest_value(self) -> f64 {
        match self.spec() {
            Spec::Float(f) => -f.to_f64(f.max_bits()),
            Spec::Int(i) => i.min() as f64,
        }
    }

    /// Whether the format is a float (has an exponent).
    pub const fn is_float(self) -> bool {
        matches!(self.spec(), Spec::Float(_))
    }
}

impl fmt::Display for FormatId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown format name; the message lists the accepted ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = FormatId::ALL.iter().map(|id| id.name()).collect();
        write!(
            f,
            "unknown format '{}'; expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for FormatId {
    type Err = UnknownFormat;

    /// Accepts the short names plus common aliases (`fp32`, `float16`, `e4m3`, `e4m3fn`, ...),
    /// case-insensitively.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.trim().to_ascii_lowercase().replace(['_', '-', ' '], "");
        let id = match key.as_str() {
            "f32" | "fp32" | "float32" | "float" => Self::F32,
            "f16" | "fp16" | "float16" | "half" => Self::F16,
            "bf16" | "bfloat16" => Self::Bf16,
            "f8e4m3" | "fp8e4m3" | "e4m3" | "e4m3fn" | "f8e4m3fn" | "float8e4m3fn" => Self::F8E4M3,
            "f8e5m2" | "fp8e5m2" | "e5m2" | "float8e5m2" => Self::F8E5M2,
            "f6e3m2" | "fp6e3m2" | "e3m2" => Self::F6E3M2,
            "f6e2m3" | "fp6e2m3" | "e2m3" => Self::F6E2M3,
            "f4e2m1" | "fp4e2m1" | "e2m1" | "fp4" => Self::F4E2M1,
            "int8" | "i8" => Self::Int8,
            "uint8" | "u8" => Self::Uint8,
            "int4" | "i4" => Self::Int4,
            _ => return Err(UnknownFormat(s.to_string())),
        };
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_table_follows_the_variants_order() {
        for (i, id) in FormatId::ALL.iter().enumerate() {
            assert_eq!(*id as usize, i, "{id:?}");
        }
        let widths: Vec<u32> = FormatId::ALL.iter().map(|id| id.bits()).collect();
        assert_eq!(widths, [32, 16, 16, 8, 8, 6, 6, 4, 8, 8, 4]);
        assert_eq!(FormatId::Uint8.spec(), Spec::Int(IntFormat::new(8, false)));
    }

    #[test]
    fn names_round_trip_through_from_str() {
        for id in FormatId::ALL {
            assert_eq!(id.name().parse::<FormatId>(), Ok(id));
        }
        assert_eq!("E4M3FN".parse::<FormatId>(), Ok(FormatId::F8E4M3));
        assert!("f7"
            .parse::<FormatId>()
            .unwrap_err()
            .to_string()
            .contains("bf16"));
    }

    #[test]
    fn published_maxima_match_the_specs() {
        assert_eq!(FormatId::F32.max_value(), f32::MAX as f64);
        assert_eq!(FormatId::F16.max_value(), 65504.0);
        assert_eq!(FormatId::F8E4M3.max_value(), 448.0);
        assert_eq!(FormatId::F8E5M2.max_value(), 57344.0);
        assert_eq!(FormatId::F6E3M2.max_value(), 28.0);
        assert_eq!(FormatId::F6E2M3.max_value(), 7.5);
        assert_eq!(FormatId::F4E2M1.max_value(), 6.0);
        assert_eq!(FormatId::Int8.lowest_value(), -128.0);
    }
}
