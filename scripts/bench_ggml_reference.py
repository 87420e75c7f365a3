#!/usr/bin/env python3
"""llama.cpp's reference GGML quantizers against bitbudget's, on the same input, in one run.

Builds (once) llama.cpp's ggml-quants.c from the llama-cpp-python source distribution with
scripts/build_llama_reference.py, writes one N(0, 1) f32 input file, and runs the criterion bench
crates/math/benches/ggml.rs on it: for each of q8_0 q4_0 q4_1 q5_0 q5_1 mxfp4, llama.cpp's
`quantize_row_*_ref` (loaded into the bench process), bitbudget's scalar reference (the code
before the fast paths) and bitbudget's quantizer, one after the other on one core, after
checking that llama.cpp's bytes equal ours. Prints GB/s (10^9 bytes of f32 input per second).

Usage:
    python3 scripts/bench_ggml_reference.py [--mib 16]
Only the Python standard library is needed (and cargo, gcc, pip for the first build).
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import build_llama_reference as ref_lib  # noqa: E402
from criterion_results import bench_gbs  # noqa: E402

GGML = ["q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "mxfp4"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=16, help="input size in MiB")
    args = parser.parse_args()
    ref_lib.fetch_and_build()
    _, path = ref_lib.bench_input(args.mib)
    found = bench_gbs(ref_lib.ROOT, "ggml", "ggml_quantize",
                      env={"KQUANT_BENCH_INPUT": str(path)})
    r = {name: gbs for (_, name), gbs in found.items()}
    nan = float("nan")
    print(f"{args.mib} MiB of N(0,1) f32 ({path.name}), quantize GB/s, one core, one run")
    print(f"{'scheme':8} {'llama.cpp':>10} {'ours before':>12} {'ours now':>10} {'now/llama':>10}")
    for name in GGML:
        llama = r.get(f"{name}/llama.cpp", nan)
        before = r.get(f"{name}/bitbudget_scalar", nan)
        now = r.get(f"{name}/bitbudget", nan)
        print(f"{name:8} {llama:10.3f} {before:12.3f} {now:10.3f} {now / llama:10.2f}")


if __name__ == "__main__":
    main()
