//! Weights as a checkpoint stores them: which tensors a quantization method converts, at how many
//! bits, with their scales; the others (embeddings, output head, norms, MoE routers) stay BF16, as
//! every method's `modules_to_not_convert` or converter leaves them.

use super::tensor_placement::{block_of, is_expert, FileTensor};
use crate::memory::model::arch::ModelArch;
use crate::memory::options::Dtype;
use crate::memory::states::gguf_mix;
use crate::memory::states::gguf_tensors::{self, GgufArch};
use crate::named::named_enum;

named_enum! {
    /// How a checkpoint stores its weights.
    Checkpoint {
        /// BF16 throughout (the published checkpoints of most models).
        Bf16 = "bf16",
        /// FP16 throughout.
        Fp16 = "fp16",
        /// FP8 E4M3 block-scaled linears, one FP32 scale per 128 × 128 block (DeepSeek-V3's and
        /// Qwen3-FP8's `quant_method: fp8`, `weight_block_size [128, 128]`); the rest BF16.
        Fp8 = "fp8",
        /// INT8 linears with a BF16 scale per output row (W8A8, compressed-tensors); the rest BF16.
        Int8 = "int8",
        /// INT4 linears in groups of 128 with an FP16 scale and a 4-bit zero point each (AWQ,
        /// GPTQ): 4 + 20/128 bits per weight; the rest BF16.
        Int4 = "int4",
        /// MXFP4: 4-bit E2M1 with one E8M0 scale per 32 values (4.25 bits), on the MoE experts'
        /// matrices only (their biases stay BF16), as gpt-oss ships (`quant_method: mxfp4`); on
        /// every block linear of a dense model.
        Mxfp4 = "mxfp4",
        /// NVFP4: 4-bit E2M1 with an FP8 scale per 16 values and an FP32 scale per tensor (4.5
        /// bits), on the block linears; the rest BF16.
        Nvfp4 = "nvfp4",
        /// llama.cpp Q4_K_M: each tensor in the type `llama-quantize` gives it.
        Q4KM = "q4_k_m",
        /// llama.cpp Q5_K_M.
        Q5KM = "q5_k_m",
        /// llama.cpp Q6_K.
        Q6K = "q6_k",
        /// llama.cpp Q8_0.
        Q80 = "q8_0",
        /// llama.cpp Q4_0.
        Q40 = "q4_0",
        /// llama.cpp Q2_K.
        Q2K = "q2_k",
        /// llama.cpp Q3_K_S.
        Q3KS = "q3_k_s",
        /// llama.cpp Q3_K_M.
        Q3KM = "q3_k_m",
        /// llama.cpp Q3_K_L.
        Q3KL = "q3_k_l",
        /// llama.cpp Q4_1.
        Q41 = "q4_1",
        /// llama.cpp Q5_0.
        Q50 = "q5_0",
        /// llama.cpp Q5_1.
        Q51 = "q5_1",
        /// llama.cpp Q4_K_S.
        Q4KS = "q4_k_s",
        /// llama.cpp Q5_K_S.
        Q5KS = "q5_k_s",
        /// llama.cpp IQ4_NL.
        Iq4Nl = "iq4_nl",
        /// llama.cpp IQ4_XS.
        Iq4Xs = "iq4_xs",
    }
}

impl Checkpoint {
    /// The llama.cpp file type, for the GGUF checkpoints (the memory model's type of that name).
    pub fn gguf_dtype(self) -> Option<Dtype> {
        self.name().parse::<Dtype>().ok().filter(|d| d.is_gguf())
    }

    /// Bits per converted weight, scales included, as a fraction `(numerator, denominator)`:
    /// FP8 8 + 32/16384, INT8 8 + 16/hidden (≈ 8), INT4 4 + 20/128, MXFP4 4 + 8/32, NVFP4
    /// 4 + 8/16 (+ 32 per tensor, negligible and left out). `None` for the whole-model types.
    const fn converted_bits(self) -> Option<(u64, u64)> {
        match self {
            Checkpoint::Fp8 => Some((8 * 16384 + 32, 16384)),
            Checkpoint::Int8 => Some((8, 1)),
            Checkpoint::Int4 => Some((4 * 128 + 20, 128)),
            Checkpoint::Mxfp4 => Some((4 * 32 + 8, 32)),
            Checkpoint::Nvfp4 => Some((4 * 16 + 8, 16)),
            _ => None,
        }
    }

