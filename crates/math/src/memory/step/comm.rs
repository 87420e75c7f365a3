//! Bytes each GPU sends per training step, by kind of traffic, and the link each kind crosses.
//!
//! Collectives are costed as rings (NCCL's default for large messages): an all-reduce of S bytes
//! over N GPUs sends 2(N−1)/N·S bytes per GPU (a reduce-scatter then an all-gather, each
//! (N−1)/N·S), Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms for clusters of
//! workstations". The time of a transfer is its bytes divided by the link's one-direction
//! bandwidth; latency is ignored (it matters only for small messages).

use crate::memory::options::ZeroStage;
use serde::Serialize;

/// 400 Gb/s InfiniBand NDR per GPU, in bytes per second: one ConnectX-7 adapter per GPU in an
/// NVIDIA DGX H100 (DGX H100 datasheet: "8x single-port ConnectX-7, 400 Gb/s InfiniBand").
pub const INFINIBAND_NDR_BYTES_PER_S: u64 = 50_000_000_000;

/// The link a kind of traffic crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    /// NVLink/NVSwitch (AMD: Infinity Fabric) between GPUs of one node.
    Nvlink,
    /// PCIe: between GPUs of a node without NVLink, or between a GPU and its host.
    Pcie,
    /// The network between nodes (InfiniBand or RoCE), per GPU.
    InterNode,
}

impl Link {
    /// Short name for prose: "NVLink", "PCIe", "inter-node network".
    pub const fn label(self) -> &'static str {
        match self {
            Link::Nvlink => "NVLink",
            Link::Pcie => "PCIe",
            Link::InterNode => "inter-node network",
        }
    }
}

/// Ring fraction (N−1)/N of a reduce-scatter or all-gather over `n` GPUs (0 for one GPU).
pub fn ring_fraction(n: u64) -> f64 {
    if n <= 1 {
        0.0
    } else {
        (n - 1) as f64 / n as f64
    }
}

/// What one GPU holds of the model for data-parallel traffic: elements and bytes per element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shard {
    /// Gradient elements of this model-parallel rank (trainable parameters ÷ tp·pp).
    pub grad_elems: f64,
    /// Bytes per gradient element (2 for 16-bit training, 4 for FP32).
    pub grad_bytes: f64,
    /// Weight elements of this model-parallel rank (all parameters ÷ tp·pp).
    pub weight_elems: f64,
    /// Bytes per weight element as stored (2 for BF16, 0.5 for NF4 ...).
    pub weight_bytes: f64,
}

/// Data-parallel bytes one GPU sends per step, after Rajbhandari et al. 2020 ("ZeRO", section
/// 7): with Ψ the elements of this rank and N = `dp`,
///
/// - DDP (stage 0): one all-reduce of the gradients, 2Ψ·(N−1)/N, once per step (gradients
///   accumulate locally over the `micro_batches`);
/// - ZeRO-1: reduce-scatter of the gradients plus all-gather of the updated weights, 2Ψ, once;
/// - ZeRO-2: the gradients are sharded, so they are reduce-scattered after every micro-batch
///   (Ψ each), plus one all-gather of the weights: (m + 1)Ψ, 2Ψ for m = 1;
/// - ZeRO-3: every micro-batch all-gathers the weights in the forward pass and again in the
///   backward pass and reduce-scatters the gradients: 3Ψ per micro-batch, 1.5× DDP for m = 1.
///
/// Each Ψ carries the ring factor (N−1)/N. Inference (`training` false): ZeRO-3 gathers the
/// weights once per micro-batch, other stages send nothing.
pub fn data_parallel_bytes(
    zero: ZeroStage,
    dp: u64,
    micro_batches: u64,
    training: bool,
    shard: Shard,
) -> f64 {
    let ring = ring_fraction(dp);
    let m = micro_batches as f64;
    let grads = shard.grad_elems * shard.grad_bytes;
    let weights = shard.weight_elems * shard.weight_bytes;
    let volume = match (training, zero.0) {
        (false, 3) => m * weights,
        (false, _) => 0.0,
        (true, 0) => 2.0 * grads,
        (true, 1) => grads + weights,
        (true, 2) => m * grads + weights,
        (true, _) => m * (2.0 * weights + grads),
    };
    ring * volume
}

/// Tensor-parallel all-reduces per layer per micro-batch in Megatron-LM (Shoeybi et al. 2019,
/// section 3, figure 4): 2 in the forward pass (after attention and after the MLP), 2 in the
/// backward pass; full recomputation repeats the forward's 2. Inference: the forward's 2.
pub fn tensor_parallel_all_reduces(training: bool, full_recompute: bool) -> u64 {
    match (training, full_recompute) {
        (false, _) => 2,
        (true, false) => 4,
        (true, true) => 6,
    }
}

/// Tensor-parallel bytes one GPU sends per step: each all-reduce moves b·s·h activations of
/// `act_bytes` each, 2(t−1)/t of them per GPU, for every layer of this pipeline stage and every
/// micro-batch. Sequence parallelism replaces each all-reduce by a reduce-scatter and an
/// all-gather of the same volume (Korthikanti et al. 2022, section 4.2.2), so it does not change
/// this.
pub fn tensor_parallel_bytes(
    tp: u64,
    all_reduces_per_layer: u64,
    layers_on_stage: u64,
    micro_batches: u64,
    activation_bytes: f64,
) -> f64 {
    2.0 * ring_fraction(tp)
        * all_reduces_per_layer as f64
        * layers_on_stage as f64
        * micro_batches as f64
        * activation_bytes
}

