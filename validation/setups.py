"""The measured setups. Each one names everything bitbudget needs to recompute it.

precision: "autocast-bf16" = FP32 parameters, gradients and Adam states with torch.autocast(bfloat16)
(PyTorch's mixed precision); "bf16" = BF16 parameters, gradients and Adam states (no master copy);
"fp32" = FP32 everything. LoRA/QLoRA adapters are FP32, peft's default (autocast_adapter_dtype=True).
"""


def setup(name, config, family, mode, **kw):
    s = {
        "name": name,
        "config": config,
        "family": family,
        "mode": mode,
        "precision": "bf16",
        "optimizer": "none" if mode == "inference" else "adamw-foreach",
        "attention": "sdpa",
        "checkpointing": False,
        "lora_rank": 0,
        "lora_targets": [],
        "lora_dropout": 0.0,
        "adapter_dtype": "fp32",
        "batch": 1,
        "seq": 2048,
        "decode_steps": 0,
    }
    s.update(kw)
    s["params_dtype"] = {"autocast-bf16": "fp32", "bf16": "bf16", "fp32": "fp32"}[s["precision"]]
    return s


QV = ["q_proj", "v_proj"]
ALL = "all-linear"
AC = "autocast-bf16"
# Transformers' experts implementation on a GPU (its default where grouped_mm can dispatch).
MOE = {"experts": "grouped_mm"}

