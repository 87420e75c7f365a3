//! Every WGSL source of the crate, loaded here and nowhere else (as `build.rs` copies them without
//! comments, line numbers kept). Each kernel family is one file
//! under `src/shaders/` named `<verb>_<format>.wgsl`; `common.wgsl` (the dispatch parameters and
//! exact f32 arithmetic on bit patterns) is prepended to each, then the bindings its verb shares:
//! `dequantize_bindings.wgsl` for every dequantizer, `quantize_bindings.wgsl` for every quantizer
//! but FP8, which declares its own (its `blocks` is atomic). The entry points are shared and
//! appended last (`entry_<name>.wgsl`): each calls the function its family's file defines
//! (`weight(i)`, `code_word(w)`, `block_words(b)`), so the dispatch guards live once. The kernels
//! that quantize one whole llama.cpp block per invocation (K-quants, IQ4_NL) get
//! `quantize_whole_blocks.wgsl` before their entry points: it defines `code_word` and
//! `block_words` around the file's `quantize_block(b)`, `block_byte(p)` and `block_bytes()`.
//! NVFP4 and MXFP4 get the FP4 options (`fp4_options.wgsl`, after its constants written from
//! bitbudget-math) before their file, and their dequantizers `dequantize_rotated.wgsl` (which
//! defines `weight(i)` around the file's `stored_weight(i)`) before their entry point.

use crate::tables::{RHT_ON, SR_ON};
use bitbudget_math::quant::fp4_options::{MIX32_MULTIPLIERS, MIX32_SHIFTS, UNIFORM_BITS};
use bitbudget_math::quant::ggml_blocks::QK;
use bitbudget_math::quant::iq4_nl::{BLOCK_BYTES as IQ4_NL_BYTES, QK4_NL};
use bitbudget_math::quant::kquants::{KType, QK_K};
use bitbudget_math::quant::layout::Layout;
use bitbudget_math::quant::rotation::{HADAMARD, HADAMARD_SCALE};
use bitbudget_math::quant::scheme::Scheme;

/// The prelude shared by every kernel.
const COMMON: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/common.wgsl"));

/// llama.cpp's block facts, as WGSL constants written from bitbudget-math (where they are defined
/// once): weights per block (`QK`, `QK4_NL`, `QK_K`) and the stored bytes of each K-quant
/// super-block (`Q2_K_BYTES` … `Q6_K_BYTES`) and of an IQ4_NL block (`IQ4_NL_BYTES`).
fn block_constants() -> String {
    let mut out = format!(
        "const QK: u32 = {QK}u;\nconst QK4_NL: u32 = {QK4_NL}u;\nconst QK_K: u32 = {QK_K}u;\nconst IQ4_NL_BYTES: u32 = {IQ4_NL_BYTES}u;\n"
    );
    for k in KType::ALL {
        let bytes = Layout::of(Scheme::KQuant(k), QK_K).block_bytes;
        out += &format!(
            "const {}_BYTES: u32 = {bytes}u;\n",
            k.name().to_ascii_uppercase()
        );
    }
    out
}

/// The FP4 options' arithmetic (rotation, hash, stochastic rounding), prepended to the NVFP4
/// and MXFP4 families after [`fp4_constants`].
const FP4_OPTIONS: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/fp4_options.wgsl"));

/// The NVFP4 and MXFP4 dequantizers' `weight(i)` around the family's `stored_weight(i)` (the
/// inverse rotation).
const DEQUANTIZE_ROTATED: &str =
    include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_rotated.wgsl"));

/// The FP4 options' facts as WGSL constants, written from bitbudget-math (`rotation`,
/// `fp4_options`) and tables.rs (the flag bits of `params.consts`).
fn fp4_constants() -> String {
    let [m0, m1] = MIX32_MULTIPLIERS;
    let [s0, s1, s2] = MIX32_SHIFTS;
    format!(
        "const HADAMARD: u32 = {HADAMARD}u;\nconst HADAMARD_SCALE: u32 = {:#x}u;\n\
         const MIX32_MULTIPLIER_0: u32 = {m0:#x}u;\nconst MIX32_MULTIPLIER_1: u32 = {m1:#x}u;\n\
         const MIX32_SHIFT_0: u32 = {s0}u;\nconst MIX32_SHIFT_1: u32 = {s1}u;\n\
         const MIX32_SHIFT_2: u32 = {s2}u;\nconst UNIFORM_BITS: u32 = {UNIFORM_BITS}u;\n\
         const RHT_ON: u32 = {RHT_ON}u;\nconst SR_ON: u32 = {SR_ON}u;\n",
        HADAMARD_SCALE.to_bits()
    )
}

