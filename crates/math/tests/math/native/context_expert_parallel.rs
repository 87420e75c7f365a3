//! Context and expert parallelism: what each divides, the traffic each adds to a step, and the
//! messages for layouts that cannot run.

use bitbudget_math::memory::step::{step_time, CommKind, StepParams};
use bitbudget_math::memory::{estimate, find_gpu, Mode, ModelSpec, Precision, Setup, ZeroStage};

fn setup(id: &str) -> Setup {
    let mut s = Setup::new(ModelSpec::preset(id).unwrap());
    s.gpu = find_gpu("h100-80gb");
    s
}

fn refusal(s: &Setup) -> String {
    s.validate().unwrap_err().to_string()
}

#[test]
fn context_parallelism_divides_every_layers_activations_and_the_logits() {
    let long = |cp| {
        setup("llama-3-70b").with(|r| {
            (r.seq, r.tp, r.sequence_parallel, r.cp, r.dp) = (131072, 8, true, cp, 1);
            r.zero = ZeroStage(1);
        })
    };
    let one = estimate(&long(1)).unwrap();
    let eight = estimate(&long(8)).unwrap();
    let ratio = one.activations.bytes as f64 / eight.activations.bytes as f64;
    assert!((ratio - 8.0).abs() < 0.01, "{ratio}");
    assert!(eight
        .activations
        .formula
        .starts_with("context parallel: 131072 tokens ÷ cp 8 = 16384 per GPU"));
    // The weights are whole on every context-parallel rank; ZeRO shards over dp × cp.
    assert_eq!(one.weights.bytes, eight.weights.bytes);
    let shards = one.optimizer.bytes as f64 / eight.optimizer.bytes as f64;
    assert!((shards - 8.0).abs() < 1e-6, "{shards}");
    assert!(eight.optimizer.formula.contains("dp 1 × cp 8 (ZeRO-1)"));
    assert_eq!(long(8).gpus(), 64);
}

#[test]
fn ring_attention_traffic_is_in_the_step_time() {
    let s = setup("llama-3-70b").with(|r| {
        (r.seq, r.tp, r.sequence_parallel, r.cp) = (32768, 8, true, 4);
    });
    let t = step_time(&s, &StepParams::default()).unwrap();
    let timing = t.timing.unwrap();
    let ring = timing
        .comm
        .iter()
        .find(|c| c.kind == CommKind::ContextParallel)
        .expect("a context-parallel line");
    // K and V of 8192 tokens × 1024 (8 KV heads × 128) × 2 B ÷ tp 8, 3 times forward and 6 back,
    // over 80 layers.
    let expected = 3.0 * (2.0 * 8192.0 * 1024.0 * 2.0 / 8.0) * 3.0 * 80.0;
    assert!(
        (ring.bytes - expected).abs() < 1.0,
        "{} vs {expected}",
        ring.bytes
    );
    assert!(ring.exposed_seconds <= ring.seconds);
    assert_eq!(CommKind::ContextParallel.label(), "context-parallel");
}

#[test]
fn context_parallel_layouts_that_cannot_run_say_why() {
    let s = setup("llama-3-8b").with(|r| (r.cp, r.seq) = (3, 8192));
    assert!(
        refusal(&s).contains("divisible by 2 × cp = 6"),
        "{}",
        refusal(&s)
    );
    let s = setup("llama-3-8b").with(|r| (r.cp, r.flash_attention) = (2, false));
    assert!(
        refusal(&s).contains("needs fused attention"),
        "{}",
        refusal(&s)
    );
    let s = setup("llama-3-8b").with(|r| (r.cp, r.mode) = (2, Mode::Inference));
    assert!(
        refusal(&s).contains("applies to training"),
        "{}",
        refusal(&s)
    );
    let s = setup("llama-3-8b").with(|r| r.cp = 0);
    assert!(
        refusal(&s).contains("context-parallel degree is 0"),
        "{}",
        refusal(&s)
    );
}

#[test]
fn expert_parallelism_divides_the_routed_experts_alone() {
    let ep = |ep| {
        setup("mixtral-8x7b").with(|r| {
            (r.dp, r.ep) = (8, ep);
        })
    };
    let arch = ep(1).arch().unwrap().clone();
    let (all, routed) = (arch.params(), arch.routed_expert_params());
    assert!(routed > all / 2 && routed < all);
    let one = estimate(&ep(1)).unwrap();
    let eight = estimate(&ep(8)).unwrap();
    assert_eq!(one.weights.bytes, 2 * all);
    let expected = 2 * (all - routed) + (2 * routed).div_ceil(8);
    assert!(
        eight.weights.bytes.abs_diff(expected) <= 1,
        "{} vs {expected}",
        eight.weights.bytes
    );
    assert!(
        eight.weights.formula.contains("in experts ÷ ep 8"),
        "{}",
        eight.weights.formula
    );
    // The optimizer: the experts' ZeRO group is what is left of dp × cp × tp after ep × etp.
    let sharded = estimate(&ep(4).with(|r| r.zero = ZeroStage(1))).unwrap();
    assert!(
        sharded.optimizer.formula.contains("ep 4 ÷ edp 2 (ZeRO-1)"),
        "{}",
        sharded.optimizer.formula
    );
}

