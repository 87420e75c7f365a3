//! One GPU's memory as the engine accounts for it: weights as stored, the profiling run's
//! activation peak, non-torch memory, CUDA graphs, and the KV cache as what remains.

use super::checkpoint::{gguf_file_tensors, weight_bytes, weight_bytes_of, WeightBytes};
use super::engine::Engine;
use super::kv::KvLayout;
use super::setup::{Knobs, ServeError, ServeSetup};
use super::tensor_placement::{parse_overrides, plan, FileTensor, PlacedBytes, Plan};
use crate::memory::model::arch::ModelArch;
use crate::memory::states::gguf_tensors::GgufArch;
use serde::Serialize;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The CUDA context and the libraries' handles, before any tensor: 512 MiB, the amount SGLang's
/// reserve sets aside for it (`_handle_gpu_memory_settings`). An assumption, not a measurement.
pub const CUDA_CONTEXT_BYTES: u64 = 512 * MIB;

/// Memory the engines' profilers count as "non-torch" beyond the context (cuBLAS workspaces,
/// NCCL buffers): 0.3 GiB, between vLLM's logged 0.35 GiB (one RTX 3090) and 0.25 GiB (each of two
/// RTX 4090s).
pub const NON_TORCH_BYTES: u64 = 3 * GIB / 10;

/// CUDA graph memory per captured batch size and per layer (plus one for the head): 384 KiB, fitted
/// to vLLM's log for gemma-3-4b (34 layers, 51 sizes: 0.65 GiB); Llama 4 Maverick's logged
/// ~1.3 GiB is 30% above what it gives.
pub const GRAPH_BYTES_PER_SIZE_LAYER: u64 = 384 << 10;

/// llama.cpp's default margin left free on each device when it fits `n_gpu_layers` and `n_ctx`
/// (`fit_params`, 1 GiB).
pub const LLAMA_CPP_MARGIN: u64 = GIB;

/// The smallest `n_ctx` llama.cpp's fitting lowers to (4096).
pub const LLAMA_CPP_MIN_CTX: u64 = 4096;

/// The memory CUDA reports as the device's total, which the engines' fractions multiply:
/// nvidia-smi's total less what the driver keeps. PyTorch's out-of-memory messages give 79.11 GiB
/// for an H100 80GB (553 MiB under nvidia-smi's 81,559 MiB) and 23.69 GiB for 24 GB cards (about
/// 310 MiB under 24,576 / 24,564 MiB); other cards take the figure of their size class.
pub fn cuda_total(capacity_bytes: u64) -> u64 {
    let kept = if capacity_bytes > 64 * GIB {
        553 * MIB
    } else {
        310 * MIB
    };
    capacity_bytes.saturating_sub(kept)
}

/// One GPU's memory, bytes. The JSON names are stable (`serve --json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PerGpu {
    /// Weights on this GPU as stored (scales included).
    pub weights: u64,
    /// The profiling run's activation peak (llama.cpp: its compute buffer).
    pub activations: u64,
    /// The CUDA context plus non-torch memory (NCCL, workspaces).
    pub non_torch: u64,
    /// Captured CUDA graphs.
    pub cuda_graphs: u64,
    /// The KV cache the engine allocates.
    pub kv_cache: u64,
    /// The sum of the above.
    pub total: u64,
}

/// What the budget comes to: the parts, the KV cache before clamping at 0 (negative when the
/// weights and activations already exceed the engine's share, as vLLM logs it), the context and
/// layer placement (llama.cpp fits both).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// The parts.
    pub per_gpu: PerGpu,
    /// KV bytes the engine's formula gives, negative when nothing is left.
    pub kv_signed: i128,
    /// Longest request (llama.cpp: `n_ctx` after fitting).
    pub max_model_len: u64,
    /// Blocks on the GPU (llama.cpp), else every block.
    pub gpu_layers: u64,
    /// llama.cpp's output head on the GPU.
    pub output_on_gpu: bool,
    /// Weight bytes by device and kind (llama.cpp's placement; the other engines hold every
    /// weight on the GPU).
    pub placed: PlacedBytes,
    /// The whole checkpoint.
    pub weights: WeightBytes,
}