/// The bindings shared by every dequantize kernel (the dequantize layout in layout.rs).
const DEQUANTIZE_BINDINGS: &str = include_str!(concat!(
    env!("OUT_DIR"),
    "/shaders/dequantize_bindings.wgsl"
));

/// The bindings shared by every quantize kernel whose `blocks` is plain `u32` (all but FP8).
const QUANTIZE_BINDINGS: &str =
    include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_bindings.wgsl"));

/// The `dequantize` entry point: one invocation per weight, calling the file's `weight(i)`.
const ENTRY_DEQUANTIZE: &str =
    include_str!(concat!(env!("OUT_DIR"), "/shaders/entry_dequantize.wgsl"));

/// The `quantize` entry point: one invocation per code word, calling the file's `code_word(w)`.
const ENTRY_QUANTIZE: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/entry_quantize.wgsl"));

/// The `measure` entry point: one invocation per block, calling the file's `block_words(b)`.
const ENTRY_MEASURE: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/entry_measure.wgsl"));

/// What the kernels that quantize a whole llama.cpp block per invocation share (`block_words`,
/// `code_word` around the file's `quantize_block`, `block_byte`, `block_bytes`).
const WHOLE_BLOCKS: &str = include_str!(concat!(
    env!("OUT_DIR"),
    "/shaders/quantize_whole_blocks.wgsl"
));

/// A kernel family: one WGSL file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Family {
    /// q8_0, q4_0, q4_1, q5_0, q5_1 (entry points `measure`, `quantize`).
    QuantizeGgml,
    /// MXFP4 (`measure`, `quantize`).
    QuantizeMxfp4,
    /// NF4 (`measure`, `quantize`, `double_quantize`).
    QuantizeNf4,
    /// Absmax INT8 (`measure`, `quantize`).
    QuantizeAbsmaxInt8,
    /// Zero-point UINT8 and 4-bit (`measure`, `quantize`).
    QuantizeZeroPoint,
    /// FP8 E4M3 and E5M2 (`measure`, `quantize`).
    QuantizeFp8,
    /// FP8 E4M3 with an FP32 scale per 1×128 tile (`measure`, `quantize`).
    QuantizeFp8Tile,
    /// FP8 E4M3 with an FP32 scale per 128×128 block (`measure`, `quantize`).
    QuantizeFp8Block,
    /// bf16 and f16 casts (`quantize`).
    QuantizeHalf,
    /// MXFP8 and MXFP6 (`measure`, `quantize`).
    QuantizeMx,
    /// NVFP4 (`measure`, `quantize`).
    QuantizeNvfp4,
    /// Q2_K … Q6_K (`measure`, `quantize`).
    QuantizeKQuant,
    /// IQ4_NL (`measure`, `quantize`).
    QuantizeIq4Nl,
    /// GGML dequantizers (`dequantize`).
    DequantizeGgml,
    /// MXFP4 (`dequantize`).
    DequantizeMxfp4,
    /// NF4 (`dequantize`).
    DequantizeNf4,
    /// Absmax INT8 (`dequantize`).
    DequantizeAbsmaxInt8,
    /// Zero-point (`dequantize`).
    DequantizeZeroPoint,
    /// FP8 (`dequantize`).
    DequantizeFp8,
    /// FP8 1×128 tiles (`dequantize`).
    DequantizeFp8Tile,
    /// FP8 128×128 blocks (`dequantize`).
    DequantizeFp8Block,
    /// bf16 and f16 (`dequantize`).
    DequantizeHalf,
    /// Q2_K … Q6_K (`dequantize`).
    DequantizeKQuant,
    /// IQ4_NL (`dequantize`).
    DequantizeIq4Nl,
    /// NVFP4 (`dequantize`).
    DequantizeNvfp4,
    /// MXFP8 and MXFP6 (`dequantize`).
    DequantizeMx,
    /// The lab's measuring pass (`tile_max`, `group_max`, `scan`, `measure_tiles`).
    MeasureLab,
    /// Test kernel: common.wgsl's exact f32 operations on operand pairs (`quantize`), run by
    /// arithmetic_check.rs's tests only.
    #[cfg_attr(not(all(test, not(target_arch = "wasm32"))), allow(dead_code))]
    CheckArithmetic,
}