#[test]
fn the_expert_all_to_all_is_in_the_step_time() {
    let s = setup("mixtral-8x7b").with(|r| (r.dp, r.ep, r.seq) = (8, 8, 4096));
    let timing = step_time(&s, &StepParams::default())
        .unwrap()
        .timing
        .unwrap();
    let a2a = timing
        .comm
        .iter()
        .find(|c| c.kind == CommKind::ExpertAllToAll)
        .expect("an all-to-all line");
    // 4096 tokens × 2 routed copies × 4096 × 2 B, 4 directions × 32 layers × 7/8.
    let expected = 4096.0 * 2.0 * 4096.0 * 2.0 * 4.0 * 32.0 * 7.0 / 8.0;
    assert!(
        (a2a.bytes - expected).abs() < 1.0,
        "{} vs {expected}",
        a2a.bytes
    );
    assert_eq!(CommKind::ExpertAllToAll.label(), "expert all-to-all");
}

#[test]
fn deepseek_v3_trains_with_its_published_layout() {
    // DeepSeek-V3 technical report, section 3.2.1: 16-way pipeline, 64-way expert parallelism
    // over 8 nodes, ZeRO-1 data parallelism, no tensor parallelism, on 2048 GPUs.
    let s = setup("deepseek-v3").with(|r| {
        (r.pp, r.ep, r.dp, r.zero) = (16, 64, 128, ZeroStage(1));
        r.precision = Precision::Fp8Blockwise;
    });
    assert_eq!(s.gpus(), 2048);
    let b = estimate(&s).unwrap();
    assert!(
        b.weights.formula.contains("in experts"),
        "{}",
        b.weights.formula
    );
    // 4 of the 256 routed experts of each layer per GPU: far under an 80 GB GPU's memory for
    // the model states.
    let states = b.weights.bytes + b.gradients.bytes + b.optimizer.bytes;
    assert!(states < 40_000_000_000, "{states}");
}

#[test]
fn expert_layouts_that_cannot_run_say_why() {
    let s = setup("mixtral-8x7b").with(|r| (r.dp, r.ep) = (6, 3));
    assert_eq!(
        refusal(&s),
        "expert-parallel degree 3 does not divide the 8 routed experts"
    );
    let s = setup("mixtral-8x7b").with(|r| (r.dp, r.ep) = (4, 8));
    assert!(
        refusal(&s).contains("must divide the 4 GPUs of a pipeline stage"),
        "{}",
        refusal(&s)
    );
    let s = setup("llama-3-8b").with(|r| (r.dp, r.ep) = (2, 2));
    assert!(
        refusal(&s).contains("needs a mixture-of-experts model"),
        "{}",
        refusal(&s)
    );
    let s = setup("mixtral-8x7b").with(|r| (r.dp, r.tp, r.ep) = (2, 2, 2));
    assert!(
        refusal(&s).contains("needs sequence parallelism"),
        "{}",
        refusal(&s)
    );
    let s = setup("mixtral-8x7b").with(|r| (r.dp, r.ep, r.mode) = (2, 2, Mode::Lora));
    assert!(
        refusal(&s).contains("modelled for full training"),
        "{}",
        refusal(&s)
    );
}

#[test]
fn long_sequences_are_advised_context_parallelism_on_the_same_gpus() {
    use bitbudget_math::memory::report::advice::{advise, Change};
    let s = setup("llama-3-70b").with(|r| {
        (r.seq, r.tp, r.sequence_parallel, r.dp) = (131072, 8, true, 8);
        r.zero = ZeroStage(1);
    });
    let capacity = s.gpu.as_ref().unwrap().capacity_bytes;
    let same = advise(&s, capacity)
        .same_gpus
        .expect("a fit on the same GPUs");
    assert!(same.changes.contains(&Change::Cp(8)), "{:?}", same.changes);
    assert!(same.changes.contains(&Change::Dp(1)), "{:?}", same.changes);
    assert_eq!(same.gpus, 64);
    assert!(same.describe().contains("context parallel 8"));
    // Applied as the options the page and the CLI take, in order, it is the same setup.
    let applied = same.apply(&s);
    let mut by_keys = s.clone();
    for c in &same.changes {
        let mut job =
            bitbudget_math::memory::Job::from_setup_and_step(&by_keys, &StepParams::default());
        job.apply(c.key(), &c.value()).unwrap().unwrap();
        by_keys = job.to_setup();
    }
    assert_eq!((by_keys.cp, by_keys.dp), (applied.cp, applied.dp));
    assert!(estimate(&applied).unwrap().total <= capacity);
    // Short sequences are not offered it.
    let short = s.clone().with(|r| r.seq = 4096);
    let advice = advise(&short, capacity);
    for answer in [advice.same_gpus, advice.fewest_gpus].into_iter().flatten() {
        assert!(!answer.changes.iter().any(|c| matches!(c, Change::Cp(_))));
    }
}

