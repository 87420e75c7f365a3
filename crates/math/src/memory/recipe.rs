//! FP8 and FP4 training recipes: which copies of each weight they keep, in what format, what they
//! save for the backward pass, and whose implementation each follows. Every fact is cited in
//! `docs/research/fp8_recipes.md`; the model states and activations read them from here.
//!
//! Widths are in [`UNIT`]s of 1/16384 byte per element, so that each format's scales are exact:
//! a 1×128 tile's FP32 scale adds 4/128 B per element (512 units), a 128×128 block's 4/16384 B
//! (4 units).

use super::model::arch::ModelArch;
use super::model::gpus::LowPrecisionCores;
use super::options::Precision;

/// Widths are counted in 1/16384 byte per element.
pub const UNIT: u64 = 16384;

/// A stored number format, with its scales.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// FP8 with one FP32 scale per tensor (its scale is a few bytes: not counted).
    Fp8Tensor,
    /// FP8 E4M3 with an FP32 scale per 1×128 tile (DeepSeek-V3's activations).
    Fp8Tile,
    /// FP8 E4M3 with an FP32 scale per 128×128 block (DeepSeek-V3's weights).
    Fp8Block,
    /// OCP MXFP8: E4M3 with an E8M0 scale per 32 values.
    Mxfp8,
    /// NVFP4: E2M1 with an E4M3 scale per 16 values (and one FP32 scale per tensor).
    Nvfp4,
    /// DeepSeek-V3's E5M6 (12 bits) for the attention output projection's input, with an FP32
    /// power-of-2 scale per 1×128 tile (the paper does not say how the scale is stored).
    E5m6Tile,
    /// BF16: the high-precision tensor itself.
    Bf16,
}

impl Format {
    /// Bytes per element in [`UNIT`]s, scales included.
    pub const fn width(self) -> u64 {
        match self {
            Format::Fp8Tensor => UNIT,
            Format::Fp8Tile | Format::Mxfp8 => UNIT + UNIT / 32,
            Format::Fp8Block => UNIT + 4,
            Format::Nvfp4 => UNIT / 2 + UNIT / 16,
            Format::E5m6Tile => UNIT * 3 / 2 + UNIT / 32,
            Format::Bf16 => 2 * UNIT,
        }
    }

    /// Its name in formulas: "FP8 1×128", "NVFP4".
    pub const fn label(self) -> &'static str {
        match self {
            Format::Fp8Tensor => "FP8",
            Format::Fp8Tile => "FP8 1×128",
            Format::Fp8Block => "FP8 128×128",
            Format::Mxfp8 => "MXFP8",
            Format::Nvfp4 => "NVFP4",
            Format::E5m6Tile => "E5M6 1×128",
            Format::Bf16 => "BF16",
        }
    }
}

/// Bytes per element of a width in [`UNIT`]s, as text: "1", "1.03125", "0.5625".
pub fn width_text(width: u64) -> String {
    let text = format!("{:.6}", width as f64 / UNIT as f64);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Which copies of a quantized weight a recipe keeps beside its high-precision one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightCopies {
    /// One per-tensor copy, plus a transposed one on GPUs whose FP8 matmuls are TN only.
    PerTensor,
    /// Two copies, one per orientation (block scales along rows differ from those along columns).
    BothOrientations,
    /// None kept: the weight is cast in each matmul and the cast freed (torchao, eager).
    Transient,
}

/// Which tensor peak the recipe's matmuls run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatmulPeak {
    /// The FP8 tensor peak.
    Fp8,
    /// The FP4 tensor peak.
    Fp4,
}