impl Family {
    /// The file's name (for labels) and its text.
    fn file(self) -> (&'static str, &'static str) {
        match self {
            Family::QuantizeGgml => (
                "quantize_ggml",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_ggml.wgsl")),
            ),
            Family::QuantizeMxfp4 => (
                "quantize_mxfp4",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_mxfp4.wgsl")),
            ),
            Family::QuantizeNf4 => (
                "quantize_nf4",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_nf4.wgsl")),
            ),
            Family::QuantizeAbsmaxInt8 => (
                "quantize_absmax_int8",
                include_str!(concat!(
                    env!("OUT_DIR"),
                    "/shaders/quantize_absmax_int8.wgsl"
                )),
            ),
            Family::QuantizeZeroPoint => (
                "quantize_zeropoint",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_zeropoint.wgsl")),
            ),
            Family::QuantizeFp8 => (
                "quantize_fp8",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_fp8.wgsl")),
            ),
            Family::QuantizeFp8Tile => (
                "quantize_fp8_tile",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_fp8_tile.wgsl")),
            ),
            Family::QuantizeFp8Block => (
                "quantize_fp8_block",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_fp8_block.wgsl")),
            ),
            Family::QuantizeHalf => (
                "quantize_half",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_half.wgsl")),
            ),
            Family::QuantizeMx => (
                "quantize_mx",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_mx.wgsl")),
            ),
            Family::QuantizeNvfp4 => (
                "quantize_nvfp4",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_nvfp4.wgsl")),
            ),
            Family::QuantizeKQuant => (
                "quantize_kquant",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_kquant.wgsl")),
            ),
            Family::QuantizeIq4Nl => (
                "quantize_iq4_nl",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/quantize_iq4_nl.wgsl")),
            ),
            Family::DequantizeGgml => (
                "dequantize_ggml",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_ggml.wgsl")),
            ),
            Family::DequantizeMxfp4 => (
                "dequantize_mxfp4",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_mxfp4.wgsl")),
            ),
            Family::DequantizeNf4 => (
                "dequantize_nf4",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_nf4.wgsl")),
            ),
            Family::DequantizeAbsmaxInt8 => (
                "dequantize_absmax_int8",
                include_str!(concat!(
                    env!("OUT_DIR"),
                    "/shaders/dequantize_absmax_int8.wgsl"
                )),
            ),
            Family::DequantizeZeroPoint => (
                "dequantize_zeropoint",
                include_str!(concat!(
                    env!("OUT_DIR"),
                    "/shaders/dequantize_zeropoint.wgsl"
                )),
            ),
            Family::DequantizeFp8 => (
                "dequantize_fp8",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_fp8.wgsl")),
            ),
            Family::DequantizeFp8Tile => (
                "dequantize_fp8_tile",
                include_str!(concat!(
                    env!("OUT_DIR"),
                    "/shaders/dequantize_fp8_tile.wgsl"
                )),
            ),
            Family::DequantizeFp8Block => (
                "dequantize_fp8_block",
                include_str!(concat!(
                    env!("OUT_DIR"),
                    "/shaders/dequantize_fp8_block.wgsl"
                )),
            ),
            Family::DequantizeHalf => (
                "dequantize_half",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_half.wgsl")),
            ),
            Family::DequantizeKQuant => (
                "dequantize_kquant",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_kquant.wgsl")),
            ),
            Family::DequantizeIq4Nl => (
                "dequantize_iq4_nl",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_iq4_nl.wgsl")),
            ),
            Family::DequantizeNvfp4 => (
                "dequantize_nvfp4",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_nvfp4.wgsl")),
            ),
            Family::DequantizeMx => (
                "dequantize_mx",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/dequantize_mx.wgsl")),
            ),
            Family::MeasureLab => (
                "measure_lab",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/measure_lab.wgsl")),
            ),
            Family::CheckArithmetic => (
                "check_arithmetic",
                include_str!(concat!(env!("OUT_DIR"), "/shaders/check_arithmetic.wgsl")),
            ),
        }
    }