#[test]
fn virtual_pipeline_stages_shrink_the_bubble_and_hold_a_little_more() {
    let pipe = |vpp| {
        setup("llama-3-70b").with(|r| {
            (r.tp, r.sequence_parallel, r.pp, r.vpp, r.dp) = (8, true, 4, vpp, 2);
        })
    };
    let params = StepParams {
        grad_accum_steps: 8,
        ..StepParams::default()
    };
    let (plain, interleaved) = (
        step_time(&pipe(1), &params).unwrap(),
        step_time(&pipe(5), &params).unwrap(),
    );
    let (b1, b5) = (
        plain.timing.as_ref().unwrap().bubble_s,
        interleaved.timing.as_ref().unwrap().bubble_s,
    );
    assert!((b1 / b5 - 5.0).abs() < 1e-9, "{b1} vs {b5}");
    // Megatron-LM's penalty for the first stage: 1 + (p − 1)/(p·v) = 1.15 for p = 4, v = 5.
    let (a1, a5) = (
        estimate(&pipe(1)).unwrap().activations.bytes as f64,
        estimate(&pipe(5)).unwrap().activations.bytes as f64,
    );
    assert!((a5 / a1 - 1.15).abs() < 1e-6, "{}", a5 / a1);
    assert!(estimate(&pipe(5))
        .unwrap()
        .activations
        .formula
        .contains("5 virtual stages"));
    // Refusals: no pipeline, or virtual stages that do not divide the layers.
    let s = setup("llama-3-70b").with(|r| r.vpp = 2);
    assert!(
        refusal(&s).contains("needs pipeline parallelism"),
        "{}",
        refusal(&s)
    );
    let s = setup("llama-3-70b").with(|r| (r.pp, r.vpp) = (4, 3));
    assert!(
        refusal(&s).contains("= 12 must divide the 80 layers"),
        "{}",
        refusal(&s)
    );
}

#[test]
fn the_heaviest_pipeline_stage_holds_its_layers_and_the_embedding_or_the_head() {
    let s = setup("llama-3-8b").with(|r| r.pp = 8);
    let a = s.arch().unwrap().clone();
    // 32 layers over 8 stages: 4 blocks, plus the last stage's output head and final norm
    // (the first's embedding is as large, without the norm).
    let last = 4 * a.layer_params() + a.vocab * a.hidden + a.hidden;
    assert_eq!(a.heaviest_stage_params(8, false), last);
    let b = estimate(&s).unwrap();
    assert!(
        b.weights.bytes.abs_diff(2 * last) <= 1,
        "{} vs {}",
        b.weights.bytes,
        2 * last
    );
    assert!(b.weights.formula.contains("on the heaviest stage"));
    // One stage holds everything once.
    assert_eq!(a.heaviest_stage_params(1, false), a.params());
}

#[test]
fn the_busiest_experts_load_scales_the_routed_activations_and_the_all_to_all() {
    let load = |percent| {
        setup("mixtral-8x7b").with(|r| (r.dp, r.ep, r.expert_load_percent) = (8, 8, percent))
    };
    let (even, busy) = (estimate(&load(100)).unwrap(), estimate(&load(150)).unwrap());
    assert!(busy.activations.bytes > even.activations.bytes);
    let a2a = |s: &Setup| {
        let t = step_time(s, &StepParams::default())
            .unwrap()
            .timing
            .unwrap();
        t.comm
            .iter()
            .find(|c| c.kind == CommKind::ExpertAllToAll)
            .unwrap()
            .bytes
    };
    assert!((a2a(&load(150)) / a2a(&load(100)) - 1.5).abs() < 1e-9);
    // A dense model ignores it; below even routing is refused.
    let dense = setup("llama-3-8b");
    assert_eq!(
        estimate(&dense.clone().with(|r| r.expert_load_percent = 200))
            .unwrap()
            .activations,
        estimate(&dense).unwrap().activations
    );
    assert!(
        refusal(&load(50)).contains("between 100 (even routing)"),
        "{}",
        refusal(&load(50))
    );
}