/// One FP8 or FP4 training recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// Its `--precision` value.
    pub precision: Precision,
    /// The implementation and version it follows.
    pub follows: &'static str,
    /// The format of its weight copies.
    pub weight_format: Format,
    /// Which weight copies it keeps.
    pub weight_copies: WeightCopies,
    /// The format a linear layer's input is saved in for the backward pass.
    pub saved_input: Format,
    /// The format of the attention output projection's saved input.
    pub attention_out_input: Format,
    /// SwiGLU's inputs are saved in the low-precision format and its output recomputed in the
    /// backward pass (DeepSeek-V3, section 3.3.3).
    pub swiglu_recomputed: bool,
    /// Entries of the amax history each FP8 tensor keeps (0: no history).
    pub amax_history: u64,
    /// The parameters themselves are FP32 (torchtitan's FSDP2): no separate master copy, and the
    /// 16-bit weights exist only while a layer runs.
    pub fp32_params: bool,
    /// Percent of the transformer blocks, the last ones, kept in BF16.
    pub bf16_blocks_percent: u64,
    /// Needs Blackwell's block-scaled tensor cores.
    pub needs_blackwell: bool,
    /// The tensor peak its quantized matmuls run at.
    pub peak: MatmulPeak,
    /// One sentence on what it keeps, for the weights' hover text.
    pub summary: &'static str,
}

/// Transformer Engine's default amax history length (`DelayedScaling.amax_history_len`).
pub const TE_AMAX_HISTORY: u64 = 1024;
/// Amax-history rows per GEMM: input, weight and output in the forward pass, the output's and the
/// input's gradients in the backward pass (`DelayedScalingRecipeState`), one FP32 each.
pub const AMAX_ROWS_PER_GEMM: u64 = 5;

/// The recipe behind `precision`, or `None` for the 16- and 32-bit recipes.
pub fn recipe(precision: Precision) -> Option<Recipe> {
    let te = Recipe {
        precision,
        follows: "",
        weight_format: Format::Fp8Tensor,
        weight_copies: WeightCopies::PerTensor,
        saved_input: Format::Fp8Tensor,
        attention_out_input: Format::Fp8Tensor,
        swiglu_recomputed: false,
        amax_history: 0,
        fp32_params: false,
        bf16_blocks_percent: 0,
        needs_blackwell: false,
        peak: MatmulPeak::Fp8,
        summary: "",
    };
    Some(match precision {
        Precision::Mixed | Precision::Autocast | Precision::Pure => return None,
        Precision::Fp8Delayed => Recipe {
            follows: "Transformer Engine 2.x DelayedScaling (amax_history_len 1024, HYBRID: E4M3 forward, E5M2 gradients) through Megatron-LM core 0.20",
            amax_history: TE_AMAX_HISTORY,
            summary: "Transformer Engine keeps the 16-bit weight and casts it to FP8 for the matmuls; the FP8 copy (and on Ada/Hopper its transpose, for the backward matmuls) is saved for the backward pass, and every FP8 tensor keeps an amax history of 1024 steps.",
            ..te
        },
        Precision::Fp8Current => Recipe {
            follows: "Transformer Engine 2.x Float8CurrentScaling (Megatron-LM core 0.20 --fp8-recipe tensorwise)",
            summary: "Transformer Engine keeps the 16-bit weight and casts it to FP8 with a scale from the tensor itself; the FP8 copy (and on Ada/Hopper its transpose) is saved for the backward pass.",
            ..te
        },
        Precision::Fp8Rowwise => Recipe {
            follows: "torchao 0.19 float8 rowwise (Float8LinearConfig.from_recipe_name(\"rowwise\")) under torchtitan's FSDP2 (FP32 parameters, BF16 compute)",
            weight_copies: WeightCopies::Transient,
            saved_input: Format::Bf16,
            attention_out_input: Format::Bf16,
            fp32_params: true,
            summary: "torchtitan keeps FP32 parameters (their own master copy) and casts each layer to BF16 and then to FP8 with a scale per row as it runs; eager torchao saves the BF16 input and weight and casts them again in the backward pass.",
            ..te
        },
        Precision::Fp8Blockwise => Recipe {
            follows: "DeepSeek-V3 (arXiv:2412.19437, section 3.3), as Transformer Engine 2.x Float8BlockScaling implements it (Megatron-LM core 0.20 --fp8-recipe blockwise)",
            weight_format: Format::Fp8Block,
            weight_copies: WeightCopies::BothOrientations,
            saved_input: Format::Fp8Tile,
            attention_out_input: Format::E5m6Tile,
            swiglu_recomputed: true,
            summary: "Transformer Engine keeps the 16-bit weight and both orientations of its FP8 copy in 128×128 blocks with FP32 scales, made in advance; DeepSeek-V3 saves activations as FP8 1×128 tiles, the attention output's in E5M6, and recomputes SwiGLU's output.",
            ..te
        },
        Precision::Mxfp8 => Recipe {
            follows: "Transformer Engine 2.x MXFP8BlockScaling (Blackwell, OCP MX v1.0)",
            weight_format: Format::Mxfp8,
            weight_copies: WeightCopies::BothOrientations,
            saved_input: Format::Mxfp8,
            attention_out_input: Format::Mxfp8,
            needs_blackwell: true,
            summary: "Transformer Engine keeps the 16-bit weight and two MXFP8 copies, one scaled along rows (forward) and one along columns (backward): the two are numerically different and each is quantized from the 16-bit weight.",
            ..te
        },
        Precision::Nvfp4 => Recipe {
            follows: "NVFP4 pretraining (arXiv:2509.25149, section 4) as Transformer Engine 2.x NVFP4BlockScaling implements it (16×16 weight blocks, random Hadamard transform and stochastic rounding on the weight-gradient inputs)",
            weight_format: Format::Nvfp4,
            weight_copies: WeightCopies::BothOrientations,
            saved_input: Format::Nvfp4,
            attention_out_input: Format::Nvfp4,
            bf16_blocks_percent: 15,
            needs_blackwell: true,
            peak: MatmulPeak::Fp4,
            summary: "Transformer Engine keeps the 16-bit weight and NVFP4 copies for both orientations (16×16 blocks with E4M3 scales), each computed from the 16-bit weight; the last 15% of the blocks stay in BF16, as the paper keeps them.",
            ..te
        },
    })
}

