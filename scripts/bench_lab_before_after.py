#!/usr/bin/env python3
"""The Quantize lab's measuring pass and whole pipeline, before (a git ref, main by default) and
after (this tree), in one run. With --wasm: the whole pipeline in WebAssembly instead.

Exports the ref's tree with `git archive` into a temporary directory, adds this tree's
crates/math/benches/lab_measure.rs (and its benches/common/ helpers) to it, runs that criterion
bench there and here (one core, thread CPU time, the same generated input), and prints GB/s
(10^9 bytes of f32 input per CPU second) side by side with the ratio after / before.

With --wasm, the tree gets this tree's crates/math/tests/lab_wasm_pipeline.rs (which uses only
APIs older than the speed work).instead, and that test runs in Node.js (CPU time) in both trees,
alternately, `--rounds` times; the best of the rounds is printed.

Usage:
    python3 scripts/bench_lab_before_after.py [--before main] [--filter q8_0]
    python3 scripts/bench_lab_before_after.py --wasm --before ed9d253 [--rounds 2]
Needs cargo and git (and, for --wasm, wasm-bindgen-test-runner and node on PATH); only the
Python standard library.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from criterion_results import bench_gbs  # noqa: E402
from tree_export import export_ref, touch_math_sources  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCH = "crates/math/benches/lab_measure.rs"
HELPERS = ("crates/math/benches/common/cpu_time.rs", "crates/math/benches/common/lab_parts.rs")
WASM_TEST = "crates/math/tests/lab_wasm_pipeline.rs"
WASM_HELPERS = ("crates/math/tests/common/wasm_timing.rs",)


def export(ref, into, wasm=False):
    """The tree of `ref`, with this tree's bench (or wasm test) and what it needs added."""
    export_ref(ROOT, ref, into, (WASM_TEST, *WASM_HELPERS) if wasm else (BENCH, *HELPERS))
    toml = into / "crates/math/Cargo.toml"
    text = toml.read_text()
    if wasm and "\nwasm-bindgen =" not in text:
        text += "\n[target.'cfg(target_arch = \"wasm32\")'.dev-dependencies.wasm-bindgen]\n"
        text += "version = \"=0.2.130\"\n"
    if not wasm and 'name = "lab_measure"' not in text:
        text += '\n[[bench]]\nname = "lab_measure"\nharness = false\n'
    if not wasm and "\nlibc" not in text:
        text += "\n[target.'cfg(not(target_arch = \"wasm32\"))'.dev-dependencies]\nlibc = \"0.2\"\n"
    toml.write_text(text)


def run(tree, filt):
    """{(group, scheme): GB/s} of the bench in `tree` (its sources touched first: see
    `touch_math_sources`)."""
    touch_math_sources(tree)
    return bench_gbs(tree, "lab_measure", "lab_measure|lab_pipeline", args=[filt] if filt else [])


def run_wasm(tree):
    """{("pipeline" or "shared", scheme): GB/s} of the wasm pipeline test in `tree` (sources touched first,
    as in `run`)."""
    touch_math_sources(tree)
    cmd = ["cargo", "test", "--release", "-p", "bitbudget-math", "--target",
           "wasm32-unknown-unknown", "--test", "lab_wasm_pipeline", "--", "--nocapture"]
    env = dict(os.environ, CARGO_TARGET_DIR=str(ROOT / "target"))
    out = subprocess.run(cmd, cwd=tree, env=env, check=True, capture_output=True, text=True)
    results = {}
    for line in (out.stdout + out.stderr).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] in ("pipeline", "shared"):
            results[(parts[0], parts[1])] = float(parts[2])
    return results


def main_wasm(args):
    before, after = {}, {}
    with tempfile.TemporaryDirectory(prefix="bitbudget-before-") as tmp:
        before_tree = pathlib.Path(tmp)
        export(args.before, before_tree, wasm=True)
        for _ in range(args.rounds):
            for into, tree in ((before, before_tree), (after, ROOT)):
                for key, rate in run_wasm(tree).items():
                    into[key] = max(into.get(key, 0.0), rate)
    print(f"wasm lab pipeline, GB/s of f32 input per CPU second (Node.js), best of {args.rounds} "
          f"alternating rounds; before = {args.before}, after = this tree")
    print("pipeline: lab::analyse (the tensor's overview included); shared: the scheme's own "
          "work, the overview computed once beforehand (as the lab does for all its schemes)")
    print(f"{'scheme':16} {'pipeline before':>16} {'after':>8} {'×':>6}   "
          f"{'shared before':>14} {'after':>8} {'×':>6}")
    nan = float("nan")
    for scheme in dict.fromkeys(name for _, name in after):
        cells = []
        for group in ("pipeline", "shared"):
            b, a = before.get((group, scheme), nan), after.get((group, scheme), nan)
            cells.append(f"{b:{16 if group == 'pipeline' else 14}.3f} {a:8.3f} {a / b:6.2f}")
        print(f"{scheme:16} {cells[0]}   {cells[1]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="main", help="git ref of the 'before' tree")
    parser.add_argument("--filter", default="", help="criterion filter (a scheme name)")
    parser.add_argument("--wasm", action="store_true", help="the wasm pipeline instead")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (--wasm)")
    args = parser.parse_args()
    if args.wasm:
        return main_wasm(args)
    with tempfile.TemporaryDirectory(prefix="bitbudget-before-") as tmp:
        before_tree = pathlib.Path(tmp)
        export(args.before, before_tree)
        before = run(before_tree, args.filter)
    after = run(ROOT, args.filter)
    print(f"GB/s of f32 input per CPU second, one core; before = {args.before}, after = this tree")
    print(f"{'group':13} {'scheme':16} {'before':>8} {'after':>8} {'after/before':>13}")
    for key in sorted(after, key=lambda k: (k[0], list(after).index(k))):
        b, a = before.get(key, float("nan")), after[key]
        print(f"{key[0]:13} {key[1]:16} {b:8.3f} {a:8.3f} {a / b:13.2f}")


if __name__ == "__main__":
    main()
