//! `--convention megatron` against Megatron-LM's own `theoretical_memory_usage.py`
//! (NVIDIA/Megatron-LM d98e8a64ddf34856e74b24714e3bedb2f5a39553): the figures below are what its
//! `compute_weight_and_optimizer_memory` and `compute_activation_memory` (or
//! `compute_activation_memory_without_sp`) return for the same arguments (padded vocabulary as
//! `--make-vocab-size-divisible-by 128` pads it, distributed optimizer, no virtual
//! stages), run with Python on that file.

use bitbudget_math::memory::report::conventions::compare_conventions;
use bitbudget_math::memory::{estimate, Convention, ModelSpec, Recompute, Setup, ZeroStage};

struct Case {
    model: &'static str,
    layout: (u64, u64, u64, u64), // tp, pp, dp, ep
    sp_selective: bool,
    weight_and_optimizer: u64,
    activations: u64,
}

const CASES: [Case; 4] = [
    Case {
        model: "llama-3-70b",
        layout: (8, 4, 4, 1),
        sp_selective: true,
        weight_and_optimizer: 20_443_908_096,
        activations: 10_754_211_840,
    },
    Case {
        model: "llama-3-70b",
        layout: (8, 1, 16, 1),
        sp_selective: false,
        weight_and_optimizer: 59_548_096_512,
        activations: 36_885_897_216,
    },
    Case {
        model: "mixtral-8x7b",
        layout: (1, 1, 8, 8),
        sp_selective: true,
        weight_and_optimizer: 113_510_873_088,
        activations: 17_788_076_032,
    },
    Case {
        model: "deepseek-v3",
        layout: (1, 16, 128, 64),
        sp_selective: true,
        weight_and_optimizer: 19_123_486_218,
        activations: 51_129_090_048,
    },
];

fn setup(c: &Case) -> Setup {
    Setup::new(ModelSpec::preset(c.model).unwrap()).with(|r| {
        (r.tp, r.pp, r.dp, r.ep) = c.layout;
        (r.seq, r.batch, r.zero) = (4096, 1, ZeroStage(1));
        r.convention = Convention::Megatron;
        if c.sp_selective {
            (r.sequence_parallel, r.recompute) = (true, Recompute::Selective);
        }
    })
}

#[test]
fn the_megatron_convention_is_megatrons_own_arithmetic() {
    for c in &CASES {
        let b = estimate(&setup(c)).unwrap();
        let states = b.weights.bytes + b.gradients.bytes + b.optimizer.bytes;
        assert!(
            states.abs_diff(c.weight_and_optimizer) <= 3,
            "{} {:?}: {states} vs Megatron's {}",
            c.model,
            c.layout,
            c.weight_and_optimizer
        );
        assert!(
            b.activations.bytes.abs_diff(c.activations) <= 1,
            "{} {:?}: {} vs Megatron's {}",
            c.model,
            c.layout,
            b.activations.bytes,
            c.activations
        );
        assert!(b.activations.formula.starts_with("Megatron-LM's formula"));
    }
}

#[test]
fn the_conventions_table_puts_megatron_beside_bitbudget() {
    let s = setup(&CASES[0]).with(|r| r.convention = Convention::Bitbudget);
    let rows = compare_conventions(&s);
    let megatron = rows
        .iter()
        .find(|r| r.convention == Convention::Megatron)
        .unwrap();
    assert_eq!(
        *megatron.model_states.as_ref().unwrap(),
        estimate(&setup(&CASES[0])).unwrap().model_states
    );
    assert!(megatron.explanation.contains("most loaded"));
    // Serving is not what the convention describes: bitbudget's with a note.
    let serving = setup(&CASES[0]).with(|r| r.mode = bitbudget_math::memory::Mode::Inference);
    let b = estimate(&serving).unwrap();
    assert!(
        b.notes
            .iter()
            .any(|n| n.contains("the megatron convention describes full mixed-precision training")),
        "{:?}",
        b.notes
    );
}

/// With one MTP module (`--mtp-num-layers 1`), Megatron-LM puts a block of the last block's kind
/// on the most loaded shard: DeepSeek-V3's weights and optimizer grow to what its file computes
/// for the same arguments (22,657,240,074 bytes; its activation formula leaves MTP out).
#[test]
fn an_mtp_module_is_counted_as_megatron_counts_it() {
    let c = &CASES[3];
    let mut s = setup(c);
    if let ModelSpec::Arch { arch, .. } = &mut s.model {
        arch.mtp_modules = 1;
    }
    let b = estimate(&s).unwrap();
    let states = b.weights.bytes + b.gradients.bytes + b.optimizer.bytes;
    assert!(states.abs_diff(22_657_240_074) <= 3, "{states}");
    assert!(b.activations.bytes.abs_diff(c.activations) <= 1);
}