    /// Bits per weight of the bulk of the model, for labels ("4.25", "16").
    pub fn bits_label(self) -> String {
        match (self, self.converted_bits()) {
            (Checkpoint::Bf16 | Checkpoint::Fp16, _) => "16".into(),
            (_, Some((n, d))) => crate::numbers::short(n as f64 / d as f64, 4),
            (_, None) => match self.gguf_dtype().and_then(|d| d.gguf_type()) {
                Some(t) => {
                    crate::numbers::short(8.0 * t.block_bytes() as f64 / t.block_values() as f64, 4)
                }
                None => "16".into(),
            },
        }
    }
}

/// A checkpoint's bytes: the whole, the part in the transformer blocks (what llama.cpp's
/// `n_gpu_layers` moves), and the routed experts' part (what `--n-cpu-moe` keeps on the CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightBytes {
    /// Every tensor, bytes.
    pub total: u64,
    /// Tensors inside the blocks, bytes (the rest: embedding, final norm, output head).
    pub blocks: u64,
    /// The routed experts inside the blocks, bytes (0 for a dense model).
    pub experts: u64,
}

/// The bytes of `arch` stored as `checkpoint` (llama.cpp types laid out as `ga`), before any
/// split over GPUs. Block-linear and expert parameters come from [`ModelArch`]; converted bits are
/// rounded up to whole bytes per part.
pub fn weight_bytes(arch: &ModelArch, ga: GgufArch, checkpoint: Checkpoint) -> WeightBytes {
    let params = arch.params();
    let non_block = arch.non_layer_params();
    let block_params = params - non_block;
    let routed = |per_expert: u64| {
        arch.layers.saturating_sub(arch.dense_layers)
            * if arch.experts > 1 {
                arch.experts * per_expert
            } else {
                0
            }
    };
    let routed_params = routed(arch.expert_params());
    let routed_biases = routed(arch.expert_bias_params());
    if let Some(d) = checkpoint.gguf_dtype() {
        let total = gguf_mix::weight_bytes(arch, ga, d).unwrap_or(params.saturating_mul(2));
        // The GGUF rules type tensors one by one; split the total by parameter share.
        let share = |part: u64| (total as u128 * part as u128 / params.max(1) as u128) as u64;
        return WeightBytes {
            total,
            blocks: share(block_params),
            experts: share(routed_params),
        };
    }
    let bf16 = |p: u64| p.saturating_mul(2);
    match checkpoint.converted_bits() {
        None => WeightBytes {
            total: bf16(params),
            blocks: bf16(block_params),
            experts: bf16(routed_params),
        },
        Some((num, den)) => {
            let converted = |p: u64| (p as u128 * num as u128).div_ceil(8 * den as u128) as u64;
            // MXFP4 checkpoints convert only the experts' matrices when there are experts
            // (gpt-oss: `*_blocks` and `*_scales`; the expert biases stay BF16).
            let mxfp4_experts = checkpoint == Checkpoint::Mxfp4 && routed_params > 0;
            let linears = if mxfp4_experts {
                routed_params - routed_biases
            } else {
                arch.block_linear_params()
            };
            let kept_in_blocks = block_params - linears;
            let experts = if routed_params == 0 {
                0
            } else if mxfp4_experts {
                converted(linears) + bf16(routed_biases)
            } else {
                converted(routed_params)
            };
            let blocks = converted(linears) + bf16(kept_in_blocks);
            WeightBytes {
                total: blocks + bf16(non_block),
                blocks,
                experts,
            }
        }
    }
}

/// The tensors llama.cpp loads for `arch` stored as `checkpoint` (laid out as `ga`): each in the
/// type `llama-quantize` gives it for a llama.cpp file type, two bytes a value for BF16/FP16
/// files (their F32 norms, a few kilobytes, counted at two bytes too).
pub fn gguf_file_tensors(
    arch: &ModelArch,
    ga: GgufArch,
    checkpoint: Checkpoint,
) -> Vec<FileTensor> {
    match checkpoint
        .gguf_dtype()
        .and_then(|d| gguf_mix::typed_tensors(arch, ga, d))
    {
        Some(typed) => typed
            .into_iter()
            .map(|t| FileTensor {
                name: t.name,
                bytes: t.bytes,
            })
            .collect(),
        None => gguf_tensors::tensors(arch, ga)
            .into_iter()
            .map(|t| FileTensor {
                bytes: t.elements().saturating_mul(2),
                name: t.name,
            })
            .collect(),
    }
}

