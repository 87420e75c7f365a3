"""Measures the tensor memory of real PyTorch training steps and inference runs without a GPU.

Each setup in setups.py builds its model from a config.json in configs/ under FakeTensorMode (tensors
with shapes, dtypes and devices but no storage), runs two training steps (forward, backward,
optimizer step; the second one is reported, so the optimizer states and the freed gradients are in
their steady state) or a prefill plus a few decode steps with a KV cache, and logs every storage
that comes to life or dies. Afterwards each storage gets its category (weights, gradients,
optimizer states, KV cache, activations kept for backward, temporaries) and the log is replayed to
find each phase's peak and what was live at that moment.

Usage: python harness.py [--only NAME ...] [--out results.json] [--merge]
(--merge keeps the rows already in the output file and replaces or appends only the measured ones.)
"""

import argparse
import json
import os
import platform
import sys
import time
import weakref

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402
import peft  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

from qlora_shape import quantize_linears_nf4_shaped  # noqa: E402
from setups import SETUPS  # noqa: E402

# peft moves new adapters to the base layer's device with Module.to(), which swaps fake tensors, and
# fake tensors with weak references cannot be swapped. Everything here is on the CPU device already,
# so a move to it is skipped; peft's default (autocast_adapter_dtype=True) keeps adapters in FP32.
peft.tuners.tuners_utils.BaseTunerLayer._move_adapter_to_device_of_base_layer = (
    lambda self, adapter_name, device=None: None
)
_module_to = torch.nn.Module.to


def _to_unless_cpu_move(self, *args, **kwargs):
    only_device = not kwargs and len(args) == 1 and isinstance(args[0], (torch.device, str))
    if only_device and torch.device(args[0]).type == "cpu":
        return self
    return _module_to(self, *args, **kwargs)


torch.nn.Module.to = _to_unless_cpu_move

HERE = os.path.dirname(os.path.abspath(__file__))
CATEGORIES = ["weights", "gradients", "optimizer", "activations", "temporaries", "kv_cache"]


class StorageLog(TorchDispatchMode):
    """Logs (time, +bytes/-bytes, storage key) for every storage an operator creates, and lets the
    caller register storages that existed before (the weights). A storage dies when Python drops
    its last reference (a weakref callback on the untyped storage, as MemTracker does)."""

    def __init__(self):
        super().__init__()
        self.events = []  # (tick, delta_bytes, key)
        self.live = {}  # id(storage) -> (key, weakref)
        self.info = {}  # key -> dict(bytes, born, phase)
        self.tick = 0
        self.phase = "setup"
        self.next_key = 0
        self.phase_marks = []  # (phase, first tick)

    def set_phase(self, name):
        self.phase = name
        self.phase_marks.append((name, self.tick))

    def key_of(self, storage):
        entry = self.live.get(id(storage))
        if entry is not None and entry[1]() is storage:
            return entry[0]
        return None

    def add(self, storage):
        if self.key_of(storage) is not None:
            return self.key_of(storage)
        nbytes = storage.nbytes()
        key = self.next_key
        self.next_key += 1
        self.tick += 1
        self.info[key] = {"bytes": nbytes, "born": self.tick, "phase": self.phase, "died": None}
        self.events.append((self.tick, nbytes, key))
        sid = id(storage)

        def gone(_ref, key=key, sid=sid, nbytes=nbytes):
            self.tick += 1
            self.events.append((self.tick, -nbytes, key))
            self.info[key]["died"] = self.tick
            entry = self.live.get(sid)
            if entry is not None and entry[0] == key:
                del self.live[sid]

        self.live[sid] = (key, weakref.ref(storage, gone))
        return key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        flat, _ = tree_flatten(out)
        for t in flat:
            if isinstance(t, torch.Tensor):
                self.add(t.untyped_storage())
        return out


def keys_of_tensors(log, tensors):
    keys = set()
    for t in tensors:
        if isinstance(t, torch.Tensor):
            k = log.key_of(t.untyped_storage())
            if k is not None:
                keys.add(k)
    return keys


def replay(log, categories):
    """Per phase: the peak of live bytes, and the bytes of each category at that tick."""
    phases = {}
    bounds = log.phase_marks + [("end", log.tick + 1)]
    live_by_cat = {c: 0 for c in CATEGORIES}
    total = 0
    ev = sorted(log.events)
    i = 0
    for (name, start), (_next, stop) in zip(bounds, bounds[1:]):
        # Apply everything before the phase starts.
        while i < len(ev) and ev[i][0] < start:
            _, delta, key = ev[i]
            live_by_cat[categories[key]] += delta
            total += delta
            i += 1
        best = {"total": total, **live_by_cat}
        while i < len(ev) and ev[i][0] < stop:
            _, delta, key = ev[i]
            live_by_cat[categories[key]] += delta
            total += delta
            if total > best["total"]:
                best = {"total": total, **live_by_cat}
            i += 1
        phases[name] = best
    return phases