SETUPS = [
    # Small models: every family, both attention kernels, both optimizer implementations.
    setup("gpt2-autocast-foreach-eager", "gpt2.json", "gpt2", "train", precision=AC, attention="eager", batch=4, seq=1024),
    setup("gpt2-autocast-fused-sdpa", "gpt2.json", "gpt2", "train", precision=AC, optimizer="adamw-fused", batch=4, seq=1024),
    setup("gpt2-bf16-foreach-sdpa-b8", "gpt2.json", "gpt2", "train", batch=8, seq=512),
    setup("opt-125m-autocast-foreach-eager", "opt-125m.json", "opt", "train", precision=AC, attention="eager", batch=2),
    setup("pythia-160m-autocast-fused-sdpa", "pythia-160m.json", "gpt_neox", "train", precision=AC, optimizer="adamw-fused", batch=4),
    setup("pythia-160m-autocast-fused-sdpa-ckpt", "pythia-160m.json", "gpt_neox", "train", precision=AC, optimizer="adamw-fused", batch=4, checkpointing=True),
    setup("qwen2.5-0.5b-bf16-fused-sdpa-b2", "qwen2.5-0.5b.json", "qwen2", "train", optimizer="adamw-fused", batch=2),
    setup("qwen2.5-0.5b-autocast-foreach-eager", "qwen2.5-0.5b.json", "qwen2", "train", precision=AC, attention="eager"),
    setup("llama-3.2-1b-autocast-foreach-sdpa", "llama-3.2-1b.json", "llama", "train", precision=AC, seq=4096),
    setup("llama-3.2-1b-autocast-foreach-sdpa-ckpt", "llama-3.2-1b.json", "llama", "train", precision=AC, seq=4096, checkpointing=True),
    setup("phi-3-mini-bf16-fused-sdpa-ckpt", "phi-3-mini-4k.json", "phi3", "train", optimizer="adamw-fused", seq=4096, checkpointing=True),
    # Llama-3-8B shapes: the cases.
    setup("llama-3-8b-autocast-foreach-sdpa", "llama-3-8b.json", "llama", "train", precision=AC, seq=4096),
    setup("llama-3-8b-bf16-fused-sdpa", "llama-3-8b.json", "llama", "train", optimizer="adamw-fused", seq=4096),
    setup("llama-3-8b-autocast-foreach-eager-ckpt", "llama-3-8b.json", "llama", "train", precision=AC, attention="eager", checkpointing=True),
    setup("mistral-7b-autocast-fused-sdpa-ckpt-b2", "mistral-7b.json", "mistral", "train", precision=AC, optimizer="adamw-fused", batch=2, seq=4096, checkpointing=True),
    # LoRA and QLoRA-shaped fine-tuning.
    setup("llama-3-8b-lora-qv-dropout-sdpa", "llama-3-8b.json", "llama", "lora", lora_rank=16, lora_targets=QV, lora_dropout=0.05),
    setup("llama-3-8b-lora-all-eager-ckpt", "llama-3-8b.json", "llama", "lora", attention="eager", checkpointing=True, lora_rank=16, lora_targets=ALL),
    setup("llama-3-70b-lora-qv-sdpa-ckpt", "llama-3-70b.json", "llama", "lora", checkpointing=True, lora_rank=16, lora_targets=QV),
    setup("llama-3-8b-qlora-all-dropout-sdpa-ckpt", "llama-3-8b.json", "llama", "qlora", checkpointing=True, lora_rank=64, lora_targets=ALL, lora_dropout=0.05),
    setup("llama-3-70b-qlora-all-sdpa-ckpt-b2", "llama-3-70b.json", "llama", "qlora", checkpointing=True, lora_rank=16, lora_targets=ALL, batch=2),
    # Inference with a KV cache: prefill, then decode steps.
    setup("llama-3-8b-infer-sdpa-1k", "llama-3-8b.json", "llama", "inference", seq=1024, decode_steps=16),
    setup("llama-3-8b-infer-sdpa-8k-b4", "llama-3-8b.json", "llama", "inference", seq=8192, decode_steps=16, batch=4),
    setup("llama-3-8b-infer-eager-1k", "llama-3-8b.json", "llama", "inference", attention="eager", seq=1024, decode_steps=16),
    setup("llama-3-70b-infer-sdpa-4k", "llama-3-70b.json", "llama", "inference", seq=4096, decode_steps=8),
    setup("mistral-7b-infer-sdpa-8k-window", "mistral-7b.json", "mistral", "inference", seq=8192, decode_steps=8),
    setup("qwen2.5-0.5b-infer-sdpa-2k-b8", "qwen2.5-0.5b.json", "qwen2", "inference", seq=2048, decode_steps=16, batch=8),
    setup("gpt2-infer-fp32-eager-1k", "gpt2.json", "gpt2", "inference", precision="fp32", attention="eager", seq=1000, decode_steps=16),
    # Checkpointing under every precision recipe.
    setup("qwen2.5-0.5b-bf16-foreach-sdpa-ckpt-b4", "qwen2.5-0.5b.json", "qwen2", "train", batch=4, checkpointing=True),
    setup("llama-3.2-1b-fp32-fused-sdpa", "llama-3.2-1b.json", "llama", "train", precision="fp32", optimizer="adamw-fused"),
    setup("llama-3.2-1b-fp32-foreach-sdpa-ckpt", "llama-3.2-1b.json", "llama", "train", precision="fp32", seq=4096, checkpointing=True),
    setup("llama-3.2-1b-autocast-fused-eager-ckpt-b2", "llama-3.2-1b.json", "llama", "train", precision=AC, optimizer="adamw-fused", attention="eager", batch=2, checkpointing=True),
    # LoRA and QLoRA at 4k and 8k: checkpointing and adapter dropout on and off (a half factorial).
    setup("llama-3.2-1b-lora-all-dropout-4k-ckpt", "llama-3.2-1b.json", "llama", "lora", seq=4096, checkpointing=True, lora_rank=16, lora_targets=ALL, lora_dropout=0.05),
    setup("llama-3.2-1b-lora-all-4k", "llama-3.2-1b.json", "llama", "lora", seq=4096, lora_rank=16, lora_targets=ALL),
    setup("llama-3.2-1b-lora-qv-8k-ckpt", "llama-3.2-1b.json", "llama", "lora", seq=8192, checkpointing=True, lora_rank=16, lora_targets=QV),
    setup("llama-3.2-1b-lora-qv-dropout-8k", "llama-3.2-1b.json", "llama", "lora", seq=8192, lora_rank=16, lora_targets=QV, lora_dropout=0.1),
    setup("llama-3.2-1b-qlora-all-4k-ckpt", "llama-3.2-1b.json", "llama", "qlora", seq=4096, checkpointing=True, lora_rank=64, lora_targets=ALL),
    setup("llama-3.2-1b-qlora-all-dropout-4k", "llama-3.2-1b.json", "llama", "qlora", seq=4096, lora_rank=64, lora_targets=ALL, lora_dropout=0.05),
    setup("llama-3.2-1b-qlora-all-dropout-8k-ckpt", "llama-3.2-1b.json", "llama", "qlora", seq=8192, checkpointing=True, lora_rank=16, lora_targets=ALL, lora_dropout=0.05),
    setup("llama-3.2-1b-qlora-qv-8k", "llama-3.2-1b.json", "llama", "qlora", seq=8192, lora_rank=16, lora_targets=QV),
    # Small models whose logits dominate (Qwen2.5's 152k and Gemma 3's 262k vocabularies).
    setup("qwen2.5-0.5b-bf16-fused-sdpa-8k-b2", "qwen2.5-0.5b.json", "qwen2", "train", optimizer="adamw-fused", batch=2, seq=8192),
    setup("gemma-3-1b-bf16-fused-sdpa-4k-b2", "gemma-3-1b.json", "gemma3_text", "train", optimizer="adamw-fused", batch=2, seq=4096),
    setup("gemma-3-1b-autocast-foreach-sdpa-ckpt-b4", "gemma-3-1b.json", "gemma3_text", "train", precision=AC, batch=4, checkpointing=True),
    # Mixture of experts (grouped_mm experts), MLA, attention sinks and alternating windows.
    setup("qwen3-30b-a3b-bf16-fused-sdpa-ckpt", "qwen3-30b-a3b.json", "qwen3_moe", "train", optimizer="adamw-fused", checkpointing=True, **MOE),
    setup("qwen3-30b-a3b-bf16-fused-sdpa-1k", "qwen3-30b-a3b.json", "qwen3_moe", "train", optimizer="adamw-fused", seq=1024, **MOE),
    setup("deepseek-v2-lite-bf16-fused-eager-1k", "deepseek-v2-lite.json", "deepseek_v2", "train", optimizer="adamw-fused", attention="eager", seq=1024, **MOE),
    setup("qwen3-30b-a3b-lora-qv-sdpa", "qwen3-30b-a3b.json", "qwen3_moe", "lora", lora_rank=16, lora_targets=QV, **MOE),
    setup("gpt-oss-20b-bf16-fused-eager-ckpt", "gpt-oss-20b.json", "gpt_oss", "train", optimizer="adamw-fused", attention="eager", checkpointing=True, **MOE),
    setup("deepseek-v2-lite-bf16-fused-sdpa-ckpt", "deepseek-v2-lite.json", "deepseek_v2", "train", optimizer="adamw-fused", checkpointing=True, **MOE),
    # Inference with long prompts.
    setup("llama-3.2-1b-infer-sdpa-32k", "llama-3.2-1b.json", "llama", "inference", seq=32768, decode_steps=8),
    setup("gemma-3-1b-infer-sdpa-32k-window", "gemma-3-1b.json", "gemma3_text", "inference", seq=32768, decode_steps=8),
    setup("qwen3-30b-a3b-infer-sdpa-32k", "qwen3-30b-a3b.json", "qwen3_moe", "inference", seq=32768, decode_steps=8, **MOE),
    setup("gpt-oss-20b-infer-eager-8k-window", "gpt-oss-20b.json", "gpt_oss", "inference", attention="eager", seq=8192, decode_steps=8, **MOE),
    setup("deepseek-v2-lite-infer-sdpa-8k", "deepseek-v2-lite.json", "deepseek_v2", "inference", seq=8192, decode_steps=8, **MOE),
]