    /// The file name, without extension (shader module labels).
    pub(crate) fn name(self) -> &'static str {
        self.file().0
    }

    /// The bindings prepended to the family's file: empty for FP8 quantization, which declares
    /// its own.
    fn bindings(self) -> &'static str {
        match self {
            Family::QuantizeFp8 | Family::MeasureLab => "",
            f if f.is_dequantize() => DEQUANTIZE_BINDINGS,
            _ => QUANTIZE_BINDINGS,
        }
    }

    /// The shared entry points appended to the family's file: `dequantize` for dequantizers,
    /// `quantize` for every quantizer, and `measure` for the block quantizers (FP8 measures per
    /// weight into an atomic, in its own file; the 16-bit casts have nothing to measure).
    fn entries(self) -> &'static [&'static str] {
        match self {
            Family::DequantizeNvfp4 | Family::DequantizeMxfp4 => {
                &[DEQUANTIZE_ROTATED, ENTRY_DEQUANTIZE]
            }
            f if f.is_dequantize() => &[ENTRY_DEQUANTIZE],
            Family::MeasureLab => &[],
            Family::QuantizeFp8 | Family::QuantizeHalf | Family::CheckArithmetic => {
                &[ENTRY_QUANTIZE]
            }
            Family::QuantizeKQuant | Family::QuantizeIq4Nl => {
                &[WHOLE_BLOCKS, ENTRY_MEASURE, ENTRY_QUANTIZE]
            }
            _ => &[ENTRY_MEASURE, ENTRY_QUANTIZE],
        }
    }

    /// The FP4 options' constants and arithmetic for the NVFP4 and MXFP4 families, else nothing.
    fn options(self) -> String {
        match self {
            Family::QuantizeNvfp4
            | Family::QuantizeMxfp4
            | Family::DequantizeNvfp4
            | Family::DequantizeMxfp4 => format!("{}{FP4_OPTIONS}", fp4_constants()),
            _ => String::new(),
        }
    }

    /// The complete WGSL source: the prelude, the block constants, the shared bindings, the FP4
    /// options (NVFP4 and MXFP4), the family's file, then its shared entry points.
    pub(crate) fn source(self) -> String {
        let (_, file) = self.file();
        let entries = self.entries().join("\n");
        format!(
            "{COMMON}\n{}\n{}\n{}\n{file}\n{entries}",
            block_constants(),
            self.bindings(),
            self.options()
        )
    }

    /// Whether this family dequantizes (and so binds the dequantize layout).
    pub(crate) fn is_dequantize(self) -> bool {
        matches!(
            self,
            Family::DequantizeGgml
                | Family::DequantizeMxfp4
                | Family::DequantizeNf4
                | Family::DequantizeAbsmaxInt8
                | Family::DequantizeZeroPoint
                | Family::DequantizeFp8
                | Family::DequantizeFp8Tile
                | Family::DequantizeFp8Block
                | Family::DequantizeHalf
                | Family::DequantizeKQuant
                | Family::DequantizeIq4Nl
                | Family::DequantizeNvfp4
                | Family::DequantizeMx
        )
    }

    /// Every family (the shader validation test compiles them all).
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub(crate) const ALL: [Family; 28] = [
        Family::MeasureLab,
        Family::CheckArithmetic,
        Family::QuantizeGgml,
        Family::QuantizeMxfp4,
        Family::QuantizeNf4,
        Family::QuantizeAbsmaxInt8,
        Family::QuantizeZeroPoint,
        Family::QuantizeFp8,
        Family::QuantizeFp8Tile,
        Family::QuantizeFp8Block,
        Family::QuantizeHalf,
        Family::QuantizeMx,
        Family::QuantizeNvfp4,
        Family::QuantizeKQuant,
        Family::QuantizeIq4Nl,
        Family::DequantizeGgml,
        Family::DequantizeMxfp4,
        Family::DequantizeNf4,
        Family::DequantizeAbsmaxInt8,
        Family::DequantizeZeroPoint,
        Family::DequantizeFp8,
        Family::DequantizeFp8Tile,
        Family::DequantizeFp8Block,
        Family::DequantizeHalf,
        Family::DequantizeKQuant,
        Family::DequantizeIq4Nl,
        Family::DequantizeNvfp4,
        Family::DequantizeMx,
    ];
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// Parses and validates every kernel with naga (what wgpu does before handing it to the
    /// driver), so a WGSL error shows up even on a machine without an adapter.
    #[test]
    fn every_kernel_family_is_valid_wgsl() {
        for family in Family::ALL {
            let module = naga::front::wgsl::parse_str(&family.source()).unwrap_or_else(|e| {
                panic!("{}: {}", family.name(), e.emit_to_string(&family.source()))
            });
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}: {e:?}", family.name()));
            let entries: Vec<&str> = module
                .entry_points
                .iter()
                .map(|e| e.name.as_str())
                .collect();
            let expected: &[&str] = match family {
                Family::QuantizeHalf | Family::CheckArithmetic => &["quantize"],
                Family::MeasureLab => &["tile_max", "group_max", "scan", "measure_tiles"],
                Family::QuantizeNf4 => &["double_quantize", "measure", "quantize"],
                f if f.is_dequantize() => &["dequantize"],
                _ => &["measure", "quantize"],
            };
            assert_eq!(entries, expected, "{}", family.name());
        }
    }
}