def _unpacked(position_ids):
    """What `find_packed_sequence_indices` returns for real tensors here: None (one sequence per
    row). On fake tensors it cannot read the positions, counts as tracing and returns the packed
    index tensor, so Transformers would build a boolean b × 1 × s × s causal mask, SDPA would get
    it (and save its additive copy) instead of `is_causal`, and GQA models would repeat K and V per
    query head instead of `enable_gqa`: none of which a GPU run does."""
    return None


# Every setup takes the mask path a GPU run takes (see _unpacked).
transformers.masking_utils.find_packed_sequence_indices = _unpacked


def build_model(setup):
    cfg_path = os.path.join(HERE, "configs", setup["config"])
    config = transformers.AutoConfig.from_pretrained(cfg_path)
    if setup["mode"] != "inference":
        config.use_cache = False
    dtype = torch.float32 if setup["params_dtype"] == "fp32" else torch.bfloat16
    # MoE blocks: the experts implementation Transformers picks on a GPU ("grouped_mm": every
    # token's routed copies in one sorted batch, so the tensors' shapes do not depend on routing).
    extra = {"experts_implementation": setup["experts"]} if setup.get("experts") else {}
    model = transformers.AutoModelForCausalLM.from_config(
        config, dtype=dtype, attn_implementation=setup["attention"], **extra
    )
    model.base_params = sum(p.numel() for p in model.parameters())
    if setup["mode"] in ("lora", "qlora"):
        model.requires_grad_(False)
        if setup["mode"] == "qlora":
            quantize_linears_nf4_shaped(model)
        if setup["checkpointing"]:
            model.enable_input_require_grads()
        lora = peft.LoraConfig(
            r=setup["lora_rank"],
            lora_alpha=2 * setup["lora_rank"],
            lora_dropout=setup["lora_dropout"],
            target_modules=setup["lora_targets"],
            task_type="CAUSAL_LM",
        )
        model = peft.get_peft_model(model, lora)
    if setup["checkpointing"]:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if setup["mode"] == "inference":
        model.eval()
    else:
        model.train()
    return model


def run_training(setup, model, log, device="cpu"):
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt_kwargs = {"lr": 1e-4, "weight_decay": 0.0}
    if setup["optimizer"] == "adamw-fused":
        opt_kwargs["fused"] = True
    elif setup["optimizer"] == "adamw-foreach":
        opt_kwargs["foreach"] = True
    else:
        raise ValueError(setup["optimizer"])
    optimizer = torch.optim.AdamW(trainable, **opt_kwargs)
    b, s = setup["batch"], setup["seq"]
    vocab = model.config.vocab_size
    autocast = setup["precision"] == "autocast-bf16"
    for step in (1, 2):
        with log:
            ids = torch.randint(0, vocab, (b, s))
            log.set_phase(f"forward{step}")
            with torch.autocast(device, dtype=torch.bfloat16, enabled=autocast):
                out = model(input_ids=ids, labels=ids)
            loss = out.loss
            del out
            log.set_phase(f"backward{step}")
            loss.backward()
            del loss
            log.set_phase(f"optimizer{step}")
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            del ids
            log.set_phase(f"after{step}")
    return trainable, optimizer


def run_inference(setup, model, log):
    b, s, steps = setup["batch"], setup["seq"], setup["decode_steps"]
    vocab = model.config.vocab_size
    cache_keys = set()
    cache = transformers.DynamicCache(config=model.config)
    with torch.no_grad(), log:
        ids = torch.randint(0, vocab, (b, s))
        log.set_phase("prefill")
        out = model(input_ids=ids, past_key_values=cache, use_cache=True, logits_to_keep=1)
        cache_keys |= keys_of_tensors(log, cache_tensors(cache))
        nxt = out.logits[:, -1:].argmax(-1)
        del out, ids
        log.set_phase("decode")
        for _ in range(steps):
            out = model(input_ids=nxt, past_key_values=cache, use_cache=True, logits_to_keep=1)
            cache_keys |= keys_of_tensors(log, cache_tensors(cache))
            nxt = out.logits[:, -1:].argmax(-1)
            del out
        log.set_phase("after")
    return cache_keys, cache


def cache_tensors(cache):
    tensors = []
    for layer in getattr(cache, "layers", []):
        for name in ("keys", "values"):
            t = getattr(layer, name, None)
            if isinstance(t, torch.Tensor):
                tensors.append(t)
    if not tensors:  # older transformers
        tensors = list(getattr(cache, "key_cache", [])) + list(getattr(cache, "value_cache", []))
    return tensors


