#!/usr/bin/env python3
"""Writes the Markdown section of one scripts/device_check.sh run: the CUDA validation table, the
native wgpu benchmark and the browser benchmark's line, naming the device and the date.

Figures from a CPU (no CUDA device, or a wgpu adapter of type Cpu such as Mesa's lavapipe) are
labelled as such and never enter docs/benchmarks.md as GPU figures: with --into, a Cpu adapter's
rows are left out of the file and the section says why.

Usage: device_report.py --bench JSON --browser TXT [--cuda JSON] [--device NAME] [--quick 0|1]
                        [--into docs/benchmarks.md]
Standard library only.
"""
import argparse
import datetime
import json
import pathlib
import sys

GIB = 2**30


def gib(b):
    return f"{b / GIB:.2f}"


def cuda_section(doc):
    lines = ["### The validation setups on CUDA tensors", ""]
    ctx = doc.get("context_bytes", {})
    if ctx:
        lines += [
            f"CUDA context (the device's used memory minus PyTorch's reserve): "
            f"{gib(ctx['at_start'])} GiB after CUDA starts, {gib(ctx['with_cublas_and_sdpa'])} GiB "
            "once cuBLAS and SDPA have run.",
            "",
        ]
    lines += [
        "| setup | tracked peak GiB | max allocated GiB | max reserved GiB | reserved − allocated |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    skipped = []
    for row in doc["setups"]:
        name = row["setup"]["name"]
        if "measured" not in row:
            skipped.append(f"{name}: {row.get('skipped') or row.get('error')}")
            continue
        m = row["measured"]
        c = m.get("cuda")
        if not c:
            lines.append(f"| {name} (CPU fallback, fake tensors) | {gib(m['peak']['total'])} | – | – | – |")
            continue
        extra = c["max_memory_reserved"] - c["max_memory_allocated"]
        lines.append(
            f"| {name} | {gib(m['peak']['total'])} | {gib(c['max_memory_allocated'])} | "
            f"{gib(c['max_memory_reserved'])} | {gib(extra)} |"
        )
    if skipped:
        lines += ["", "Not run: " + "; ".join(skipped) + "."]
    return lines


def bench_section(doc, into):
    lines = ["### The native wgpu benchmark", ""]
    if "error" in doc:
        return lines + [f"Not run: {doc['error']}."]
    a = doc["adapter"]
    cpu = a["device_type"] == "Cpu"
    lines.append(
        f"Adapter: {a['name']} ({a['backend']}, {a['device_type']}; {a['driver']} {a['driver_info']}), "
        f"each figure the median of {doc['reps']} runs, milliseconds of wall time."
    )
    if cpu:
        lines.append(
            "**CPU EMULATION**: this adapter runs on the CPU's own cores; its times say nothing "
            "about a GPU."
        )
        if into:
            return lines + ["", "Its rows are left out here (no Vulkan driver for the GPU was found)."]
    lines += [
        "",
        "| scheme | values | quantize CPU | quantize GPU | upload / compute / readback | lab CPU | lab GPU |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: |",
    ]

    def ms(v):
        if v is None:
            return "–"
        if isinstance(v, dict):
            return "error: " + v.get("error", "?")
        return f"{v:.1f}"

    for r in doc["rows"]:
        if "error" in r:
            lines.append(f"| {r['scheme']} | – | error: {r['error']} | | | | |")
            continue
        p = r["quantize_gpu_phases"]
        split = (
            f"{p['upload_ms']:.1f} / {p['compute_ms']:.1f} / {p['readback_ms']:.1f} ({p['compute_clock']})"
            if "upload_ms" in p
            else "error: " + p.get("error", "?")
        )
        lines.append(
            f"| {r['scheme']} | {r['weights'] / 2**20:.0f}M | {ms(r['quantize_cpu_ms'])} | "
            f"{ms(r['quantize_gpu_ms'])} | {split} | {ms(r['lab_cpu_ms'])} | {ms(r['lab_gpu_ms'])} |"
        )
    return lines


def section(args):
    today = datetime.date.today().isoformat()
    device = args.device or "no GPU (CPU fallback)"
    lines = [f"## Measured on {device} ({today})", ""]
    if not args.device:
        lines += ["**CPU FALLBACK: no figure below is a GPU figure.**", ""]
    quick = " --quick" if args.quick == "1" else ""
    lines += [f"`scripts/device_check.sh{quick}` on that machine.", ""]
    if args.cuda:
        lines += cuda_section(json.loads(pathlib.Path(args.cuda).read_text())) + [""]
    else:
        lines += ["### The validation setups on CUDA tensors", "", "Not run: no CUDA device or no PyTorch.", ""]
    lines += bench_section(json.loads(pathlib.Path(args.bench).read_text()), bool(args.into)) + [""]
    browser = [l for l in pathlib.Path(args.browser).read_text().splitlines() if "GB/s" in l or "not run" in l]
    lines += ["### The Quantize page's benchmark in Chromium", "", *(b.strip() for b in browser or ["No figure."]), ""]
    return "\n".join(lines)


def insert(text, path):
    """Puts the section before the file's first second-level heading (newest first)."""
    doc = pathlib.Path(path).read_text()
    at = doc.find("\n## ")
    at = len(doc) if at < 0 else at + 1
    pathlib.Path(path).write_text(doc[:at] + text + "\n" + doc[at:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--browser", required=True)
    ap.add_argument("--cuda")
    ap.add_argument("--device")
    ap.add_argument("--quick", default="0")
    ap.add_argument("--into")
    args = ap.parse_args()
    if args.into and not args.device:
        ap.error("--into writes GPU figures: name the --device")
    text = section(args)
    if args.into:
        insert(text, args.into)
        print(f"added a section to {args.into}:\n\n{text}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