impl Recipe {
    /// Quantized copies of each weight kept on a GPU with `cores` (`None`: no GPU chosen, counted
    /// as Hopper).
    pub fn orientations(&self, cores: Option<LowPrecisionCores>) -> u64 {
        match self.weight_copies {
            WeightCopies::Transient => 0,
            WeightCopies::BothOrientations => 2,
            WeightCopies::PerTensor => match cores {
                Some(LowPrecisionCores::Blackwell { .. }) => 1,
                _ => 2,
            },
        }
    }

    /// Blocks kept in BF16 out of `layers` (the last ones), rounded up.
    pub fn bf16_blocks(&self, layers: u64) -> u64 {
        (layers * self.bf16_blocks_percent)
            .div_ceil(100)
            .min(layers)
    }

    /// Block-linear parameters of `arch` whose matmuls run in the recipe's format.
    pub fn quantized_params(&self, arch: &ModelArch) -> u64 {
        let layers = arch.layers.max(1) as u128;
        let kept = (layers - self.bf16_blocks(arch.layers) as u128).min(layers);
        (arch.block_linear_params() as u128 * kept / layers) as u64
    }

    /// Linear layers (GEMMs) of one block, as Transformer Engine's modules count them: the fused
    /// QKV (or MLA's down- and up-projections) and the output projection, and two per expert (the
    /// fused gate/up and the down projection), shared experts included.
    pub fn gemms_per_block(arch: &ModelArch) -> u64 {
        let attention = match arch.mla {
            Some(m) if m.q_lora_rank > 0 => 4,
            Some(_) => 3,
            None => 2,
        };
        attention + 2 * (arch.experts.max(1) + arch.shared_experts)
    }
}

