//! GPU presets: memory capacity in bytes as the device reports it, and the speeds the step-time
//! model needs (memory bandwidth, dense 16-bit tensor peak, NVLink and PCIe bandwidth), each from
//! the vendor's datasheet or whitepaper.

use serde::Serialize;

/// A named accelerator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GpuPreset {
    /// Identifier used by the CLI and URLs (`h100-80gb`).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Memory the device reports, in bytes.
    pub capacity_bytes: u64,
    /// Where the number comes from, and caveats.
    pub source: &'static str,
    /// Peak memory (HBM, GDDR or unified LPDDR) bandwidth from the vendor's datasheet, in bytes per
    /// second, decimal as vendors quote it (3.35 TB/s = 3,350,000,000,000 B/s).
    pub memory_bytes_per_s: u64,
    /// Dense (no structured sparsity) BF16 tensor-core peak in FLOP/s, or FP16 where the part has
    /// no BF16 (T4, V100). `None` where the vendor publishes no such figure (Apple).
    pub dense_16bit_flops_per_s: Option<u64>,
    /// GPU-to-GPU bandwidth inside a node over NVLink/NVSwitch (AMD: Infinity Fabric), bytes per
    /// second in each direction per GPU. `None` when GPUs in a node talk over PCIe.
    pub nvlink_bytes_per_s: Option<u64>,
    /// Host link (PCIe x16) bandwidth in bytes per second in each direction. `None` for unified
    /// memory, where nothing crosses a bus.
    pub pcie_bytes_per_s: Option<u64>,
    /// Where the four speeds come from.
    pub speeds_source: &'static str,
    /// What its tensor cores do below 16 bits (FP8, FP4), with the dense peaks.
    pub low_precision: LowPrecisionCores,
}

/// What a GPU's tensor cores do below 16 bits, which decides the copies an FP8 or FP4 training
/// recipe keeps and how fast its matmuls run. Peaks are dense (no structured sparsity) FLOP/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LowPrecisionCores {
    /// No FP8 tensor cores (Volta, Turing, Ampere, Apple): FP8 recipes refuse to run.
    None,
    /// FP8 matmuls that read both operands K-major only ("TN"): Ada, Hopper, CDNA 3. A per-tensor
    /// FP8 weight needs a physically transposed FP8 copy for the backward matmuls
    /// (Transformer Engine's `performance_considerations.rst`). No MX or NVFP4 block scaling.
    Fp8Tn {
        /// Dense FP8 tensor peak, FLOP/s.
        fp8_flops_per_s: u64,
    },
    /// Blackwell: FP8 in either layout (one per-tensor FP8 copy serves both), MXFP8 and NVFP4
    /// block scaling, FP4 matmuls. `None` where the vendor's figure is not recorded here.
    Blackwell {
        /// Dense FP8 tensor peak, FLOP/s.
        fp8_flops_per_s: Option<u64>,
        /// Dense FP4 tensor peak, FLOP/s.
        fp4_flops_per_s: Option<u64>,
    },
}

impl LowPrecisionCores {
    /// Dense FP8 tensor peak, FLOP/s, if recorded.
    pub fn fp8_flops_per_s(self) -> Option<u64> {
        match self {
            LowPrecisionCores::None => None,
            LowPrecisionCores::Fp8Tn { fp8_flops_per_s } => Some(fp8_flops_per_s),
            LowPrecisionCores::Blackwell {
                fp8_flops_per_s, ..
            } => fp8_flops_per_s,
        }
    }

    /// Dense FP4 tensor peak, FLOP/s, if the part has FP4 tensor cores and the figure is recorded.
    pub fn fp4_flops_per_s(self) -> Option<u64> {
        match self {
            LowPrecisionCores::Blackwell {
                fp4_flops_per_s, ..
            } => fp4_flops_per_s,
            _ => None,
        }
    }
}

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
/// 10^12 FLOP/s.
const TFLOPS: u64 = 1_000_000_000_000;
/// 10^9 bytes per second (vendors quote link speeds in decimal GB/s).
const GB_S: u64 = 1_000_000_000;

