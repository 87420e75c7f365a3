"""The validation setups on real CUDA tensors: what the caching allocator reports, beside the
per-category peaks that harness.py's storage log sees, and the CUDA context's size.

For each setup in setups.py that fits the GPU (its fake-tensor peak in results.json, plus a
margin, under the GPU's memory), smallest first, until the time budget is spent: the same two
training steps or prefill and decode as harness.py, with the model built directly on the GPU
(random weights: memory does not depend on their values), and
`torch.cuda.max_memory_allocated`, `max_memory_reserved` and a few `memory_stats()` counters
recorded. The CUDA context is the device's used memory (`cudaMemGetInfo`) minus what PyTorch has
reserved, after CUDA starts and again after cuBLAS and SDPA have run once.

Without a CUDA device nothing is written as a GPU figure: `--plan-only` (no PyTorch needed)
prints which setups a GPU of `--gpu-gib` would run, and with PyTorch but no GPU the smallest setup
runs on fake tensors, labelled as a CPU fallback, into the `--out` given (never results-cuda.json).

Usage: python3 cuda_check.py [--out FILE] [--budget-s 300] [--only NAME ...]
       python3 cuda_check.py --plan-only [--gpu-gib 80]
"""

import argparse
import gc
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CUDA_RESULTS = os.path.join(HERE, "results-cuda.json")
# Room left beside a setup's fake-tensor peak: the CUDA context, cuBLAS workspaces and the caching
# allocator's rounding and fragmentation.
MARGIN_FRACTION = 0.15
MARGIN_BYTES = 3 * 2**30
STATS = (
    "allocated_bytes.all.peak",
    "reserved_bytes.all.peak",
    "active_bytes.all.peak",
    "inactive_split_bytes.all.peak",
    "num_alloc_retries",
    "num_ooms",
    "num_device_alloc",
)


def fake_peaks(path=os.path.join(HERE, "results.json")):
    """Each setup's largest fake-tensor peak in bytes (the second step's, or the first's if
    larger), by name, from harness.py's committed results. A QLoRA-shaped model is built in BF16
    before its linear layers are replaced: that transient counts too."""
    with open(path) as f:
        doc = json.load(f)
    peaks = {}
    for row in doc["setups"]:
        m = row.get("measured")
        if m:
            build = 2 * m["base_params"] if row["setup"]["mode"] == "qlora" else 0
            peaks[row["setup"]["name"]] = max(m["peak"]["total"], m.get("first_step_peak", 0), build)
    return peaks


def plan(setups, peaks, gpu_bytes, only=None):
    """(to run, smallest first; skipped with the reason) for a GPU of `gpu_bytes`."""
    run, skipped = [], []
    for s in setups:
        if only and s["name"] not in only:
            continue
        peak = peaks.get(s["name"])
        if peak is None:
            skipped.append((s, "no fake-tensor measurement in results.json to size it by"))
            continue
        need = peak * (1 + MARGIN_FRACTION) + MARGIN_BYTES
        if need > gpu_bytes:
            skipped.append(
                (s, f"needs about {need / 2**30:.1f} GiB, the GPU has {gpu_bytes / 2**30:.1f} GiB")
            )
            continue
        run.append((peak, s))
    run.sort(key=lambda p: p[0])
    return [s for _, s in run], skipped


def context_bytes(torch):
    """The device's used memory minus what PyTorch has reserved (bytes)."""
    free, total = torch.cuda.mem_get_info()
    return total - free - torch.cuda.memory_reserved()


def measure_cuda(harness, torch, setup):
    """harness.measure's run on real CUDA tensors, with the allocator's figures."""
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    started = time.time()
    measured = harness.measure(setup, device="cuda")
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    measured["cuda"] = {
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
        "memory_stats": {k: stats.get(k) for k in STATS},
    }
    measured["seconds"] = round(time.time() - started, 1)
    gc.collect()
    torch.cuda.empty_cache()
    return measured