/// A file's bytes as [`WeightBytes`]: all, those of `blk.N` tensors, those of routed experts
/// (`_exps`). Saturating.
pub fn weight_bytes_of(tensors: &[FileTensor]) -> WeightBytes {
    let sum = |keep: &dyn Fn(&FileTensor) -> bool| {
        tensors
            .iter()
            .filter(|t| keep(t))
            .fold(0u64, |a, t| a.saturating_add(t.bytes))
    };
    WeightBytes {
        total: sum(&|_| true),
        blocks: sum(&|t| block_of(&t.name).is_some()),
        experts: sum(&|t| is_expert(&t.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::find_model;

    #[test]
    fn every_llama_cpp_file_type_is_a_checkpoint() {
        for d in Dtype::ALL.iter().filter(|d| d.is_gguf()) {
            let c: Checkpoint = d.name().parse().unwrap();
            assert_eq!(c.gguf_dtype(), Some(*d));
        }
        assert_eq!(Checkpoint::Int8.gguf_dtype(), None);
    }

    fn arch(id: &str) -> ModelArch {
        find_model(id).unwrap().arch
    }

    #[test]
    fn bf16_is_two_bytes_a_parameter() {
        let a = arch("llama-3-8b");
        let w = weight_bytes(&a, GgufArch::Llama, Checkpoint::Bf16);
        assert_eq!(w.total, 2 * a.params());
        assert_eq!(w.experts, 0);
    }

    #[test]
    fn int4_groups_cost_about_four_and_a_sixth_bits_on_the_linears() {
        let a = arch("llama-2-7b");
        let w = weight_bytes(&a, GgufArch::Llama, Checkpoint::Int4);
        let linears = a.block_linear_params();
        let expected = (linears as u128 * 532).div_ceil(1024) as u64 + 2 * (a.params() - linears);
        assert_eq!(w.total, expected);
        assert_eq!(Checkpoint::Int4.bits_label(), "4.156");
    }

    /// gpt-oss-120b as published: the 36 × 128 experts' matrices (3 × 2,880 × 2,880 each,
    /// 114,661,785,600 weights) in MXFP4 at 4.25 bits, 60,914,073,600 bytes; the other
    /// 2,167,371,072 parameters (attention, router, sinks, norms, expert biases, embedding and
    /// head) in BF16: 65,248,815,744 bytes = 60.77 GiB. vLLM's log for gpt-oss-120b on one H100
    /// ("Model loading took 65.9651 GiB", docs/research/serve_engines.md V6) is 5.2 GiB (8.5%)
    /// more: it is the GPU memory held after loading, once vLLM's MXFP4 layer has repacked the
    /// experts for its kernel (Marlin on H100, possibly padded), which these file sizes leave out.
    #[test]
    fn gpt_oss_120b_in_mxfp4_weighs_60_8_gib() {
        let a = arch("gpt-oss-120b");
        let w = weight_bytes(&a, GgufArch::Llama, Checkpoint::Mxfp4);
        let expert_matrices = 36 * 128 * 3 * 2880 * 2880;
        let expert_biases = 36 * 128 * (2 * 2880 + 2880);
        assert_eq!(expert_matrices, 114_661_785_600);
        assert_eq!(
            w.total,
            expert_matrices * 17 / 32 + 2 * (a.params() - expert_matrices)
        );
        assert_eq!(w.total, 65_248_815_744);
        assert_eq!(w.experts, expert_matrices * 17 / 32 + 2 * expert_biases);
        assert_eq!(w.total - w.blocks, 2 * a.non_layer_params());
        let gib = w.total as f64 / (1u64 << 30) as f64;
        assert!((gib - 60.77).abs() < 0.005, "{gib}");
    }

    #[test]
    fn gguf_checkpoints_are_sized_tensor_by_tensor() {
        let a = arch("llama-2-7b");
        let w = weight_bytes(&a, GgufArch::Llama, Checkpoint::Q40);
        let exact = gguf_mix::weight_bytes(&a, GgufArch::Llama, Dtype::Q40).unwrap();
        assert_eq!(w.total, exact);
        assert!(w.blocks < w.total);
    }
}
