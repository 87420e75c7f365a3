#!/usr/bin/env python3
"""End-to-end speed of `bitbudget quantize` against copying the same file with `cat`.

In one run, on one f32 file (N(0, 1) values, 4 MiB of them tiled to the size asked, 256 MiB by
default, in the system temp directory and deleted afterwards), this times:
  - `cat FILE > OUT` (the cost of reading and writing the bytes at all),
  - `bitbudget quantize --scheme S FILE OUT` for every scheme, for each binary given,
and prints the best of --repeats wall-clock times and the ratio quantize / cat. Targets: ratio at
most 1.5 for q8_0 and absmax-int8. The page cache is warmed by a first `cat`, so the figures are
of cached input, as a second run of a command is.

Usage:
    cargo build --release -p bitbudget-cli
    python3 scripts/bench_cli.py                                  # target/release/bitbudget
    python3 scripts/bench_cli.py --binary before=/tmp/bitbudget-main --binary after=target/release/bitbudget
Only the Python standard library is needed.
"""
import argparse
import array
import os
import pathlib
import random
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMES = ["q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "mxfp4", "nf4", "absmax-int8",
           "zeropoint-uint8", "zeropoint-int4", "f8e4m3", "f8e5m2", "bf16", "f16"]
TARGETS = {"q8_0": 1.5, "absmax-int8": 1.5}


def write_input(path, mib):
    """`mib` MiB of f32: 4 MiB of seeded N(0, 1) values, repeated."""
    rng = random.Random(16)
    tile = array.array("f", (rng.gauss(0.0, 1.0) for _ in range(1 << 20))).tobytes()
    with open(path, "wb") as f:
        for _ in range(mib // 4):
            f.write(tile)
        f.write(tile[: (mib % 4) << 20])


def best_time(argv, repeats, stdout=None):
    """Best wall-clock seconds of `repeats` runs of `argv`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        if stdout is None:
            subprocess.run(argv, check=True)
        else:
            with open(stdout, "wb") as out:
                subprocess.run(argv, check=True, stdout=out)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", action="append", default=[],
                        help="NAME=PATH of a bitbudget binary (repeatable); "
                             "default after=target/release/bitbudget")
    parser.add_argument("--mib", type=int, default=256, help="input size in MiB")
    parser.add_argument("--repeats", type=int, default=3, help="runs per command (best kept)")
    parser.add_argument("--schemes", default=",".join(SCHEMES), help="comma-separated schemes")
    args = parser.parse_args()
    binaries = [b.split("=", 1) for b in args.binary] or [
        ["after", str(ROOT / "target" / "release" / "bitbudget")]]
    schemes = args.schemes.split(",")
    with tempfile.TemporaryDirectory(prefix="bitbudget-bench-") as tmp:
        src, out = os.path.join(tmp, "in.f32"), os.path.join(tmp, "out.bin")
        write_input(src, args.mib)
        best_time(["cat", src], 1, stdout=out)
        cat = best_time(["cat", src], args.repeats, stdout=out)
        gbs = args.mib * (1 << 20) / 1e9
        print(f"{args.mib} MiB f32 input, best of {args.repeats}, {os.cpu_count()} cores; "
              f"cat: {cat:.3f} s ({gbs / cat:.2f} GB/s)")
        head = "".join(f" {name + ' s':>10} {name + ' ratio':>12}" for name, _ in binaries)
        print(f"{'scheme':16}{head}  target")
        for scheme in schemes:
            row = ""
            for _, path in binaries:
                t = best_time([path, "quantize", "--scheme", scheme, src, out], args.repeats)
                row += f" {t:10.3f} {t / cat:12.2f}"
            target = TARGETS.get(scheme)
            print(f"{scheme:16}{row}  {'<= %.1f' % target if target else ''}")


if __name__ == "__main__":
    main()
