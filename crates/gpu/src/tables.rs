//! Constant tables the kernels read (binding `table`), each derived from the CPU reference at
//! run time rather than typed in, so the GPU cannot drift from it.

use bitbudget_math::format::{fp8, FormatId, Spec};
use bitbudget_math::quant::codec::quantize;
use bitbudget_math::quant::fp4_options::{self, Fp4Options};
use bitbudget_math::quant::ggml::{GgmlType, KVALUES_MXFP4, QK};
use bitbudget_math::quant::iq4_nl::KVALUES_IQ4NL;
use bitbudget_math::quant::mx::MxFormat;
use bitbudget_math::quant::nf4::NF4_CODE;
use bitbudget_math::quant::nvfp4::ue4m3_to_f32;
use bitbudget_math::quant::rotation::{self, HADAMARD};
use bitbudget_math::quant::scheme::Scheme;
use std::sync::OnceLock;

/// Which table a kernel binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Table {
    /// One zero word (kernels that read no table still bind one).
    None,
    /// MXFP4: [0..256) exponent thresholds, [256..272) `KVALUES_MXFP4` as f32.
    Mxfp4,
    /// `NF4_CODE`.
    Nf4,
    /// The value of every FP8 E4M3 pattern.
    F8E4M3,
    /// The value of every FP8 E5M2 pattern.
    F8E5M2,
    /// IQ4_NL's 16 levels.
    Iq4Nl,
    /// NVFP4's halved UE4M3 scales and E2M1 values.
    Nvfp4,
    /// The element values of one MX format.
    Mx(MxFormat),
}

impl Table {
    /// The table's words.
    pub(crate) fn words(self) -> Vec<u32> {
        match self {
            Table::None => vec![0],
            Table::Mxfp4 => {
                let mut words = mxfp4_thresholds().to_vec();
                words.extend(KVALUES_MXFP4.iter().map(|k| (*k as f32).to_bits()));
                words
            }
            Table::Nf4 => NF4_CODE.iter().map(|c| c.to_bits()).collect(),
            Table::F8E4M3 => (0..=255u8)
                .map(|b| fp8::e4m3().decode(b).to_bits())
                .collect(),
            Table::F8E5M2 => (0..=255u8)
                .map(|b| fp8::e5m2().decode(b).to_bits())
                .collect(),
            Table::Iq4Nl => KVALUES_IQ4NL
                .iter()
                .map(|k| (*k as f32).to_bits())
                .collect(),
            Table::Nvfp4 => {
                let mut words: Vec<u32> = (0..=255u8)
                    .map(|b| (ue4m3_to_f32(b) * 0.5).to_bits())
                    .collect();
                words.extend(KVALUES_MXFP4.iter().map(|k| (*k as f32).to_bits()));
                words
            }
            // Every element value is exact in f32 (at most 3 mantissa bits, exponents within
            // f32's range).
            Table::Mx(format) => (0..1u32 << format.element_bits())
                .map(|c| (format.element().to_f64(c) as f32).to_bits())
                .collect(),
        }
    }

    /// A label for the table's buffer.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Table::None => "bitbudget table: none",
            Table::Mxfp4 => "bitbudget table: mxfp4 exponent thresholds and E2M1 values",
            Table::Nf4 => "bitbudget table: NF4 code values",
            Table::F8E4M3 => "bitbudget table: FP8 E4M3 pattern values",
            Table::F8E5M2 => "bitbudget table: FP8 E5M2 pattern values",
            Table::Iq4Nl => "bitbudget table: IQ4_NL levels",
            Table::Nvfp4 => "bitbudget table: NVFP4 halved scales and E2M1 values",
            Table::Mx(_) => "bitbudget table: MX element pattern values",
        }
    }
}

/// The table that `scheme`'s kernels read.
pub(crate) fn table_of(scheme: Scheme) -> Table {
    match scheme {
        Scheme::Ggml(GgmlType::Mxfp4) => Table::Mxfp4,
        Scheme::Nf4 => Table::Nf4,
        Scheme::F8E4M3 | Scheme::Fp8Tile | Scheme::Fp8Block => Table::F8E4M3,
        Scheme::F8E5M2 => Table::F8E5M2,
        Scheme::Iq4Nl => Table::Iq4Nl,
        Scheme::Nvfp4 => Table::Nvfp4,
        Scheme::Mx(format) => Table::Mx(format),
        _ => Table::None,
    }
}

/// `params.consts` bit 0 of the NVFP4 and MXFP4 kernels: the random Hadamard transform is on.
pub(crate) const RHT_ON: u32 = 1;
/// `params.consts` bit 1 of the NVFP4 and MXFP4 kernels: stochastic rounding is on.
pub(crate) const SR_ON: u32 = 2;

