//! Training setups their authors published, as option-table pairs: one click on the Memory page
//! loads the whole layout. Each names its source; where the published hardware is not a preset,
//! the preset with the same memory stands in (said in `note`).

/// A published training setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublishedSetup {
    /// Short id, e.g. "deepseek-v3".
    pub id: &'static str,
    /// What it is, in words.
    pub name: &'static str,
    /// Where it was published.
    pub source: &'static str,
    /// What differs from the publication, in words ("" when nothing does).
    pub note: &'static str,
    /// The options, as the CLI and the URL take them.
    pub pairs: &'static [(&'static str, &'static str)],
}

/// Every published setup, in menu order.
pub const PUBLISHED: [PublishedSetup; 3] = [
    PublishedSetup {
        id: "deepseek-v3",
        name: "DeepSeek-V3 pre-training: 2048 GPUs, pp 16, ep 64, ZeRO-1, FP8",
        source: "DeepSeek-V3 Technical Report (2024), sections 3.2 and 3.3: 16-way pipeline, 64-way expert parallelism over 8 nodes, ZeRO-1 data parallelism, no tensor parallelism, FP8 with 1×128 and 128×128 tiles, BF16 Adam moments, 4K sequences; section 2.2: one multi-token prediction module",
        note: "on H100 80GB, whose memory the H800 shares; the micro-batch is not published (1 here) and DualPipe's schedule is sized as 1F1B",
        pairs: &[
            ("model", "deepseek-v3"),
            ("mode", "train"),
            ("precision", "fp8-blockwise"),
            ("moments", "bf16"),
            ("zero", "1"),
            ("dp", "128"),
            ("tp", "1"),
            ("pp", "16"),
            ("ep", "64"),
            ("mtp", "1"),
            ("seq", "4096"),
            ("batch", "1"),
            ("gpu", "h100-80gb"),
        ],
    },
    PublishedSetup {
        id: "llama-3.1-405b",
        name: "Llama 3 405B pre-training: 16,384 GPUs, tp 8, pp 16, dp 128, 8K",
        source: "The Llama 3 Herd of Models (Meta, 2024), table 4: TP 8, CP 1, PP 16, DP 128 at sequence 8,192 on 16,384 H100s",
        note: "the micro-batch is 1 and the optimizer states are sharded as ZeRO-1 here; Meta's own pipeline schedule is sized as 1F1B",
        pairs: &[
            ("model", "llama-3.1-405b"),
            ("mode", "train"),
            ("zero", "1"),
            ("dp", "128"),
            ("tp", "8"),
            ("sequence-parallel", "1"),
            ("pp", "16"),
            ("seq", "8192"),
            ("batch", "1"),
            ("gpu", "h100-80gb"),
        ],
    },
    PublishedSetup {
        id: "llama-3.1-405b-128k",
        name: "Llama 3 405B long context: 16,384 GPUs, tp 8, cp 16, pp 16, dp 8, 128K",
        source: "The Llama 3 Herd of Models (Meta, 2024), table 4: TP 8, CP 16, PP 16, DP 8 at sequence 131,072 on 16,384 H100s",
        note: "the micro-batch is 1 and the optimizer states are sharded as ZeRO-1 here; Meta's own pipeline schedule is sized as 1F1B",
        pairs: &[
            ("model", "llama-3.1-405b"),
            ("mode", "train"),
            ("zero", "1"),
            ("dp", "8"),
            ("tp", "8"),
            ("sequence-parallel", "1"),
            ("cp", "16"),
            ("pp", "16"),
            ("seq", "131072"),
            ("batch", "1"),
            ("gpu", "h100-80gb"),
        ],
    },
];

/// The published setup with `id`.
pub fn find_published(id: &str) -> Option<&'static PublishedSetup> {
    PUBLISHED.iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::job::Job;

    #[test]
    fn every_published_setup_is_valid_and_has_its_published_gpu_count() {
        for (p, gpus) in PUBLISHED.iter().zip([2048, 16384, 16384]) {
            let job = Job::from_pairs(p.pairs.iter().copied()).unwrap();
            let setup = job.to_setup();
            setup.validate().unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert_eq!(setup.gpus(), gpus, "{}", p.id);
            assert!(find_published(p.id).is_some());
        }
    }
}