/// Activation bytes of a forward pass over `tokens` tokens on one of `tp` GPUs, plus `seqs`
/// sequences' FP32 logits for sampling: per token, 2 bytes × (the widest of the MLP's
/// gate-and-up output with its activation, 3 × ffn of the active experts, or attention's Q, K, V
/// and output, split over tp; plus three hidden-wide tensors: the residual, its norm and the
/// sublayer's output). vLLM's logs for Llama 3.1 8B imply 2.10 and 3.02 GiB at 20,000 and 29,000
/// tokens (its total, less weights, non-torch memory and KV cache); this gives 2.18 and 3.11.
pub fn activation_peak(arch: &ModelArch, tp: u64, tokens: u64, seqs: u64) -> u64 {
    let routed = if arch.experts > 1 {
        arch.active_experts
    } else {
        1
    };
    let mlp = 3 * arch.ffn * (routed + arch.shared_experts);
    let attention = 2 * arch.q_width() + 2 * arch.kv_width();
    let per_token = 2 * (mlp.max(attention) / tp + 3 * arch.hidden);
    tokens.saturating_mul(per_token) + seqs.saturating_mul(arch.vocab) * 4
}

/// CUDA graph memory for the default capture list up to `max_batch` (vLLM: 1, 2, 4, then steps of
/// 8 below 256 and of 16 from 256: 51 sizes up to 512; SGLang's list is alike) on a GPU holding
/// `layers` blocks (a pipeline stage's).
pub fn cuda_graph_bytes(layers: u64, max_batch: u64) -> u64 {
    if max_batch == 0 {
        return 0;
    }
    let small = [1u64, 2, 4].iter().filter(|&&b| b <= max_batch).count() as u64;
    let by_8 = (8..max_batch.min(255) + 1).step_by(8).count() as u64;
    let by_16 = if max_batch >= 256 {
        (256..=max_batch).step_by(16).count() as u64
    } else {
        0
    };
    (small + by_8 + by_16) * (layers + 1) * GRAPH_BYTES_PER_SIZE_LAYER
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

fn fraction_of(bytes: u64, f: f64) -> u64 {
    (bytes as f64 * f).floor() as u64
}

/// The budget of `setup` with `knobs` resolved, and llama.cpp's placement plan that it fitted
/// (`None` for the other engines), so that the report lists the tensors without matching the
/// overrides again. Errors: an `-ot` pattern that takes too long to match.
pub fn budget(setup: &ServeSetup, knobs: &Knobs) -> Result<(Budget, Option<Plan>), ServeError> {
    let arch = &setup.arch;
    if setup.engine == Engine::LlamaCpp {
        return llama_cpp(setup, knobs).map(|(b, plan)| (b, Some(plan)));
    }
    let w = weight_bytes(arch, GgufArch::of_model(&setup.model_id), setup.checkpoint);
    let cap = setup
        .cuda_total_bytes
        .unwrap_or(cuda_total(setup.gpu.capacity_bytes));
    let tp = setup.tp;
    let (weights, gpu_experts) = gpu_weights(setup, &w);
    let activations = activation_peak(arch, tp, knobs.max_num_batched_tokens, knobs.max_num_seqs);
    let graphs = if knobs.cuda_graphs {
        cuda_graph_bytes(setup.stage_layers(), knobs.cuda_graph_max_batch)
    } else {
        0
    };
    let fraction = knobs.memory_fraction.unwrap_or(0.9);
    let non_torch = CUDA_CONTEXT_BYTES + NON_TORCH_BYTES;
    let kv_signed: i128 = match setup.engine {
        // requested = total × utilization; KV = requested − (weights + peak + non-torch).
        Engine::Vllm => {
            fraction_of(cap, fraction) as i128 - (weights + activations + NON_TORCH_BYTES) as i128
        }
        // rest = free_before_load × mem_fraction_static − weights.
        Engine::Sglang => fraction_of(cap - CUDA_CONTEXT_BYTES, fraction) as i128 - weights as i128,
        // KV = fraction × (free after weights and the profiling run).
        Engine::TrtLlm => {
            let free = cap as i128 - (non_torch + weights + activations) as i128;
            if free > 0 {
                (free as f64 * fraction).floor() as i128
            } else {
                free
            }
        }
        Engine::LlamaCpp => unreachable!("llama.cpp is sized by llama_cpp()"),
    };
    let kv_cache = kv_signed.max(0) as u64;
    let per_gpu = PerGpu {
        weights,
        activations,
        non_torch,
        cuda_graphs: graphs,
        kv_cache,
        total: weights + activations + non_torch + graphs + kv_cache,
    };
    Ok((
        Budget {
            per_gpu,
            kv_signed,
            max_model_len: knobs.max_model_len,
            gpu_layers: setup.stage_layers(),
            output_on_gpu: true,
            placed: PlacedBytes {
                gpu: weights,
                gpu_experts,
                ..PlacedBytes::default()
            },
            weights: w,
        },
        None,
    ))
}

/// The weights on the busiest GPU, bytes, and the routed experts' part of them: the heaviest
/// pipeline stage's blocks (⌈layers / pp⌉ of them, their share of the block bytes) with the
/// embedding or the head (the larger half of the rest; a tied pair is held whole at both ends),
/// split over `tp`, the routed experts over `tp × dp` under expert parallelism. One stage, no
/// expert parallelism: the checkpoint over `tp`, rounded up.
fn gpu_weights(setup: &ServeSetup, w: &WeightBytes) -> (u64, u64) {
    let tp = setup.tp;
    if setup.pp == 1 && !setup.expert_parallel {
        return (ceil_div(w.total, tp), ceil_div(w.experts, tp));
    }
    let layers = setup.arch.layers.max(1);
    let stage =
        |bytes: u64| (bytes as u128 * setup.stage_layers() as u128).div_ceil(layers as u128) as u64;
    let rest = w.total - w.blocks;
    let ends = if setup.pp == 1 || setup.arch.tied_embeddings {
        rest
    } else {
        rest.div_ceil(2)
    };
    let experts_over = if setup.expert_parallel {
        tp.saturating_mul(setup.dp)
    } else {
        tp
    };
    let experts = ceil_div(stage(w.experts), experts_over);
    (
        ceil_div(stage(w.blocks - w.experts) + ends, tp) + experts,
        experts,
    )
}

/// The tensors llama.cpp loads for `setup`: a GGUF file's own, or the architecture's in the
/// checkpoint's types.
fn llama_cpp_tensors(setup: &ServeSetup) -> Vec<FileTensor> {
    match &setup.model_file {
        Some(f) => f.tensors.clone(),
        None => gguf_file_tensors(
            &setup.arch,
            GgufArch::of_model(&setup.model_id),
            setup.checkpoint,
        ),
    }
}

fn plan_of(setup: &ServeSetup, tensors: &[FileTensor]) -> Result<Plan, ServeError> {
    let overrides = parse_overrides(&setup.tensor_overrides)
        .map_err(|e| ServeError::TensorOverride(e.to_string()))?;
    plan(
        tensors,
        setup.arch.layers.max(1),
        setup.cpu_moe_layers,
        &overrides,
    )
    .map_err(|e| ServeError::TensorOverride(format!("override-tensor: {e}")))
}

/// llama.cpp's compute buffer for `ubatch` tokens against `ctx` cells, bytes: FP32 rows of the
/// larger of the logits (vocabulary-wide) and, without flash attention, every head's scores
/// against the context (the graph allocator reuses one for the other), plus the MLP's and two
/// hidden-wide intermediates.
pub fn llama_cpp_compute(arch: &ModelArch, ubatch: u64, ctx: u64, flash_attention: bool) -> u64 {
    let scores = if flash_attention {
        0
    } else {
        arch.heads.saturating_mul(ctx)
    };
    let per_token = arch.vocab.max(scores) + arch.ffn + 2 * arch.hidden;
    ubatch.saturating_mul(per_token).saturating_mul(4)
}

/// llama.cpp: each tensor where [`super::tensor_placement`] puts it, the KV cache as `n_ctx`
/// cells on each GPU block, the compute buffer ([`llama_cpp_compute`]); `n_ctx` (when not given)
/// and `n_gpu_layers` (when not given) are the largest that leave [`LLAMA_CPP_MARGIN`] free,
/// `n_ctx` first and not below [`LLAMA_CPP_MIN_CTX`], as `fit_params` does.
fn llama_cpp(setup: &ServeSetup, knobs: &Knobs) -> Result<(Budget, Plan), ServeError> {
    let arch = &setup.arch;
    let cap = setup
        .cuda_total_bytes
        .unwrap_or(cuda_total(setup.gpu.capacity_bytes));
    let layers = arch.layers.max(1);
    let tensors = llama_cpp_tensors(setup);
    let plan = plan_of(setup, &tensors)?;
    let place = |ngl: u64, ctx: u64| -> (PerGpu, PlacedBytes) {
        let placed = plan.bytes(ngl);
        let kv = KvLayout {
            arch,
            tp: 1,
            dtype: setup.kv_dtype,
            layers: ngl.min(layers),
        };
        let kv_cache = kv.sequence_bytes(ctx);
        let compute = llama_cpp_compute(
            arch,
            knobs.max_num_batched_tokens,
            ctx,
            setup.flash_attention,
        );
        let p = PerGpu {
            weights: placed.gpu,
            activations: compute,
            non_torch: CUDA_CONTEXT_BYTES,
            cuda_graphs: 0,
            kv_cache,
            total: placed
                .gpu
                .saturating_add(compute)
                .saturating_add(CUDA_CONTEXT_BYTES)
                .saturating_add(kv_cache),
        };
        (p, placed)
    };
    let room = cap.saturating_sub(LLAMA_CPP_MARGIN);
    let mut ctx = knobs.max_model_len;
    if setup.max_model_len.is_none() {
        while ctx > LLAMA_CPP_MIN_CTX && place(layers + 1, ctx).0.total > room {
            ctx = (ctx / 2).max(LLAMA_CPP_MIN_CTX);
        }
    }
    let ngl = match setup.gpu_layers {
        Some(n) => n,
        None => (0..=layers + 1)
            .rev()
            .find(|&n| place(n, ctx).0.total <= room)
            .unwrap_or(0),
    };
    let (per_gpu, placed) = place(ngl, ctx);
    let budget = Budget {
        per_gpu,
        kv_signed: per_gpu.kv_cache as i128,
        max_model_len: ctx,
        gpu_layers: ngl.min(layers),
        output_on_gpu: ngl > layers,
        placed,
        weights: weight_bytes_of(&tensors),
    };
    Ok((budget, plan))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::find_model;

    #[test]
    fn the_default_capture_list_has_51_sizes_up_to_512() {
        let a = find_model("llama-3-8b").unwrap().arch;
        assert_eq!(
            cuda_graph_bytes(a.layers, 512),
            51 * 33 * GRAPH_BYTES_PER_SIZE_LAYER
        );
        assert_eq!(cuda_graph_bytes(a.layers, 0), 0);
    }

    #[test]
    fn llama_3_8b_activations_match_vllms_log_within_4_percent() {
        let a = find_model("llama-3-8b").unwrap().arch;
        let gib = |b: u64| b as f64 / GIB as f64;
        let at_20k = gib(activation_peak(&a, 1, 20_000, 256));
        let at_29k = gib(activation_peak(&a, 1, 29_000, 256));
        assert!((at_20k / 2.10 - 1.0).abs() < 0.04, "{at_20k}");
        assert!((at_29k / 3.02 - 1.0).abs() < 0.04, "{at_29k}");
    }
}
