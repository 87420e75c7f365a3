//! Pipeline, data and expert parallelism in serving: a stage holds its share of the blocks and
//! their KV cache, replicas multiply the requests but not the memory, expert parallelism spreads
//! the routed experts over every GPU of a stage, and llama.cpp or a dense model refuse what they
//! cannot do.

use bitbudget_math::memory::states::gguf_tensors::GgufArch;
use bitbudget_math::memory::{find_gpu, find_model};
use bitbudget_math::serve::checkpoint::weight_bytes;
use bitbudget_math::serve::{serve, verdict, Engine, ServeSetup};

fn setup(model: &str) -> ServeSetup {
    let mut s = ServeSetup::new(
        Engine::Vllm,
        model,
        find_model(model).unwrap().arch,
        find_gpu("h100-80gb").unwrap(),
    );
    s.max_model_len = Some(8192);
    s
}

#[test]
fn a_pipeline_stage_holds_its_blocks_and_their_kv_cache() {
    let one = setup("llama-3.1-70b");
    let mut two = one.clone();
    two.pp = 2;
    let (r1, r2) = (serve(&one).unwrap(), serve(&two).unwrap());
    let a = &one.arch;
    let w = weight_bytes(a, GgufArch::Llama, one.checkpoint);
    // 80 blocks: 40 a stage; the untied embedding or head (half the rest) at each end.
    assert_eq!(
        r2.per_gpu.weights,
        w.blocks / 2 + (w.total - w.blocks).div_ceil(2)
    );
    assert_eq!(r2.kv_bytes_per_token * 2, r1.kv_bytes_per_token);
    assert_eq!(r2.gpus, 2);
    assert!(r2.fits && !r1.fits, "{}", verdict(&two, &r2));
    assert!(verdict(&two, &r2).starts_with("Fits on 2 × NVIDIA H100 80GB"));
    // One sequence goes through every stage: no faster than one GPU reading everything, and a
    // little slower with more stages, each paced as the busiest (the one with the head).
    let mut four = two.clone();
    four.pp = 4;
    four.concurrency = Some(1);
    two.concurrency = Some(1);
    let (t2, t4) = (serve(&two).unwrap().decode, serve(&four).unwrap().decode);
    let slower = t2.tokens_per_s / t4.tokens_per_s - 1.0;
    assert!((0.0..0.05).contains(&slower), "{t2:?} {t4:?}");
}

#[test]
fn data_parallel_replicas_multiply_requests_not_memory() {
    let one = setup("llama-3.1-8b");
    let mut dp = one.clone();
    dp.dp = 4;
    let (r1, r4) = (serve(&one).unwrap(), serve(&dp).unwrap());
    assert_eq!(r4.per_gpu, r1.per_gpu);
    assert_eq!((r4.gpus, r4.replicas), (4, 4));
    let v = verdict(&dp, &r4);
    assert!(v.contains("at once on each of 4 replicas ("), "{v}");
}

#[test]
fn expert_parallel_spreads_the_routed_experts_over_every_gpu_of_a_stage() {
    let mut s = setup("qwen3-30b-a3b");
    s.tp = 2;
    s.dp = 4;
    let plain = serve(&s).unwrap();
    s.expert_parallel = true;
    let ep = serve(&s).unwrap();
    let w = weight_bytes(&s.arch, GgufArch::Qwen2, s.checkpoint);
    assert_eq!(
        ep.per_gpu.weights,
        (w.total - w.experts).div_ceil(2) + w.experts.div_ceil(8)
    );
    assert!(ep.per_gpu.weights < plain.per_gpu.weights);
    assert!(ep.max_concurrency > plain.max_concurrency);
}

#[test]
fn what_cannot_be_split_is_refused_with_the_reason() {
    let mut dense = setup("llama-3.1-8b");
    dense.expert_parallel = true;
    assert!(serve(&dense)
        .unwrap_err()
        .to_string()
        .contains("needs routed experts"));
    let mut deep = setup("llama-3.1-8b");
    deep.pp = 33;
    assert!(serve(&deep).unwrap_err().to_string().contains(
        "pipeline parallel (at most one stage per layer) 33 is more than the 32 accepted"
    ));
    let mut llama = setup("llama-3.1-8b");
    llama.engine = Engine::LlamaCpp;
    llama.checkpoint = bitbudget_math::serve::Checkpoint::Q4KM;
    llama.dp = 2;
    assert!(serve(&llama)
        .unwrap_err()
        .to_string()
        .starts_with("data parallel is for vLLM, SGLang and TensorRT-LLM"));
}