/// Speeds of one part: memory bytes/s, dense 16-bit tensor FLOP/s, NVLink and PCIe bytes/s per
/// direction, source.
type Speeds = (u64, Option<u64>, Option<u64>, Option<u64>, &'static str);

/// PCIe 3.0 x16: 8 GT/s × 16 lanes × 128/130 encoding = 15.75 GB/s per direction (PCI-SIG).
const PCIE3_X16: u64 = 15_750_000_000;
/// PCIe 4.0 x16: 16 GT/s × 16 × 128/130 = 31.5 GB/s per direction (vendors round to "64 GB/s"
/// bidirectional).
const PCIE4_X16: u64 = 31_500_000_000;
/// PCIe 5.0 x16: 32 GT/s × 16 × 128/130 = 63 GB/s per direction ("128 GB/s" bidirectional).
const PCIE5_X16: u64 = 63_000_000_000;

/// Speeds of each preset, by id. Memory bandwidths are the datasheet peaks, in decimal GB/s or
/// TB/s as vendors print them. Sparse figures in datasheets ("with sparsity", marked *) are
/// halved to the dense figure.
fn speeds(id: &str) -> Speeds {
    match id {
        // NVIDIA T4 datasheet: 320 GB/s GDDR6; mixed precision (FP16/FP32) 65 TFLOPS (Turing has
        // no BF16 and no sparsity); PCIe Gen3 x16; no NVLink.
        "t4" => (320 * GB_S, Some(65 * TFLOPS), None, Some(PCIE3_X16), "NVIDIA T4 datasheet: 320 GB/s GDDR6; 65 TFLOPS FP16 tensor; PCIe Gen3 x16"),
        // NVIDIA L4 datasheet: 300 GB/s GDDR6; BF16 tensor 242 TFLOPS* (*with sparsity) = 121
        // dense; PCIe Gen4 x16 (64 GB/s bidirectional); no NVLink.
        "l4" => (300 * GB_S, Some(121 * TFLOPS), None, Some(PCIE4_X16), "NVIDIA L4 datasheet: 300 GB/s GDDR6; 242 TFLOPS BF16 with sparsity, 121 dense; PCIe Gen4 x16"),
        // NVIDIA Ampere GA102 whitepaper, RTX 3090: 936 GB/s GDDR6X; peak BF16 /
        // FP16-with-FP32-accumulate tensor 71 TFLOPS dense (142 sparse). Its NVLink bridge joins
        // two cards only: treated as PCIe.
        "rtx-3090" => (936 * GB_S, Some(71 * TFLOPS), None, Some(PCIE4_X16), "NVIDIA GA102 whitepaper: 936 GB/s GDDR6X; 71 TFLOPS BF16 tensor (FP32 accumulate), dense; PCIe Gen4 x16 (the 2-card NVLink bridge is not modelled)"),
        // NVIDIA Ada (AD102) whitepaper, RTX 4090: 1,008 GB/s GDDR6X; peak BF16 /
        // FP16-with-FP32-accumulate tensor 165.2 TFLOPS dense (330.4 sparse); no NVLink.
        "rtx-4090" => (1_008 * GB_S, Some(165_200_000_000_000), None, Some(PCIE4_X16), "NVIDIA Ada whitepaper: 1,008 GB/s GDDR6X; 165.2 TFLOPS BF16 tensor (FP32 accumulate), dense; PCIe Gen4 x16, no NVLink"),
        // NVIDIA L40S datasheet: 864 GB/s GDDR6; BF16 tensor 733 TFLOPS* (with sparsity) = 366.5
        // dense; NVIDIA's product page lists 362.05 dense; PCIe Gen4 x16; no NVLink.
        "l40s" => (864 * GB_S, Some(362_050_000_000_000), None, Some(PCIE4_X16), "NVIDIA L40S datasheet: 864 GB/s GDDR6; 362.05 TFLOPS BF16 dense (733 with sparsity); PCIe Gen4 x16, no NVLink"),
        // NVIDIA RTX Blackwell (GB202) architecture whitepaper, RTX 5090: 1,792 GB/s GDDR7; BF16 /
        // FP16 with FP32 accumulate 209.5 TFLOPS dense (419 with FP16 accumulate); PCIe Gen5 x16;
        // no NVLink.
        "rtx-5090" => (1_792 * GB_S, Some(209_500_000_000_000), None, Some(PCIE5_X16), "NVIDIA RTX Blackwell whitepaper: 1,792 GB/s GDDR7; 209.5 TFLOPS BF16 tensor (FP32 accumulate), dense; PCIe Gen5 x16, no NVLink"),
        // NVIDIA RTX A6000 datasheet: 768 GB/s GDDR6; 309.7 TFLOPS tensor with sparsity = 154.8
        // dense; PCIe Gen4 x16; its NVLink bridge joins two cards only: treated as PCIe.
        "rtx-a6000" => (768 * GB_S, Some(154_800_000_000_000), None, Some(PCIE4_X16), "NVIDIA RTX A6000 datasheet: 768 GB/s GDDR6; 309.7 TFLOPS tensor with sparsity, 154.8 dense; PCIe Gen4 x16 (the 2-card NVLink bridge is not modelled)"),
        // NVIDIA H100 NVL: 3.9 TB/s HBM3; 1,671 TFLOPS BF16 with sparsity = 835 dense; a PCIe
        // Gen5 card whose NVLink bridge joins pairs only: treated as PCIe.
        "h100-nvl" => (3_900 * GB_S, Some(835 * TFLOPS), None, Some(PCIE5_X16), "NVIDIA H100 NVL: 3.9 TB/s HBM3; 1,671 TFLOPS BF16 with sparsity, 835 dense; PCIe Gen5 x16 (the 2-card NVLink bridge is not modelled)"),
        // AWS's A10G has no NVIDIA datasheet: AWS gives 600 GB/s GDDR6 for the g5 instances, and
        // no tensor peak (the A10's 125 TFLOPS is another part): no step time rather than a
        // borrowed figure. PCIe Gen4 x16.
        "a10g" => (600 * GB_S, None, None, Some(PCIE4_X16), "NVIDIA publishes no A10G datasheet: 600 GB/s GDDR6 is AWS's figure; no tensor peak recorded (step time not estimated); PCIe Gen4 x16"),
        // NVIDIA V100 datasheet (SXM2): 900 GB/s HBM2; 125 TFLOPS tensor (FP16; no BF16, no
        // sparsity); NVLink 2 300 GB/s bidirectional = 150 GB/s per direction; PCIe Gen3.
        "v100-32gb" => (900 * GB_S, Some(125 * TFLOPS), Some(150 * GB_S), Some(PCIE3_X16), "NVIDIA V100 datasheet (SXM2): 900 GB/s HBM2; 125 TFLOPS FP16 tensor; NVLink 300 GB/s bidirectional; PCIe Gen3 x16"),
        // NVIDIA A100 datasheet: 40 GB HBM2 at 1,555 GB/s; BF16 tensor 312 TFLOPS dense (624*).
        // The 40 GB preset is the PCIe card (see its capacity source), whose NVLink bridge joins
        // pairs only: treated as PCIe.
        "a100-40gb" => (1_555 * GB_S, Some(312 * TFLOPS), None, Some(PCIE4_X16), "NVIDIA A100 datasheet: 1,555 GB/s HBM2; 312 TFLOPS BF16 dense; PCIe card, Gen4 x16 (the 2-card NVLink bridge is not modelled)"),
        // NVIDIA A100 datasheet (80GB SXM): 2,039 GB/s HBM2e (the 80GB PCIe card: 1,935); 312
        // TFLOPS BF16 dense; NVLink 3 600 GB/s bidirectional = 300 per direction; PCIe Gen4 x16.
        "a100-80gb" => (2_039 * GB_S, Some(312 * TFLOPS), Some(300 * GB_S), Some(PCIE4_X16), "NVIDIA A100 datasheet (SXM): 2,039 GB/s HBM2e (the PCIe card: 1,935); 312 TFLOPS BF16 dense; NVLink 600 GB/s bidirectional; PCIe Gen4 x16"),
        // NVIDIA H100 datasheet (SXM): 3.35 TB/s HBM3; BF16 tensor 1,979 TFLOPS* = 989.5 dense;
        // NVLink 4 900 GB/s bidirectional = 450 per direction; PCIe Gen5 x16.
        "h100-80gb" => (3_350 * GB_S, Some(989_500_000_000_000), Some(450 * GB_S), Some(PCIE5_X16), "NVIDIA H100 datasheet (SXM): 3.35 TB/s HBM3; 1,979 TFLOPS BF16 with sparsity, 989.5 dense; NVLink 900 GB/s bidirectional; PCIe Gen5 x16"),
        // NVIDIA H200 datasheet (SXM): 4.8 TB/s HBM3e; same tensor peak as H100 SXM, 1,979* =
        // 989.5 dense; NVLink 900 GB/s bidirectional; PCIe Gen5 x16.
        "h200" => (4_800 * GB_S, Some(989_500_000_000_000), Some(450 * GB_S), Some(PCIE5_X16), "NVIDIA H200 datasheet (SXM): 4.8 TB/s HBM3e; 1,979 TFLOPS BF16 with sparsity, 989.5 dense; NVLink 900 GB/s bidirectional; PCIe Gen5 x16"),
        // NVIDIA HGX B200 datasheet, per GPU: 8 TB/s HBM3e (the driver reports a 7680-bit bus,
        // about 7.7 TB/s); FP16/BF16 tensor 4.5 PFLOPS* = 2.25 dense; NVLink 5 1.8 TB/s
        // bidirectional = 900 GB/s per direction; PCIe Gen5 x16 to the host.
        "b200" => (8_000 * GB_S, Some(2_250 * TFLOPS), Some(900 * GB_S), Some(PCIE5_X16), "NVIDIA HGX B200 datasheet: 8 TB/s HBM3e; 4.5 PFLOPS BF16 with sparsity, 2.25 dense; NVLink 1.8 TB/s bidirectional; PCIe Gen5 x16"),
        // AMD Instinct MI300X datasheet: 5.3 TB/s HBM3; peak BF16 matrix 1,307.4 TFLOPS dense
        // (2,614.9 with sparsity); Infinity Fabric 7 links × 128 GB/s = 896 GB/s bidirectional
        // aggregate, 448 per direction; PCIe Gen5 x16.
        "mi300x" => (5_300 * GB_S, Some(1_307_400_000_000_000), Some(448 * GB_S), Some(PCIE5_X16), "AMD MI300X datasheet: 5.3 TB/s HBM3; 1,307.4 TFLOPS BF16 dense; Infinity Fabric 896 GB/s aggregate (7 peers × 128 GB/s bidirectional); PCIe Gen5 x16"),
        // Apple's specifications give unified memory bandwidth only: no tensor throughput for its
        // GPUs, and unified memory has no host link.
        "m3-pro-36gb" => (150 * GB_S, None, None, None, "Apple M3 Pro specifications: 150 GB/s unified memory; Apple publishes no matrix (tensor) FLOP/s for its GPUs; unified memory has no PCIe link"),
        // 128 GB comes only with the 40-core-GPU M3 Max, which has 400 GB/s (the 30-core one: 300).
        "m3-max-128gb" => (400 * GB_S, None, None, None, "Apple M3 Max specifications (40-core GPU, the only one with 128 GB): 400 GB/s unified memory; Apple publishes no matrix (tensor) FLOP/s for its GPUs; unified memory has no PCIe link"),
        "m2-ultra-192gb" => (800 * GB_S, None, None, None, "Apple M2 Ultra specifications: 800 GB/s unified memory; Apple publishes no matrix (tensor) FLOP/s for its GPUs; unified memory has no PCIe link"),
        _ => (0, None, None, None, "no speeds recorded for this preset"),
    }
}

/// FP8 and FP4 tensor cores of each preset, by id, from the same datasheets as [`speeds`]
/// (figures "with sparsity" halved to dense).
fn low_precision(id: &str) -> LowPrecisionCores {
    use LowPrecisionCores as L;
    let fp8 = |flops| L::Fp8Tn {
        fp8_flops_per_s: flops,
    };
    match id {
        // NVIDIA L4 datasheet: FP8 tensor 485 TFLOPS with sparsity.
        "l4" => fp8(242_500_000_000_000),
        // NVIDIA Ada whitepaper (v2.02 and later), RTX 4090: FP8 with FP32 accumulate 330.3
        // TFLOPS dense.
        "rtx-4090" => fp8(330_300_000_000_000),
        // NVIDIA L40S datasheet: FP8 tensor 1,466 TFLOPS with sparsity.
        "l40s" => fp8(733 * TFLOPS),
        // NVIDIA H100 datasheet (SXM): FP8 tensor 3,958 TFLOPS with sparsity; H200 the same.
        "h100-80gb" | "h200" => fp8(1_979 * TFLOPS),
        // NVIDIA H100 NVL: FP8 tensor 3,341 TFLOPS with sparsity.
        "h100-nvl" => fp8(1_670_500_000_000_000),
        // AMD Instinct MI300X datasheet: FP8 2,614.9 TFLOPS dense.
        "mi300x" => fp8(2_614_900_000_000_000),
        // NVIDIA DGX B200 datasheet, per GPU: FP8 9 PFLOPS and FP4 18 PFLOPS with sparsity.
        "b200" => L::Blackwell {
            fp8_flops_per_s: Some(4_500 * TFLOPS),
            fp4_flops_per_s: Some(9_000 * TFLOPS),
        },
        // RTX Blackwell: FP8 and FP4 tensor cores; their peaks are not recorded here.
        "rtx-5090" => L::Blackwell {
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
        },
        _ => L::None,
    }
}

/// Every GPU preset, smallest memory first.
pub fn gpu_presets() -> Vec<GpuPreset> {
    let g = |id: &'static str, name, capacity_bytes, source| {
        let (
            memory_bytes_per_s,
            dense_16bit_flops_per_s,
            nvlink_bytes_per_s,
            pcie_bytes_per_s,
            speeds_source,
        ) = speeds(id);
        GpuPreset {
            id,
            name,
            capacity_bytes,
            source,
            memory_bytes_per_s,
            dense_16bit_flops_per_s,
            nvlink_bytes_per_s,
            pcie_bytes_per_s,
            speeds_source,
            low_precision: low_precision(id),
        }
    };
    vec![
        g("t4", "NVIDIA T4 16GB", 15360 * MIB, "nvidia-smi: 15360 MiB total"),
        g("a10g", "NVIDIA A10G 24GB (AWS)", 23028 * MIB, "nvidia-smi (ECC on, as AWS ships it): 23028 MiB total"),
        g("l4", "NVIDIA L4 24GB", 23034 * MIB, "nvidia-smi: 23034 MiB total"),
        g("rtx-3090", "NVIDIA RTX 3090 24GB", 24576 * MIB, "nvidia-smi: 24576 MiB total"),
        g("rtx-4090", "NVIDIA RTX 4090 24GB", 24564 * MIB, "nvidia-smi: 24564 MiB total"),
        g("rtx-5090", "NVIDIA RTX 5090 32GB", 32607 * MIB, "nvidia-smi: 32607 MiB total"),
        g("v100-32gb", "NVIDIA V100 32GB", 32768 * MIB, "nvidia-smi (SXM2): 32768 MiB total"),
        g("a100-40gb", "NVIDIA A100 40GB", 40960 * MIB, "nvidia-smi (PCIe): 40960 MiB; the SXM4 part reports 40536 MiB"),
        g("l40s", "NVIDIA L40S 48GB", 46068 * MIB, "nvidia-smi (ECC on, as it ships): 46068 MiB total"),
        g("rtx-a6000", "NVIDIA RTX A6000 48GB", 49140 * MIB, "nvidia-smi (ECC off, the default): 49140 MiB total; 46068 MiB with ECC on"),
        g("a100-80gb", "NVIDIA A100 80GB", 81920 * MIB, "nvidia-smi: 81920 MiB total"),
        g("h100-80gb", "NVIDIA H100 80GB", 81559 * MIB, "nvidia-smi (H100 80GB HBM3): 81559 MiB total"),
        g("h100-nvl", "NVIDIA H100 NVL 94GB", 95830 * MIB, "nvidia-smi: 95830 MiB total"),
        g("h200", "NVIDIA H200 141GB", 143771 * MIB, "nvidia-smi: 143771 MiB total"),
        g("b200", "NVIDIA B200 180GB", 183359 * MIB, "nvidia-smi: 183359 MiB total"),
        g("mi300x", "AMD Instinct MI300X 192GB", 205_822_885_888, "rocm-smi --showmeminfo vram: 205822885888 bytes total"),
        g("m3-pro-36gb", "Apple M3 Pro 36GB (unified)", 36 * GIB, "unified memory; macOS lets the GPU wire about 75% by default (iogpu.wired_limit_mb raises it)"),
        g("m3-max-128gb", "Apple M3 Max 128GB (unified)", 128 * GIB, "unified memory; macOS lets the GPU wire about 75% by default"),
        g("m2-ultra-192gb", "Apple M2 Ultra 192GB (unified)", 192 * GIB, "unified memory; macOS lets the GPU wire about 75% by default"),
    ]
}