def print_plan(run, skipped, gpu_bytes):
    print(f"a GPU of {gpu_bytes / 2**30:.1f} GiB would run {len(run)} setups, smallest first:")
    for s in run:
        print(f"  {s['name']}")
    for s, why in skipped:
        print(f"  skip {s['name']}: {why}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=CUDA_RESULTS)
    ap.add_argument("--budget-s", type=float, default=300.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--plan-only", action="store_true")
    ap.add_argument("--gpu-gib", type=float, default=80.0)
    args = ap.parse_args()
    if not args.budget_s > 0 or not args.gpu_gib > 0:
        ap.error("--budget-s and --gpu-gib must be positive numbers")
    from setups import SETUPS

    peaks = fake_peaks()
    if args.plan_only:
        run, skipped = plan(SETUPS, peaks, args.gpu_gib * 2**30, args.only)
        print_plan(run, skipped, args.gpu_gib * 2**30)
        return 0 if run else 1

    import torch
    import harness

    cuda = torch.cuda.is_available()
    if not cuda:
        if os.path.abspath(args.out) == CUDA_RESULTS:
            print("no CUDA device: results-cuda.json holds GPU figures only; pass --out", file=sys.stderr)
            return 2
        run, _ = plan(SETUPS, peaks, args.gpu_gib * 2**30, args.only)
        smallest = run[0]
        print(f"CPU FALLBACK (fake tensors, not a GPU figure): {smallest['name']}", flush=True)
        measured = harness.measure(smallest)
        doc = {
            "about": "CPU fallback of validation/cuda_check.py: fake tensors on the CPU, no GPU figure.",
            "device": {"kind": "cpu-fallback"},
            "versions": harness.versions(),
            "setups": [{"setup": smallest, "measured": measured}],
        }
        write(doc, args.out)
        return 0

    torch.cuda.init()
    torch.ones(1, device="cuda")
    context_at_start = context_bytes(torch)
    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    q = torch.randn(1, 4, 128, 64, device="cuda", dtype=torch.bfloat16)
    (a @ a).sum().item()
    torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True).sum().item()
    del a, q
    torch.cuda.empty_cache()
    context_with_libraries = context_bytes(torch)
    props = torch.cuda.get_device_properties(0)
    run, skipped = plan(SETUPS, peaks, props.total_memory, args.only)
    rows = [{"setup": s, "skipped": why} for s, why in skipped]
    deadline = time.time() + args.budget_s
    for s in run:
        if time.time() > deadline:
            rows.append({"setup": s, "skipped": f"the time budget of {args.budget_s:.0f} s was spent"})
            continue
        print(f"{s['name']} ...", flush=True)
        try:
            measured = measure_cuda(harness, torch, s)
        except Exception as e:  # reported, not hidden
            rows.append({"setup": s, "error": f"{type(e).__name__}: {e}"[:500]})
            print(f"  error: {type(e).__name__}: {e}"[:300], flush=True)
            gc.collect()
            torch.cuda.empty_cache()
            continue
        c = measured["cuda"]
        print(
            f"  {measured['seconds']} s: allocated {c['max_memory_allocated'] / 2**30:.2f} GiB, "
            f"reserved {c['max_memory_reserved'] / 2**30:.2f} GiB, tracked peak "
            f"{measured['peak']['total'] / 2**30:.2f} GiB",
            flush=True,
        )
        rows.append({"setup": s, "measured": measured})
    doc = {
        "about": "validation/cuda_check.py on a CUDA device: harness.py's setups on real tensors. "
        "max_memory_allocated/reserved are the caching allocator's peaks; context_bytes is the "
        "device's used memory minus PyTorch's reserve.",
        "device": {
            "kind": "cuda",
            "name": props.name,
            "total_memory": props.total_memory,
            "multiprocessors": props.multi_processor_count,
            "cuda": torch.version.cuda,
        },
        "context_bytes": {"at_start": context_at_start, "with_cublas_and_sdpa": context_with_libraries},
        "versions": harness.versions(),
        "date": time.strftime("%Y-%m-%d"),
        "setups": rows,
    }
    write(doc, args.out)
    return 0


def write(doc, path):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