/// The fewest-GPUs answer re-divides GPUs too: a long sequence is answered with context
/// parallelism where that takes fewer GPUs, and an MoE layout keeps an expert-parallel degree
/// that divides its GPUs; each answer, applied through the options the page and the CLI take, is
/// the setup the search sized.
#[test]
fn the_fewest_gpus_answer_uses_context_and_expert_parallelism() {
    use bitbudget_math::memory::report::advice::{advise, Change};
    let applied_by_keys = |s: &Setup, changes: &[Change]| {
        let mut by_keys = s.clone();
        for c in changes {
            let mut job =
                bitbudget_math::memory::Job::from_setup_and_step(&by_keys, &StepParams::default());
            job.apply(c.key(), &c.value()).unwrap().unwrap();
            by_keys = job.to_setup();
        }
        by_keys
    };
    let long = setup("llama-3-70b").with(|r| r.seq = 131072);
    let capacity = long.gpu.as_ref().unwrap().capacity_bytes;
    let fewest = advise(&long, capacity)
        .fewest_gpus
        .expect("a fit somewhere");
    assert!(
        fewest.changes.iter().any(|c| matches!(c, Change::Cp(_))),
        "{:?}",
        fewest.changes
    );
    let by_keys = applied_by_keys(&long, &fewest.changes);
    assert_eq!(by_keys.gpus(), fewest.gpus);
    assert!(estimate(&by_keys).unwrap().total <= capacity);
    // An expert-parallel setup stays one that can run: when the search changes the GPUs, the
    // expert-parallel degree is re-chosen to divide them (ZeRO-3 already shards the experts, so
    // a wider one would not save memory).
    let moe = setup("mixtral-8x7b").with(|r| (r.ep, r.dp) = (8, 8));
    let fewest = advise(&moe, capacity).fewest_gpus.expect("a fit somewhere");
    let by_keys = applied_by_keys(&moe, &fewest.changes);
    assert!(by_keys.validate().is_ok(), "{:?}", fewest.changes);
    assert_eq!(by_keys.gpus(), fewest.gpus);
    assert!(estimate(&by_keys).unwrap().total <= capacity);
}

/// One MTP module (DeepSeek-V3's published recipe): a block of the last block's kind, the
/// 2h → h projection and three norms (embedding and head shared: 671.03B + 11.61B), its routed
/// experts divided like the others, one more block and one more output head in the FLOPs, and
/// the option refused where it is not modelled.
#[test]
fn an_mtp_module_trains_with_its_block_projection_and_logits() {
    use bitbudget_math::memory::step::flops::{block_matmul_params, head_matmul_params};
    use bitbudget_math::memory::Job;
    let job = |pairs: &[(&str, &str)]| {
        let mut j = Job::default();
        for (k, v) in pairs {
            j.apply(k, v).unwrap().unwrap();
        }
        j
    };
    let plain = job(&[("model", "deepseek-v3"), ("gpu", "h100-80gb")]).to_setup();
    let mtp = job(&[("model", "deepseek-v3"), ("gpu", "h100-80gb"), ("mtp", "1")]).to_setup();
    let (a, m) = (plain.arch().unwrap(), mtp.arch().unwrap());
    assert_eq!(m.mtp_modules, 1);
    let module = a.layer_params() + 2 * 7168 * 7168 + 3 * 7168;
    assert_eq!(m.mtp_module_params(), module);
    assert_eq!(m.params(), a.params() + module);
    assert_eq!(m.routed_expert_params(), a.routed_expert_params() / 58 * 59);
    let (fa, fm) = (
        step_time(&plain, &StepParams::default()).unwrap(),
        step_time(&mtp, &StepParams::default()).unwrap(),
    );
    let tokens = plain.seq as f64;
    let extra_forward = 2.0
        * (block_matmul_params(a) + head_matmul_params(a) + 2 * 7168 * 7168) as f64
        + 4.0 * plain.seq as f64 * a.q_width() as f64;
    assert!(((fm.model_flops - fa.model_flops) / tokens - 3.0 * extra_forward).abs() < 1.0);
    // The link and the job read it back; LoRA and serving train none and say why.
    let back = Job::from_setup(&mtp);
    assert_eq!(back.mtp, 1);
    assert_eq!(back.model.as_deref(), Some("deepseek-v3"));
    let lora = job(&[("model", "deepseek-v3"), ("mode", "lora"), ("mtp", "1")]);
    assert_eq!(lora.to_setup().arch().unwrap().mtp_modules, 0);
    assert!(lora
        .not_applicable(bitbudget_math::memory::keys::MTP)
        .unwrap()
        .contains("full training"));
}