/// Why the FP8 (or FP4) all-gather of the parameters cannot be on with `precision` and ZeRO
/// `stage`, as a sentence the page shows beside the option and the setup's refusal quotes; `None`
/// when it can: it needs a recipe with quantized weights, tensorwise scales where torchao
/// gathers, and a sharded optimizer.
pub fn param_gather_refused(precision: Precision, stage: u8) -> Option<&'static str> {
    match precision {
        p if !p.is_low() => Some("Only the FP8 and FP4 recipes keep quantized weights to gather"),
        Precision::Fp8Rowwise => {
            Some("torchao gathers FP8 weights with tensorwise scaling only (fp8-current); rowwise gathers in BF16")
        }
        _ if stage == 0 => Some(
            "Needs a sharded optimizer: ZeRO 1 or above (Megatron-LM's distributed optimizer, FSDP)",
        ),
        _ => None,
    }
}

/// Why the recipe cannot run as asked on `cores`, if it cannot: the recipe still sizes, with
/// this said beside it.
pub fn unsupported(recipe: &Recipe, cores: LowPrecisionCores, gpu: &str) -> Option<String> {
    match cores {
        LowPrecisionCores::None => Some(format!(
            "{gpu} has no FP8 tensor cores (they start with Ada and Hopper): Transformer Engine and torchao refuse the {} recipe there; the memory is what it would take",
            recipe.precision
        )),
        LowPrecisionCores::Fp8Tn { .. } if recipe.needs_blackwell => Some(format!(
            "the {} recipe needs Blackwell's block-scaled tensor cores (SM 10.0): Transformer Engine refuses it on {gpu}; the memory is what it would take",
            recipe.precision
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes per element the research notes derive from each format's block and scale.
    #[test]
    fn widths_match_the_block_and_scale_sizes() {
        assert_eq!(width_text(Format::Fp8Tensor.width()), "1");
        assert_eq!(width_text(Format::Fp8Tile.width()), "1.03125");
        assert_eq!(width_text(Format::Mxfp8.width()), "1.03125");
        assert_eq!(width_text(Format::Fp8Block.width()), "1.000244");
        assert_eq!(width_text(Format::Nvfp4.width()), "0.5625");
        assert_eq!(width_text(Format::Bf16.width()), "2");
    }

    #[test]
    fn every_low_recipe_has_facts_and_the_others_none() {
        for p in Precision::ALL {
            assert_eq!(recipe(*p).is_some(), p.is_low(), "{p}");
        }
        for p in Precision::LOW {
            let r = recipe(p).unwrap();
            assert!(!r.follows.is_empty() && !r.summary.is_empty(), "{p}");
        }
    }

    #[test]
    fn per_tensor_fp8_needs_a_transpose_before_blackwell_only() {
        let r = recipe(Precision::Fp8Delayed).unwrap();
        let hopper = LowPrecisionCores::Fp8Tn { fp8_flops_per_s: 1 };
        let blackwell = LowPrecisionCores::Blackwell {
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
        };
        assert_eq!(r.orientations(Some(hopper)), 2);
        assert_eq!(r.orientations(Some(blackwell)), 1);
        assert_eq!(r.orientations(None), 2);
        let mx = recipe(Precision::Mxfp8).unwrap();
        assert_eq!(mx.orientations(Some(blackwell)), 2);
        assert!(unsupported(&mx, hopper, "H100")
            .unwrap()
            .contains("Blackwell"));
        assert!(unsupported(&mx, blackwell, "B200").is_none());
    }

    #[test]
    fn nvfp4_keeps_the_last_15_percent_of_blocks_in_bf16() {
        let r = recipe(Precision::Nvfp4).unwrap();
        assert_eq!(r.bf16_blocks(32), 5);
        assert_eq!(r.bf16_blocks(62), 10);
        assert_eq!(recipe(Precision::Fp8Current).unwrap().bf16_blocks(32), 0);
    }
}
