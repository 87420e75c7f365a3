//! Every GGML tensor type a GGUF file can name: its id, name, values per block and bytes per
//! block.
//!
//! Ids are `enum ggml_type` in llama.cpp's `ggml/include/ggml.h`; block sizes and bytes per block
//! are `blck_size` and `type_size` of `type_traits[]` in `ggml/src/ggml.c` (llama.cpp as vendored
//! by llama-cpp-python 0.3.36, fetched by `scripts/build_llama_reference.py`), read back from the
//! compiled library with `ggml_blck_size` / `ggml_type_size` and checked against the K-quant and
//! GGML block structs of [`crate::quant`] in this module's tests. Ids 4, 5 (Q4_2, Q4_3), 31–33
//! (Q4_0_4_4 …) and 36–38 (IQ4_NL_4_4 …) were removed from GGUF files upstream and are unknown
//! here, as they are to llama.cpp's loader.

use serde::Serialize;

macro_rules! tensor_types {
    ($($(#[$meta:meta])* $variant:ident = $id:literal, $name:literal, $block:literal, $bytes:literal;)+) => {
        /// A GGML tensor type (`enum ggml_type`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[allow(non_camel_case_types)]
        pub enum TensorType {
            $($(#[$meta])* $variant),+
        }

        impl TensorType {
            /// Every type, in id order.
            pub const ALL: &'static [TensorType] = &[$(TensorType::$variant),+];

            /// The id stored in a GGUF tensor index (`enum ggml_type`).
            pub const fn id(self) -> u32 {
                match self {
                    $(TensorType::$variant => $id),+
                }
            }

            /// llama.cpp's name (`ggml_type_name`): `q4_K`, `f16`, `iq4_nl`.
            pub const fn name(self) -> &'static str {
                match self {
                    $(TensorType::$variant => $name),+
                }
            }

            /// Values per block (`blck_size`; 1 for plain number types).
            pub const fn block_values(self) -> u64 {
                match self {
                    $(TensorType::$variant => $block),+
                }
            }

            /// Bytes per block (`type_size`).
            pub const fn block_bytes(self) -> u64 {
                match self {
                    $(TensorType::$variant => $bytes),+
                }
            }

            /// The type with GGUF id `id`, or `None` for an id llama.cpp does not define (or
            /// removed from GGUF files).
            pub const fn from_id(id: u32) -> Option<TensorType> {
                match id {
                    $($id => Some(TensorType::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

tensor_types! {
    /// IEEE binary32.
    F32 = 0, "f32", 1, 4;
    /// IEEE binary16.
    F16 = 1, "f16", 1, 2;
    /// 32 values: an f16 scale and 4-bit codes.
    Q4_0 = 2, "q4_0", 32, 18;
    /// 32 values: f16 scale and minimum, 4-bit codes.
    Q4_1 = 3, "q4_1", 32, 20;
    /// 32 values: f16 scale, 5-bit codes.
    Q5_0 = 6, "q5_0", 32, 22;
    /// 32 values: f16 scale and minimum, 5-bit codes.
    Q5_1 = 7, "q5_1", 32, 24;
    /// 32 values: f16 scale, 8-bit codes.
    Q8_0 = 8, "q8_0", 32, 34;
    /// 32 values: f16 scale and sum, 8-bit codes (an intermediate for dot products).
    Q8_1 = 9, "q8_1", 32, 36;
    /// 256-value super-block, 2-bit codes with 4-bit sub-scales and mins.
    Q2_K = 10, "q2_K", 256, 84;
    /// 256-value super-block, 3-bit codes with 6-bit sub-scales.
    Q3_K = 11, "q3_K", 256, 110;
    /// 256-value super-block, 4-bit codes with 6-bit sub-scales and mins.
    Q4_K = 12, "q4_K", 256, 144;
    /// 256-value super-block, 5-bit codes with 6-bit sub-scales and mins.
    Q5_K = 13, "q5_K", 256, 176;
    /// 256-value super-block, 6-bit codes with 8-bit sub-scales.
    Q6_K = 14, "q6_K", 256, 210;
    /// 256-value super-block, 8-bit codes (an intermediate for dot products).
    Q8_K = 15, "q8_K", 256, 292;
    /// 2.06 bits per weight (importance-matrix lattice codes).
    IQ2_XXS = 16, "iq2_xxs", 256, 66;
    /// 2.31 bits per weight.
    IQ2_XS = 17, "iq2_xs", 256, 74;
    /// 3.06 bits per weight.
    IQ3_XXS = 18, "iq3_xxs", 256, 98;
    /// 1.56 bits per weight.
    IQ1_S = 19, "iq1_s", 256, 50;
    /// 32 values: f16 scale, 4-bit indices into a non-linear table.
    IQ4_NL = 20, "iq4_nl", 32, 18;
    /// 3.44 bits per weight.
    IQ3_S = 21, "iq3_s", 256, 110;
    /// 2.56 bits per weight.
    IQ2_S = 22, "iq2_s", 256, 82;
    /// 4.25 bits per weight: IQ4_NL codes with 6-bit sub-scales.
    IQ4_XS = 23, "iq4_xs", 256, 136;
    /// 8-bit integer.
    I8 = 24, "i8", 1, 1;
    /// 16-bit integer.
    I16 = 25, "i16", 1, 2;
    /// 32-bit integer.
    I32 = 26, "i32", 1, 4;
    /// 64-bit integer.
    I64 = 27, "i64", 1, 8;
    /// IEEE binary64.
    F64 = 28, "f64", 1, 8;
    /// 1.75 bits per weight.
    IQ1_M = 29, "iq1_m", 256, 56;
    /// bfloat16.
    BF16 = 30, "bf16", 1, 2;
    /// Ternary, 1.69 bits per weight.
    TQ1_0 = 34, "tq1_0", 256, 54;
    /// Ternary, 2.06 bits per weight.
    TQ2_0 = 35, "tq2_0", 256, 66;
    /// OCP MXFP4: 32 E2M1 values and an E8M0 scale.
    MXFP4 = 39, "mxfp4", 32, 17;
    /// NVFP4: 64 E2M1 values in four sub-blocks, each with an E4M3 scale.
    NVFP4 = 40, "nvfp4", 64, 36;
    /// 1-bit codes, 128 values per block.
    Q1_0 = 41, "q1_0", 128, 18;
    /// 2-bit codes, 64 values per block.
    Q2_0 = 42, "q2_0", 64, 18;
}

impl TensorType {
    /// Bytes that `values` values take in whole blocks, or `None` when `values` is not a whole
    /// number of blocks (GGUF rows must be) or the product overflows `u64`.
    pub const fn bytes_for(self, values: u64) -> Option<u64> {
        let block = self.block_values();
        if values % block != 0 {
            return None;
        }
        (values / block).checked_mul(self.block_bytes())
    }

    /// Average bits per value (`8 × block_bytes / block_values`), for display.
    pub fn bits_per_value(self) -> f64 {
        8.0 * self.block_bytes() as f64 / self.block_values() as f64
    }

    /// Whether the type is a block-quantized format (not a plain float or integer type).
    pub const fn is_quantized(self) -> bool {
        self.block_values() > 1
    }
}

impl std::fmt::Display for TensorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::kquants::{q2_k, q3_k, q4_k, q5_k, q6_k};
    use crate::quant::{ggml, iq4_nl, nvfp4};
    use std::mem::size_of;

    #[test]
    fn ids_round_trip_and_removed_ids_are_unknown() {
        for t in TensorType::ALL {
            assert_eq!(TensorType::from_id(t.id()), Some(*t), "{t}");
        }
        for removed in [4, 5, 31, 32, 33, 36, 37, 38, 43, u32::MAX] {
            assert_eq!(TensorType::from_id(removed), None, "{removed}");
        }
        assert_eq!(TensorType::ALL.len(), 43 - 8);
    }

    #[test]
    fn block_bytes_match_the_quantizers_block_structs() {
        let cases = [
            (TensorType::Q8_0, size_of::<ggml::BlockQ8_0>()),
            (TensorType::Q4_0, size_of::<ggml::BlockQ4_0>()),
            (TensorType::Q4_1, size_of::<ggml::BlockQ4_1>()),
            (TensorType::Q5_0, size_of::<ggml::BlockQ5_0>()),
            (TensorType::Q5_1, size_of::<ggml::BlockQ5_1>()),
            (TensorType::MXFP4, size_of::<ggml::BlockMxfp4>()),
            (TensorType::Q2_K, q2_k::BLOCK_BYTES),
            (TensorType::Q3_K, q3_k::BLOCK_BYTES),
            (TensorType::Q4_K, q4_k::BLOCK_BYTES),
            (TensorType::Q5_K, q5_k::BLOCK_BYTES),
            (TensorType::Q6_K, q6_k::BLOCK_BYTES),
            (TensorType::NVFP4, nvfp4::BLOCK_BYTES),
            (TensorType::IQ4_NL, iq4_nl::BLOCK_BYTES),
        ];
        for (t, bytes) in cases {
            assert_eq!(t.block_bytes(), bytes as u64, "{t}");
        }
    }

    #[test]
    fn a_row_that_is_not_whole_blocks_has_no_size() {
        assert_eq!(
            TensorType::Q4_K.bytes_for(4096 * 4096),
            Some(4096 * 16 * 144)
        );
        assert_eq!(TensorType::Q4_K.bytes_for(100), None);
        assert_eq!(TensorType::F32.bytes_for(u64::MAX), None);
        assert_eq!(TensorType::Q4_K.bits_per_value(), 4.5);
    }
}