def measure(setup, device="cpu"):
    """One setup's per-phase peaks by category: on fake tensors on the CPU device, or with
    device="cuda" on real tensors on the GPU (cuda_check.py)."""
    started = time.time()
    where = FakeTensorMode(allow_non_fake_inputs=False) if device == "cpu" else torch.device(device)
    log = StorageLog()
    with where:
        model = build_model(setup)
        grad_keys = set()
        mark_gradients(model, log, grad_keys)
        weights = set()
        for t in list(model.parameters()) + list(model.buffers()):
            weights.add(log.add(t.untyped_storage()))
        n_params = sum(p.numel() for p in model.parameters())
        base_params = getattr(model, "base_params", None) or model.get_base_model().base_params
        n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
        param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
        extra = {}
        if setup["mode"] == "inference":
            cache_keys, cache = run_inference(setup, model, log)
            # What the cache holds once the decode steps have run (a sliding-window layer keeps a
            # view of the whole prompt until its first decode step replaces it with the window).
            after = keys_of_tensors(log, cache_tensors(cache))
            extra["kv_cache_after_decode"] = sum(log.info[k]["bytes"] for k in after)
            grads, opt_keys = set(), set()
        else:
            trainable, optimizer = run_training(setup, model, log, device)
            cache_keys = set()
            grads = grad_keys
            opt_keys = keys_of_tensors(
                log, [v for st in optimizer.state.values() for v in st.values()]
            )
    categories = {}
    for key, info in log.info.items():
        if key in weights:
            categories[key] = "weights"
        elif key in cache_keys:
            categories[key] = "kv_cache"
        elif key in grads:
            categories[key] = "gradients"
        elif key in opt_keys:
            categories[key] = "optimizer"
        elif info["phase"].startswith("forward") and (
            info["died"] is None or phase_of(log, info["died"]).startswith("backward")
        ):
            categories[key] = "activations"
        else:
            categories[key] = "temporaries"
    phases = replay(log, categories)
    if setup["mode"] == "inference":
        report = {k: phases[k] for k in ("prefill", "decode")}
    else:
        report = {k: phases[f"{k}2"] for k in ("forward", "backward", "optimizer")}
        report["first_step_peak"] = max(phases[f"{k}1"]["total"] for k in ("forward", "backward", "optimizer"))
    peak_phase = max(
        (k for k in report if k != "first_step_peak"), key=lambda k: report[k]["total"]
    )
    return {
        "params": n_params,
        "base_params": base_params,
        "trainable_params": n_trainable,
        "param_bytes": param_bytes,
        "phases": report,
        "peak_phase": peak_phase,
        "peak": report[peak_phase],
        "seconds": round(time.time() - started, 1),
        **extra,
    }


def phase_of(log, tick):
    name = "setup"
    for phase, start in log.phase_marks:
        if start <= tick:
            name = phase
    return name


def mark_gradients(model, log, grad_keys):
    """Marks every tensor that autograd stores in a parameter's .grad as a gradient, at the moment
    AccumulateGrad stores it (post-accumulate-grad hook)."""

    def hook(param):
        if param.grad is not None:
            grad_keys.add(log.add(param.grad.untyped_storage()))

    for p in model.parameters():
        if p.requires_grad:
            p.register_post_accumulate_grad_hook(hook)


def versions():
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "results.json"))
    ap.add_argument("--merge", action="store_true", help="keep the other rows of --out")
    args = ap.parse_args()
    torch.manual_seed(0)
    rows = []
    for setup in SETUPS:
        if args.only and setup["name"] not in args.only:
            continue
        print(f"{setup['name']} ...", flush=True)
        try:
            measured = measure(setup)
        except Exception as e:  # a setup that cannot run is reported, not hidden
            import traceback

            traceback.print_exc()
            rows.append({"setup": setup, "error": f"{type(e).__name__}: {e}"[:500]})
            continue
        peak = measured["peak"]
        print(
            f"  {measured['seconds']} s, peak {peak['total'] / 1e9:.3f} GB in {measured['peak_phase']}: "
            + ", ".join(f"{c} {peak[c] / 1e9:.3f}" for c in CATEGORIES),
            flush=True,
        )
        rows.append({"setup": setup, "measured": measured})
    doc_versions = versions()
    if args.merge and os.path.exists(args.out):
        with open(args.out) as f:
            old = json.load(f)
        # The file's versions stay those of its first rows; rows measured with other versions
        # name their own.
        if old["versions"] != doc_versions:
            for r in rows:
                r["versions"] = doc_versions
            doc_versions = old["versions"]
        fresh = {r["setup"]["name"]: r for r in rows}
        kept = [fresh.pop(r["setup"]["name"], r) for r in old["setups"]]
        rows = kept + [r for r in rows if r["setup"]["name"] in fresh]
    doc = {
        "about": "Peak live tensor bytes of real PyTorch runs under FakeTensorMode on the CPU device "
        "(validation/harness.py). Bytes are exact storage sizes; no CUDA context, caching allocator "
        "or fragmentation is included.",
        "versions": doc_versions,
        "categories": CATEGORIES,
        "setups": rows,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}: {len(rows)} setups, {sum('error' in r for r in rows)} errors")


if __name__ == "__main__":
    sys.exit(main())