/// `params.consts` of a dispatch: the FP4 options for NVFP4 and MXFP4 (fp4_options.wgsl: flags
/// [`RHT_ON`] | [`SR_ON`], the sign mask of `rotation::signs` with bit k set where position k is
/// −1, SR's `seed_key`, 0), else [`fp8_consts`].
pub(crate) fn kernel_consts(scheme: Scheme, opts: Fp4Options) -> [u32; 4] {
    if !fp4_options::SCHEMES.contains(&scheme) {
        return fp8_consts(scheme);
    }
    let mask = opts.rht.map_or(0, |seed| {
        let signs = rotation::signs(seed);
        (0..HADAMARD).fold(0, |m, k| m | ((signs[k] < 0.0) as u32) << k)
    });
    let flags = opts.rht.map_or(0, |_| RHT_ON) | opts.sr.map_or(0, |_| SR_ON);
    [flags, mask, opts.sr.map_or(0, fp4_options::seed_key), 0]
}

/// Minifloat facts for `params.consts` of the FP8 and MX quantize kernels: (stored mantissa
/// bits, f32 exponent field of the smallest normal value, largest finite pattern, NaN pattern;
/// for MX `emax_elem` instead of the NaN pattern), read from the math crate's format
/// description and codec. Zeros for other schemes.
pub(crate) fn fp8_consts(scheme: Scheme) -> [u32; 4] {
    let (id, codec) = match scheme {
        Scheme::F8E4M3 | Scheme::Fp8Tile | Scheme::Fp8Block => (FormatId::F8E4M3, fp8::e4m3()),
        Scheme::F8E5M2 => (FormatId::F8E5M2, fp8::e5m2()),
        Scheme::Mx(format) => {
            // quantize_mx.wgsl: the NaN pattern's place holds emax_elem (no NaN is encoded).
            let e = format.element();
            return [
                e.man_bits,
                (127 + e.emin()) as u32,
                e.max_bits(),
                e.emax() as u32,
            ];
        }
        _ => return [0; 4],
    };
    let Spec::Float(f) = id.spec() else {
        unreachable!("FP8 formats are minifloats")
    };
    let emin = 1 - f.bias;
    [
        f.man_bits,
        (127 + emin) as u32,
        codec.encode_saturating(f32::INFINITY) as u32,
        codec.encode_saturating(f32::NAN) as u32,
    ]
}

/// The MXFP4 block exponent of the CPU reference for a block whose largest |x| is `amax`.
fn mxfp4_exponent(amax: f32) -> u8 {
    let mut block = [0f32; QK];
    block[0] = amax;
    quantize(Scheme::Ggml(GgmlType::Mxfp4), &block, QK).expect("one whole block")[0]
}

/// For t in 1..256, the smallest positive f32 bit pattern (∞ included) whose MXFP4 exponent is at
/// least t (`u32::MAX` when none is); entry 0 is unused.
///
/// Why a table: the reference computes the exponent as `floor(log2(amax)) - 2 + 127` with the
/// platform's `log2`, which rounds up to the next integer just below each power of two in the
/// upper binades. The exponent only ever steps up as amax grows, so a binary search over the
/// bit patterns finds where each step happens, on the CPU the results are compared with.
pub(crate) fn mxfp4_thresholds() -> &'static [u32; 256] {
    static TABLE: OnceLock<[u32; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [u32::MAX; 256];
        table[0] = 0;
        let top = f32::INFINITY.to_bits();
        for (t, slot) in table.iter_mut().enumerate().skip(1) {
            if (mxfp4_exponent(f32::INFINITY) as usize) < t {
                continue;
            }
            let (mut lo, mut hi) = (1u32, top);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if (mxfp4_exponent(f32::from_bits(mid)) as usize) >= t {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            *slot = lo;
        }
        table
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exponent the table predicts (what the kernel computes).
    fn from_table(amax: f32) -> u8 {
        let bits = amax.to_bits();
        mxfp4_thresholds()[1..]
            .iter()
            .filter(|t| **t <= bits)
            .count() as u8
    }

    #[test]
    fn mxfp4_thresholds_reproduce_the_reference_exponent_around_every_power_of_two() {
        let mut probes = vec![0.0, f32::MIN_POSITIVE, 1e-45, f32::MAX, f32::INFINITY];
        for e in -149..=127 {
            let p = 2f32.powi(e);
            for d in -3i64..=3 {
                probes.push(f32::from_bits((p.to_bits() as i64 + d).max(0) as u32));
            }
        }
        let mut s = 0x9e37_79b9u32;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            probes.push(f32::from_bits(s & 0x7f7f_ffff));
        }
        for a in probes {
            assert_eq!(
                from_table(a),
                mxfp4_exponent(a),
                "amax {a:e} ({:#x})",
                a.to_bits()
            );
        }
    }

    #[test]
    fn fp8_facts_are_the_ocp_ones() {
        // OCP 8-bit floating point spec, table 1: E4M3 bias 7, max 448 = 0x7E, NaN 0x7F;
        // E5M2 bias 15, max 57344 = 0x7B.
        let [man, field, max, _] = fp8_consts(Scheme::F8E4M3);
        assert_eq!((man, field, max), (3, 121, 0x7e));
        assert_eq!(fp8::e4m3().decode(max as u8), 448.0);
        let [man, field, max, _] = fp8_consts(Scheme::F8E5M2);
        assert_eq!((man, field, max), (2, 113, 0x7b));
        assert_eq!(fp8::e5m2().decode(max as u8), 57344.0);
    }
}