/// The preset with this id, if any.
pub fn find_gpu(id: &str) -> Option<GpuPreset> {
    gpu_presets().into_iter().find(|g| g.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_but_apple_has_a_dense_peak_and_a_host_link() {
        for g in gpu_presets() {
            let apple = g.name.starts_with("Apple");
            // AWS's A10G: no published tensor peak.
            let unpublished = apple || g.id == "a10g";
            assert_eq!(g.dense_16bit_flops_per_s.is_none(), unpublished, "{}", g.id);
            assert_eq!(g.pcie_bytes_per_s.is_none(), apple, "{}", g.id);
            assert_ne!(
                g.speeds_source, "no speeds recorded for this preset",
                "{}",
                g.id
            );
        }
    }

    #[test]
    fn every_preset_has_a_datasheet_memory_bandwidth() {
        for g in gpu_presets() {
            // From Apple's 150 GB/s (M3 Pro) to B200's 8 TB/s.
            assert!(
                (100 * GB_S..=10_000 * GB_S).contains(&g.memory_bytes_per_s),
                "{}: {} B/s",
                g.id,
                g.memory_bytes_per_s
            );
        }
        // H100 SXM datasheet: 3.35 TB/s, decimal.
        let h100 = find_gpu("h100-80gb").unwrap();
        assert_eq!(h100.memory_bytes_per_s, 3_350_000_000_000);
        assert!(h100.speeds_source.contains("3.35 TB/s"));
    }

    #[test]
    fn sparse_datasheet_figures_are_halved_to_dense() {
        // H100 SXM datasheet: 1,979 TFLOPS BF16 "with sparsity".
        let h100 = find_gpu("h100-80gb").unwrap();
        assert_eq!(
            h100.dense_16bit_flops_per_s,
            Some(1_979_000_000_000_000 / 2)
        );
    }
}
