//! MXFP8 (E4M3, E5M2) and MXFP6 (E3M2, E2M3) against the rules of the OCP Microscaling Formats
//! Specification v1.0: the shared E8M0 scale is `floor(log2(amax)) − emax_elem` (§6.3), elements
//! round to nearest even and saturate at the element's largest magnitude (§6.3), 0xFF is the
//! E8M0 NaN and makes the whole block NaN (§5.4.1 and the special-value rules), and every
//! element value times a scale survives a round trip exactly.

use bitbudget_math::format::minifloat::pow2;
use bitbudget_math::format::Overflow;
use bitbudget_math::quant::mx::{
    dequantize, dequantize_block, e8m0_value, quantize, quantize_block, shared_scale, MxFormat,
    E8M0_NAN, MX_BLOCK,
};

fn block(values: &[f32]) -> [f32; MX_BLOCK] {
    let mut b = [0f32; MX_BLOCK];
    b[..values.len()].copy_from_slice(values);
    b
}

fn round_trip(format: MxFormat, x: &[f32; MX_BLOCK]) -> (Vec<u8>, [f32; MX_BLOCK]) {
    let mut bytes = vec![0u8; format.block_bytes()];
    quantize_block(format, x, &mut bytes).unwrap();
    let mut y = [0f32; MX_BLOCK];
    dequantize_block(format, &bytes, &mut y).unwrap();
    (bytes, y)
}

#[test]
fn emax_elem_is_the_exponent_of_each_elements_largest_normal() {
    // MX v1.0 §5.3: E4M3 max 1.75·2^8, E5M2 1.75·2^15, E3M2 1.75·2^4, E2M3 1.875·2^2.
    let emax: Vec<i32> = MxFormat::ALL.iter().map(|f| f.emax()).collect();
    assert_eq!(emax, [8, 15, 4, 2]);
    let bytes: Vec<usize> = MxFormat::ALL.iter().map(|f| f.block_bytes()).collect();
    assert_eq!(bytes, [33, 33, 25, 25]);
}

#[test]
fn e8m0_is_a_biased_power_of_two_with_0xff_as_nan() {
    assert_eq!(e8m0_value(127), 1.0);
    assert_eq!(e8m0_value(0) as f64, pow2(-127));
    assert_eq!(e8m0_value(254) as f64, pow2(127));
    assert_eq!(e8m0_value(130), 8.0);
    assert!(e8m0_value(E8M0_NAN).is_nan());
}

#[test]
fn shared_scale_is_floor_log2_of_amax_minus_emax_elem() {
    for format in MxFormat::ALL {
        for (amax, floor_log2) in [
            (1.0f32, 0),
            (1.999, 0),
            (2.0, 1),
            (0.75, -1),
            (448.0, 8),
            (3e38, 127),
            (1e-30, -100),
            (f32::from_bits(1), -149),           // smallest f32 subnormal
            (f32::from_bits(0x0040_0000), -127), // 2^-127, a subnormal
        ] {
            let expected = (floor_log2 - format.emax()).clamp(-127, 127) + 127;
            assert_eq!(
                shared_scale(format, amax) as i32,
                expected,
                "{} amax {amax:e}",
                format.name()
            );
        }
    }
}

#[test]
fn scale_is_chosen_from_the_largest_magnitude_of_either_sign() {
    let x = block(&[0.5, -3.0, 1.0]);
    for format in MxFormat::ALL {
        let (bytes, _) = round_trip(format, &x);
        assert_eq!(
            bytes[0] as i32,
            1 - format.emax() + 127,
            "{}",
            format.name()
        );
    }
}

#[test]
fn every_element_value_round_trips_exactly_under_a_scale() {
    for format in MxFormat::ALL {
        let element = format.element();
        let max = element.to_f64(element.max_bits());
        let values: Vec<f64> = (0..1u32 << element.total_bits())
            .map(|c| element.to_f64(c))
            .filter(|v| v.is_finite())
            .collect();
        for scale_exp in [-20, 0, 7] {
            let scale = pow2(scale_exp);
            // The largest element pins the shared exponent to scale_exp.
            for chunk in values.chunks(MX_BLOCK - 1) {
                let mut x = [0f32; MX_BLOCK];
                x[0] = (max * scale) as f32;
                for (slot, v) in x[1..].iter_mut().zip(chunk) {
                    *slot = (v * scale) as f32;
                }
                let (bytes, y) = round_trip(format, &x);
                assert_eq!(bytes[0] as i32, scale_exp + 127, "{}", format.name());
                for (a, b) in x.iter().zip(&y) {
                    assert_eq!(
                        a.to_bits(),
                        b.to_bits(),
                        "{}: {a:e} came back as {b:e}",
                        format.name()
                    );
                }
            }
        }
    }
}