/// Pipeline bubble as a fraction of the pipeline's time, (p − 1)/(v·m + p − 1) for p stages, m
/// micro-batches and v virtual stages per GPU (GPipe / 1F1B schedules, v = 1: Narayanan et al.
/// 2021, section 2.2.1, where the bubble is (p − 1)/m of the ideal compute time; the interleaved
/// schedule, section 2.2.2, divides it by v).
pub fn bubble_fraction(pp: u64, micro_batches: u64, vpp: u64) -> f64 {
    let (p, m, v) = (pp as f64, micro_batches as f64, vpp.max(1) as f64);
    (p - 1.0) / (v * m + p - 1.0)
}

/// Point-to-point bytes one GPU sends between pipeline stages per step: the b·s·h activation of
/// each micro-batch forward and its gradient backward, split over the tensor-parallel ranks by
/// the scatter/gather optimisation (Narayanan et al. 2021, section 4.1). Inference sends only
/// the forward activations. 0 without pipeline parallelism.
pub fn pipeline_bytes(
    pp: u64,
    tp: u64,
    micro_batches: u64,
    training: bool,
    activation_bytes: f64,
) -> f64 {
    if pp <= 1 {
        return 0.0;
    }
    let directions = if training { 2.0 } else { 1.0 };
    directions * micro_batches as f64 * activation_bytes / tp as f64
}

/// Context-parallel bytes one GPU sends per step, for ring attention (Megatron-LM's default
/// point-to-point context parallelism, torchtitan's ring): in each layer's forward pass every GPU
/// passes its chunk's keys and values (`kv_chunk_bytes`: 2 · b·s/c tokens · KV width, split over
/// tp by heads) round the ring c − 1 times; the backward pass passes them again and their
/// gradients back (twice the forward's volume); `forward_passes` counts a recomputed forward.
/// 0 without context parallelism.
pub fn context_parallel_bytes(
    cp: u64,
    tp: u64,
    layers_on_stage: u64,
    micro_batches: u64,
    kv_chunk_bytes: f64,
    training: bool,
    forward_passes: u64,
) -> f64 {
    if cp <= 1 {
        return 0.0;
    }
    let passes = forward_passes as f64 + if training { 2.0 } else { 0.0 };
    (cp - 1) as f64 * kv_chunk_bytes / tp as f64
        * passes
        * layers_on_stage as f64
        * micro_batches as f64
}

/// Expert-parallel all-to-all bytes one GPU sends per step: each MoE layer dispatches the k
/// routed copies of every token it holds (`routed_bytes`: tokens on this GPU × k × hidden ×
/// bytes per element) to the experts' GPUs and combines the results back, in the forward pass
/// and (their gradients) in the backward pass; under even routing (ep − 1)/ep of them leave the
/// GPU (Megatron-LM's all-to-all token dispatcher).
pub fn expert_all_to_all_bytes(
    ep: u64,
    moe_layers_on_stage: u64,
    micro_batches: u64,
    routed_bytes: f64,
    training: bool,
) -> f64 {
    let directions = if training { 4.0 } else { 2.0 };
    ring_fraction(ep)
        * directions
        * moe_layers_on_stage as f64
        * micro_batches as f64
        * routed_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard(psi: f64) -> Shard {
        Shard {
            grad_elems: psi,
            grad_bytes: 2.0,
            weight_elems: psi,
            weight_bytes: 2.0,
        }
    }

    #[test]
    fn one_gpu_sends_nothing() {
        assert_eq!(
            data_parallel_bytes(ZeroStage(3), 1, 4, true, shard(1e9)),
            0.0
        );
        assert_eq!(tensor_parallel_bytes(1, 4, 32, 1, 1e6), 0.0);
    }

    #[test]
    fn zero_two_reduces_gradients_every_micro_batch() {
        let ddp = data_parallel_bytes(ZeroStage(0), 8, 4, true, shard(1e9));
        let z2 = data_parallel_bytes(ZeroStage(2), 8, 4, true, shard(1e9));
        assert_eq!(z2 / ddp, 5.0 / 2.0);
    }

    #[test]
    fn ring_attention_passes_each_chunk_round_the_ring() {
        // 4 GPUs: each chunk moves 3 times forward; backward twice that.
        assert_eq!(context_parallel_bytes(4, 1, 1, 1, 1e6, true, 1), 9e6);
        assert_eq!(
            context_parallel_bytes(4, 2, 10, 2, 1e6, true, 2),
            3.0 * 5e5 * 4.0 * 20.0
        );
        assert_eq!(context_parallel_bytes(1, 1, 10, 1, 1e6, true, 1), 0.0);
    }

    #[test]
    fn the_all_to_all_sends_what_leaves_the_gpu() {
        assert_eq!(expert_all_to_all_bytes(8, 1, 1, 8e6, true), 7e6 * 4.0);
        assert_eq!(expert_all_to_all_bytes(1, 10, 1, 8e6, true), 0.0);
    }

    #[test]
    fn bubble_with_one_stage_is_zero() {
        assert_eq!(bubble_fraction(1, 1, 1), 0.0);
        // Interleaving 4 virtual stages: a quarter of the plain schedule's idle time.
        let (plain, interleaved) = (bubble_fraction(8, 16, 1), bubble_fraction(8, 16, 4));
        assert!((plain / (1.0 - plain) / (interleaved / (1.0 - interleaved)) - 4.0).abs() < 1e-12);
        assert_eq!(pipeline_bytes(1, 8, 8, true, 1e6), 0.0);
    }
}
