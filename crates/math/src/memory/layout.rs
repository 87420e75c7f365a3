//! Where each GPU of a job sits in its parallel groups, and what it holds: the picture behind
//! the parallel-layout grid.
//!
//! Ranks are numbered as Megatron-LM's `RankGenerator` numbers them with its default order
//! "tp-cp-ep-dp-pp" (`megatron/core/parallel_state.py`): tensor-parallel ranks are adjacent (so a
//! tensor-parallel group stays inside a node), then context-parallel, then data-parallel, then
//! pipeline stages outermost. The routed experts re-divide the dp × cp × tp ranks of each stage
//! in the order etp, ep, expert-dp. GPU `rank` sits on node `rank ÷ gpus per node`.

use super::setup::Setup;

/// A kind of parallel group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// Tensor parallel: each matrix split over the group.
    Tensor,
    /// Context parallel: each sequence split over the group.
    Context,
    /// Data parallel: replicas of the model on different micro-batches.
    Data,
    /// Pipeline parallel: consecutive layers on consecutive stages.
    Pipeline,
    /// Expert parallel: the routed experts divided over the group.
    Expert,
}

impl Group {
    /// Every kind, in the order the grid draws them.
    pub const ALL: [Group; 5] = [
        Group::Tensor,
        Group::Context,
        Group::Expert,
        Group::Data,
        Group::Pipeline,
    ];

    /// The short name people write: "TP", "CP", "EP", "DP", "PP".
    pub const fn short(self) -> &'static str {
        match self {
            Group::Tensor => "TP",
            Group::Context => "CP",
            Group::Expert => "EP",
            Group::Data => "DP",
            Group::Pipeline => "PP",
        }
    }

    /// The key of the option that sets its size ("tp", "cp", "ep", "dp", "pp").
    pub const fn key(self) -> &'static str {
        match self {
            Group::Tensor => "tp",
            Group::Context => "cp",
            Group::Expert => "ep",
            Group::Data => "dp",
            Group::Pipeline => "pp",
        }
    }

    /// The group's size in `setup` (ep only when the routed experts are laid out apart).
    pub fn size(self, setup: &Setup) -> u64 {
        match self {
            Group::Tensor => setup.tp,
            Group::Context => setup.cp,
            Group::Expert if setup.experts_apart() => setup.ep,
            Group::Expert => 1,
            Group::Data => setup.dp,
            Group::Pipeline => setup.pp,
        }
    }

    /// Parses a short or long name ("tp", "TP", "tensor").
    pub fn parse(text: &str) -> Option<Group> {
        match text.trim().to_ascii_lowercase().as_str() {
            "tp" | "tensor" => Some(Group::Tensor),
            "cp" | "context" => Some(Group::Context),
            "ep" | "expert" => Some(Group::Expert),
            "dp" | "data" => Some(Group::Data),
            "pp" | "pipeline" => Some(Group::Pipeline),
            _ => None,
        }
    }
}

/// The groups of `setup` with more than one GPU, in [`Group::ALL`]'s order.
pub fn active_groups(setup: &Setup) -> Vec<Group> {
    Group::ALL
        .into_iter()
        .filter(|g| g.size(setup) > 1)
        .collect()
}

/// One GPU's coordinates: its index in each kind of group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Global rank, 0-based.
    pub rank: u64,
    /// Node and GPU within it.
    pub node: u64,
    /// GPU index within its node.
    pub local: u64,
    /// Tensor-parallel rank.
    pub tp: u64,
    /// Context-parallel rank.
    pub cp: u64,
    /// Data-parallel rank.
    pub dp: u64,
    /// Pipeline stage.
    pub pp: u64,
    /// Expert tensor-parallel rank (the tensor-parallel rank when experts are not apart).
    pub etp: u64,
    /// Expert-parallel rank (0 when experts are not apart).
    pub ep: u64,
    /// Expert data-parallel rank.
    pub edp: u64,
}

/// Where GPU `rank` (0-based, below [`Setup::gpus`]) sits.
pub fn place(setup: &Setup, rank: u64) -> Place {
    let (tp, cp, dp) = (setup.tp, setup.cp, setup.dp);
    let mut r = rank;
    let tp_i = r % tp;
    r /= tp;
    let cp_i = r % cp;
    r /= cp;
    let dp_i = r % dp;
    let pp_i = r / dp;
    let local = rank % (tp * cp * dp);
    let (etp, ep) = if setup.experts_apart() {
        (setup.expert_tp(), setup.ep)
    } else {
        (tp, 1)
    };
    Place {
        rank,
        node: rank / setup.gpus_per_node,
        local: rank % setup.gpus_per_node,
        tp: tp_i,
        cp: cp_i,
        dp: dp_i,
        pp: pp_i,
        etp: local % etp,
        ep: (local / etp) % ep,
        edp: local / (etp * ep),
    }
}

