//! Two's complement and unsigned integer formats (INT8, UINT8, INT4).

use serde::Serialize;

/// An integer format of `bits` bits, two's complement when `signed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct IntFormat {
    /// Width in bits (1..=32).
    pub bits: u32,
    /// Two's complement when true; plain binary otherwise.
    pub signed: bool,
}

impl IntFormat {
    /// An integer format of `bits` bits (1..=32, unchecked), two's complement when `signed`.
    pub const fn new(bits: u32, signed: bool) -> Self {
        IntFormat { bits, signed }
    }

    /// Smallest representable value (e.g. -128 for INT8, 0 for UINT8).
    pub const fn min(&self) -> i64 {
        if self.signed {
            -(1i64 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The name of the encoding as shown to readers: "two's complement" when signed, "unsigned"
    /// otherwise (the Bits page, its facts table and the CLI all use this one name).
    pub const fn encoding(&self) -> &'static str {
        if self.signed {
            "two's complement"
        } else {
            "unsigned"
        }
    }

    /// Largest representable value (e.g. 127 for INT8, 255 for UINT8).
    pub const fn max(&self) -> i64 {
        if self.signed {
            (1i64 << (self.bits - 1)) - 1
        } else {
            (1i64 << self.bits) - 1
        }
    }

    const fn mask(&self) -> u32 {
        if self.bits == 32 {
            u32::MAX
        } else {
            (1 << self.bits) - 1
        }
    }

    /// Encodes `x`: round to nearest, ties to even; saturate to [min, max] (±infinity included);
    /// NaN has no integer encoding and gives 0.
    pub fn encode(&self, x: f64) -> u32 {
        if x.is_nan() {
            return 0;
        }
        let clamped = x
            .round_ties_even()
            .clamp(self.min() as f64, self.max() as f64) as i64;
        (clamped as u32) & self.mask()
    }

    /// Decodes a pattern (bits above the width are ignored): sign-extends when signed.
    pub const fn decode(&self, bits: u32) -> i64 {
        let raw = (bits & self.mask()) as i64;
        if self.signed && raw >= (1i64 << (self.bits - 1)) {
            raw - (1i64 << self.bits)
        } else {
            raw
        }
    }

    /// The value each bit contributes, most significant first: INT8 gives -128, 64, 32, ..., 1.
    pub fn bit_weights(&self) -> Vec<i64> {
        (0..self.bits)
            .rev()
            .map(|i| {
                let w = 1i64 << i;
                if self.signed && i == self.bits - 1 {
                    -w
                } else {
                    w
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INT8: IntFormat = IntFormat {
        bits: 8,
        signed: true,
    };
    const INT4: IntFormat = IntFormat {
        bits: 4,
        signed: true,
    };

    #[test]
    fn int8_is_two_complement_minus_128_to_127() {
        assert_eq!((INT8.min(), INT8.max()), (-128, 127));
        assert_eq!(INT8.decode(0x80), -128);
        assert_eq!(INT8.decode(0xFF), -1);
        assert_eq!(INT8.encode(-1.0), 0xFF);
        assert_eq!(INT8.bit_weights()[0], -128);
    }

    #[test]
    fn int_encoding_rounds_ties_to_even_and_saturates() {
        assert_eq!(INT8.encode(2.5), 2);
        assert_eq!(INT8.encode(3.5), 4);
        assert_eq!(INT8.decode(INT8.encode(-2.5)), -2);
        assert_eq!(INT8.encode(1e15), 127);
        assert_eq!(INT8.decode(INT8.encode(f64::NEG_INFINITY)), -128);
        assert_eq!(INT4.decode(INT4.encode(9.0)), 7);
        assert_eq!(INT8.encode(f64::NAN), 0);
    }

    #[test]
    fn only_signed_integers_are_called_twos_complement() {
        assert_eq!(INT8.encoding(), "two's complement");
        let uint8 = IntFormat {
            bits: 8,
            signed: false,
        };
        assert_eq!(uint8.encoding(), "unsigned");
    }

    #[test]
    fn every_int8_pattern_round_trips() {
        for b in 0..256u32 {
            assert_eq!(INT8.encode(INT8.decode(b) as f64), b);
        }
    }
}
