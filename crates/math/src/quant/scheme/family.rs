//! The lab's groups of schemes: who defined them and how they store a block, so that a reader can
//! compare one family (llama.cpp's K-quants, the OCP MX formats) without the other twenty rows.

use super::Scheme;

/// A group of related schemes; every scheme belongs to exactly one, and each group's schemes
/// are consecutive in [`Scheme::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemeFamily {
    /// llama.cpp's 32-weight blocks: `q8_0 q4_0 q4_1 q5_0 q5_1`.
    GgmlBlocks,
    /// llama.cpp's K-quants (`q2_k` … `q6_k`) and `iq4_nl`.
    KQuants,
    /// Microscaling: `mxfp4`, `nvfp4` and the MX FP6/FP8 formats.
    Microscaling,
    /// NF4 and the absmax and zero-point integers.
    Integers,
    /// Per-tensor scaled FP8 and the 16-bit casts.
    Floats,
}

impl SchemeFamily {
    /// Every family, in [`Scheme::ALL`]'s order.
    pub const ALL: [SchemeFamily; 5] = [
        SchemeFamily::GgmlBlocks,
        SchemeFamily::KQuants,
        SchemeFamily::Microscaling,
        SchemeFamily::Integers,
        SchemeFamily::Floats,
    ];

    /// A short name for URLs and test ids: `ggml`, `k-quants`, `mx`, `int`, `float`.
    pub const fn name(self) -> &'static str {
        match self {
            SchemeFamily::GgmlBlocks => "ggml",
            SchemeFamily::KQuants => "k-quants",
            SchemeFamily::Microscaling => "mx",
            SchemeFamily::Integers => "int",
            SchemeFamily::Floats => "float",
        }
    }

    /// The family named `name` (as [`SchemeFamily::name`]), if any.
    pub fn named(name: &str) -> Option<SchemeFamily> {
        SchemeFamily::ALL.into_iter().find(|f| f.name() == name)
    }

    /// A short label for a picker ("llama.cpp blocks").
    pub const fn label(self) -> &'static str {
        match self {
            SchemeFamily::GgmlBlocks => "llama.cpp blocks",
            SchemeFamily::KQuants => "K-quants and IQ4_NL",
            SchemeFamily::Microscaling => "Microscaling (MX, NVFP4)",
            SchemeFamily::Integers => "NF4 and integers",
            SchemeFamily::Floats => "FP8 and 16-bit casts",
        }
    }

    /// The family's schemes, in [`Scheme::ALL`]'s order.
    pub fn schemes(self) -> impl Iterator<Item = Scheme> {
        Scheme::ALL.into_iter().filter(move |s| s.family() == self)
    }
}

impl Scheme {
    /// The family the lab groups this scheme in.
    pub const fn family(self) -> SchemeFamily {
        use crate::quant::ggml_blocks::GgmlType;
        match self {
            Scheme::Ggml(GgmlType::Mxfp4)
            | Scheme::Nvfp4
            | Scheme::Mx(_)
            | Scheme::Fp8Tile
            | Scheme::Fp8Block => SchemeFamily::Microscaling,
            Scheme::Ggml(_) => SchemeFamily::GgmlBlocks,
            Scheme::KQuant(_) | Scheme::Iq4Nl => SchemeFamily::KQuants,
            Scheme::Nf4 | Scheme::AbsmaxInt8 | Scheme::ZeroPointUint8 | Scheme::ZeroPointInt4 => {
                SchemeFamily::Integers
            }
            Scheme::F8E4M3 | Scheme::F8E5M2 | Scheme::Bf16 | Scheme::F16 => SchemeFamily::Floats,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_is_in_one_family_and_the_families_follow_the_one_list() {
        let listed: Vec<Scheme> = SchemeFamily::ALL
            .into_iter()
            .flat_map(SchemeFamily::schemes)
            .collect();
        assert_eq!(listed, Scheme::ALL, "families in order, each consecutive");
        assert!(SchemeFamily::ALL.iter().all(|f| f.schemes().count() >= 4));
        for f in SchemeFamily::ALL {
            assert_eq!(SchemeFamily::named(f.name()), Some(f));
            assert!(
                f.name().parse::<Scheme>().is_err(),
                "{} is no scheme's name",
                f.name()
            );
        }
        assert_eq!(
            SchemeFamily::Microscaling
                .schemes()
                .map(Scheme::name)
                .collect::<Vec<_>>(),
            [
                "mxfp4",
                "nvfp4",
                "mxfp6-e2m3",
                "mxfp6-e3m2",
                "mxfp8-e4m3",
                "mxfp8-e5m2",
                "fp8-1x128",
                "fp8-128x128"
            ]
        );
    }
}