impl Place {
    /// Which group of kind `g` this GPU belongs to: GPUs with the same number are one group.
    /// Numbered from 0 in the order of their lowest rank.
    pub fn group(&self, setup: &Setup, g: Group) -> u64 {
        let (tp, cp, dp) = (setup.tp, setup.cp, setup.dp);
        match g {
            Group::Tensor => self.rank / tp,
            Group::Context => self.tp + tp * (self.dp + dp * self.pp),
            Group::Data => self.tp + tp * (self.cp + cp * self.pp),
            Group::Pipeline => self.rank % (tp * cp * dp),
            Group::Expert => {
                let etp = if setup.experts_apart() {
                    setup.expert_tp()
                } else {
                    tp
                };
                let edp = (tp * cp * dp) / (etp * Group::Expert.size(setup).max(1));
                self.etp + etp * (self.edp + edp * self.pp)
            }
        }
    }

    /// Its index within its group of kind `g`.
    pub fn index(&self, g: Group) -> u64 {
        match g {
            Group::Tensor => self.tp,
            Group::Context => self.cp,
            Group::Expert => self.ep,
            Group::Data => self.dp,
            Group::Pipeline => self.pp,
        }
    }
}

/// What one GPU holds, in sentences: its node, its pipeline stage's layers (and the embedding or
/// output head at the ends), its share of each matrix, its chunks of each sequence, its
/// experts and its replica. Ranges are 1-based and inclusive, as people count layers.
pub fn holds(setup: &Setup, p: &Place) -> Vec<String> {
    let mut lines = vec![format!(
        "GPU {} of {}: node {}, GPU {} in it",
        p.rank + 1,
        setup.gpus(),
        p.node + 1,
        p.local + 1
    )];
    let Some(a) = setup.arch() else {
        lines.push(format!(
            "1/{} of the parameters (only a parameter count was given)",
            setup.tp * setup.pp
        ));
        return lines;
    };
    let per_stage = a.layers.div_ceil(setup.pp);
    let first = (p.pp * per_stage).min(a.layers);
    let last = ((p.pp + 1) * per_stage).min(a.layers);
    let mut stage = if setup.vpp > 1 && a.layers % (setup.pp * setup.vpp) == 0 {
        // Interleaved: virtual stage j of this GPU is chunk j·pp + stage of the pp·vpp chunks.
        let chunk = a.layers / (setup.pp * setup.vpp);
        let runs: Vec<String> = (0..setup.vpp)
            .map(|j| {
                let c = j * setup.pp + p.pp;
                format!("{}–{}", c * chunk + 1, (c + 1) * chunk)
            })
            .collect();
        format!(
            "pipeline stage {} of {} with {} virtual stages: layers {} of {}",
            p.pp + 1,
            setup.pp,
            setup.vpp,
            runs.join(", "),
            a.layers
        )
    } else if first < last {
        format!(
            "pipeline stage {} of {}: layers {}–{} of {}",
            p.pp + 1,
            setup.pp,
            first + 1,
            last,
            a.layers
        )
    } else {
        format!(
            "pipeline stage {} of {}: no layers ({} per stage fill the stages before it)",
            p.pp + 1,
            setup.pp,
            per_stage
        )
    };
    if p.pp == 0 {
        stage += ", the token embedding";
    }
    if p.pp + 1 == setup.pp {
        stage += ", the output layer and loss";
    }
    lines.push(stage);
    if setup.tp > 1 {
        let heads = a.heads / setup.tp;
        lines.push(format!(
            "tensor-parallel rank {} of {}: attention heads {}–{} and 1/{} of each MLP's columns",
            p.tp + 1,
            setup.tp,
            p.tp * heads + 1,
            (p.tp + 1) * heads,
            setup.tp
        ));
    }
    if setup.cp > 1 {
        let chunk = setup.seq / (2 * setup.cp);
        let (c1, c2) = (p.cp, 2 * setup.cp - 1 - p.cp);
        lines.push(format!(
            "context-parallel rank {} of {}: tokens {}–{} and {}–{} of each {}-token sequence (chunks {} and {} of {}, so the causal mask's work is even)",
            p.cp + 1,
            setup.cp,
            c1 * chunk + 1,
            (c1 + 1) * chunk,
            c2 * chunk + 1,
            (c2 + 1) * chunk,
            setup.seq,
            c1 + 1,
            c2 + 1,
            2 * setup.cp
        ));
    }
    if setup.experts_apart() {
        let per = a.experts / setup.ep;
        lines.push(format!(
            "expert-parallel rank {} of {}: routed experts {}–{} of {} in each MoE layer{}",
            p.ep + 1,
            setup.ep,
            p.ep * per + 1,
            (p.ep + 1) * per,
            a.experts,
            match setup.expert_tp() {
                1 => String::new(),
                etp => format!(
                    ", 1/{etp} of each (expert tensor-parallel rank {})",
                    p.etp + 1
                ),
            }
        ));
    }
    if setup.dp > 1 {
        let zero = match setup.zero.0 {
            0 => String::new(),
            _ => format!(
                ", 1/{} of the sharded states ({})",
                setup.dp * setup.cp,
                setup.zero.label()
            ),
        };
        lines.push(format!(
            "data-parallel replica {} of {}: its own micro-batches{zero}",
            p.dp + 1,
            setup.dp
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::setup::ModelSpec;

    fn setup(id: &str, change: impl FnOnce(&mut crate::memory::setup::RunOptions)) -> Setup {
        Setup::new(ModelSpec::preset(id).unwrap()).with(change)
    }

    #[test]
    fn tensor_parallel_ranks_are_adjacent_and_stages_outermost() {
        let s = setup("llama-3-70b", |r| (r.tp, r.dp, r.pp) = (8, 2, 4));
        assert_eq!(s.gpus(), 64);
        let p = place(&s, 8 * 2 + 3);
        assert_eq!((p.tp, p.dp, p.pp, p.node, p.local), (3, 0, 1, 2, 3));
        // A tensor-parallel group is one node; a data-parallel group spans two.
        assert_eq!(p.group(&s, Group::Tensor), 2);
        let dp_mates: Vec<u64> = (0..64)
            .filter(|&r| place(&s, r).group(&s, Group::Data) == p.group(&s, Group::Data))
            .collect();
        assert_eq!(dp_mates, vec![19, 27]);
    }

    #[test]
    fn every_group_has_its_size_in_members() {
        let s = setup("mixtral-8x7b", |r| {
            (r.tp, r.cp, r.dp, r.pp, r.ep, r.sequence_parallel) = (2, 2, 4, 2, 4, true)
        });
        for g in active_groups(&s) {
            let mut counts = std::collections::HashMap::new();
            for r in 0..s.gpus() {
                let p = place(&s, r);
                *counts.entry(p.group(&s, g)).or_insert(0u64) += 1;
                assert!(p.index(g) < g.size(&s));
            }
            assert!(
                counts.values().all(|&n| n == g.size(&s)),
                "{g:?}: {counts:?}"
            );
        }
        assert_eq!(
            active_groups(&s),
            vec![
                Group::Tensor,
                Group::Context,
                Group::Expert,
                Group::Data,
                Group::Pipeline
            ]
        );
    }

    #[test]
    fn a_gpu_says_what_it_holds() {
        let s = setup("deepseek-v3", |r| {
            (r.pp, r.ep, r.dp, r.seq, r.cp) = (16, 64, 128, 4096, 1)
        });
        let p = place(&s, 2047);
        let text = holds(&s, &p).join("\n");
        assert!(
            text.contains("GPU 2048 of 2048: node 256, GPU 8 in it"),
            "{text}"
        );
        assert!(
            text.contains("pipeline stage 16 of 16: layers 61–61 of 61, the output layer and loss"),
            "{text}"
        );
        assert!(text.contains("routed experts 253–256 of 256"), "{text}");
        let s = setup("llama-3-70b", |r| (r.cp, r.seq, r.tp) = (4, 8192, 8));
        let text = holds(&s, &place(&s, 8)).join("\n");
        assert!(text.contains("tokens 1025–2048 and 6145–7168"), "{text}");
        let s = setup("llama-3-70b", |r| (r.pp, r.vpp) = (4, 2));
        let text = holds(&s, &place(&s, 1)).join("\n");
        assert!(
            text.contains("pipeline stage 2 of 4 with 2 virtual stages: layers 11–20, 51–60 of 80"),
            "{text}"
        );
    }
}
