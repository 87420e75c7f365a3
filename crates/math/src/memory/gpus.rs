//! GPU presets: memory capacity in bytes as the device reports it.

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
}

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Every GPU preset, smallest memory first.
pub fn gpu_presets() -> Vec<GpuPreset> {
    let g = |id, name, capacity_bytes, source| GpuPreset {
        id,
        name,
        capacity_bytes,
        source,
    };
    vec![
        g("t4", "NVIDIA T4 16GB", 15360 * MIB, "nvidia-smi: 15360 MiB total"),
        g("l4", "NVIDIA L4 24GB", 23034 * MIB, "nvidia-smi: 23034 MiB total"),
        g("rtx-3090", "NVIDIA RTX 3090 24GB", 24576 * MIB, "nvidia-smi: 24576 MiB total"),
        g("rtx-4090", "NVIDIA RTX 4090 24GB", 24564 * MIB, "nvidia-smi: 24564 MiB total"),
        g("v100-32gb", "NVIDIA V100 32GB", 32768 * MIB, "nvidia-smi (SXM2): 32768 MiB total"),
        g("a100-40gb", "NVIDIA A100 40GB", 40960 * MIB, "nvidia-smi (PCIe): 40960 MiB; the SXM4 part reports 40536 MiB"),
        g("a100-80gb", "NVIDIA A100 80GB", 81920 * MIB, "nvidia-smi: 81920 MiB total"),
        g("h100-80gb", "NVIDIA H100 80GB", 81559 * MIB, "nvidia-smi (H100 80GB HBM3): 81559 MiB total"),
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