#[test]
fn elements_round_half_way_cases_to_even() {
    // With amax in [1, 2) the scale of E2M3 is 2^-2, so x/X = 4x. Between 4.0 (mantissa 000) and
    // 4.5 (001) the tie 4.25 goes to 4.0; between 4.5 and 5.0 (010) the tie 4.75 goes to 5.0.
    let x = block(&[1.5, 4.25 / 4.0, 4.75 / 4.0, -4.25 / 4.0]);
    let (_, y) = round_trip(MxFormat::Fp6E2M3, &x);
    assert_eq!(&y[..4], &[1.5, 1.0, 1.25, -1.0]);
    // Cross-check with the general codec on every tie of E4M3 under scale 2^-8 (amax in [1, 2)).
    let e4m3 = MxFormat::Fp8E4M3.element();
    for code in 0..0x7Du32 {
        let (lo, hi) = (e4m3.to_f64(code), e4m3.to_f64(code + 1));
        let tie = ((lo + hi) / 2.0 * pow2(-8)) as f32;
        let (_, y) = round_trip(MxFormat::Fp8E4M3, &block(&[1.0, tie]));
        let expected = e4m3.to_f64(e4m3.encode((lo + hi) / 2.0, Overflow::Saturate)) * pow2(-8);
        assert_eq!(
            y[1] as f64,
            expected,
            "tie between codes {code} and {}",
            code + 1
        );
        let even = if code % 2 == 0 { lo } else { hi };
        assert_eq!(y[1] as f64, even * pow2(-8));
    }
}

#[test]
fn elements_beyond_the_largest_magnitude_saturate() {
    // amax 1.99 gives X = 2^-emax, so 1.99/X = 1.99·2^emax exceeds every element's max.
    for format in MxFormat::ALL {
        let element = format.element();
        let max = (element.to_f64(element.max_bits()) * pow2(-format.emax())) as f32;
        let (_, y) = round_trip(format, &block(&[1.99, -1.99, 1.9]));
        assert_eq!(&y[..2], &[max, -max], "{}", format.name());
        assert!(y[2] <= max);
    }
}

#[test]
fn zero_blocks_get_the_smallest_scale_and_keep_signed_zeros() {
    for format in MxFormat::ALL {
        let (bytes, y) = round_trip(format, &block(&[0.0, -0.0]));
        assert_eq!(bytes[0], 0, "{}", format.name());
        assert!(y.iter().all(|v| *v == 0.0));
        assert!(y[1].is_sign_negative() && y[0].is_sign_positive());
    }
}

#[test]
fn nan_or_infinity_makes_the_scale_nan_and_the_whole_block_nan() {
    for format in MxFormat::ALL {
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let (bytes, y) = round_trip(format, &block(&[1.0, bad, 2.0]));
            assert_eq!(bytes[0], E8M0_NAN, "{} with {bad}", format.name());
            // black_box: LLVM's wasm32 + simd128 backend cannot select a vectorised
            // `is_nan` over this array at opt-level 3 ("Cannot select: v16i8 = setcc").
            assert!(y.iter().all(|v| std::hint::black_box(*v).is_nan()));
        }
    }
}

#[test]
fn tiny_blocks_clamp_the_scale_to_two_to_the_minus_127() {
    // amax 2^-140: floor(log2) − emax is below −127, so X = 2^-127 and elements underflow to 0
    // or subnormal element values, rounding to nearest even.
    for format in MxFormat::ALL {
        let tiny = pow2(-140) as f32;
        let (bytes, y) = round_trip(format, &block(&[tiny]));
        assert_eq!(bytes[0], 0, "{}", format.name());
        let element = format.element();
        let expected = element.to_f64(element.encode(pow2(-13), Overflow::Saturate)) * pow2(-127);
        assert_eq!(y[0] as f64, expected, "{}", format.name());
    }
}

#[test]
fn fp6_elements_are_packed_little_endian_four_per_three_bytes() {
    // E3M2 max (0b0_111_11 = 0x1F) in element 1 only: bits 6..12 of the element bit string.
    let (bytes, _) = round_trip(MxFormat::Fp6E3M2, &block(&[0.0, 28.0]));
    assert_eq!(&bytes[1..4], &[0xC0, 0x07, 0]); // 0x1F << 6 = 0x7C0, little-endian
                                                // Element 31 sits in the top six bits of the last byte; −28 is 0b1_111_11.
    let mut x = [0f32; MX_BLOCK];
    x[31] = -28.0;
    let (bytes, y) = round_trip(MxFormat::Fp6E3M2, &x);
    assert_eq!(bytes[24], 0x3F << 2);
    assert_eq!(y[31], -28.0);
}

#[test]
fn wrong_lengths_are_errors_that_name_the_format() {
    let mut out = vec![0u8; 33];
    let err = quantize(MxFormat::Fp8E4M3, &[1.0; 31], &mut out).unwrap_err();
    assert!(err.to_string().contains("mxfp8-e4m3"), "{err}");
    assert!(err.to_string().contains("31 values"), "{err}");
    let err = quantize(MxFormat::Fp6E2M3, &[1.0; 32], &mut out).unwrap_err();
    assert!(err.to_string().contains("25 bytes"), "{err}");
    let mut y = vec![0f32; 64];
    assert!(dequantize(MxFormat::Fp8E5M2, &out, &mut y).is_err());
}
