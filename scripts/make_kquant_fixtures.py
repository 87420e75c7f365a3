#!/usr/bin/env python3
"""Writes reference bytes for crates/math/tests/math/kquant_reference.rs from llama.cpp itself.

The quantizers are llama.cpp's own C code, compiled by scripts/build_llama_reference.py from the
pinned llama-cpp-python source distribution (nothing of it is committed). Run once; the outputs
are committed:
    python3 scripts/make_kquant_fixtures.py

Writes into crates/math/tests/fixtures/ggml/:
  kquant_input.f32        finite inputs, 256-value super-blocks (little-endian f32)
  kquant_nonfinite.f32    super-blocks holding NaN and ±infinity among ordinary values
  <scheme>.bin            ggml_quantize_chunk(<scheme>, kquant_input, no importance matrix)
  <scheme>.dequant.f32    dequantize_row_<scheme> of those bytes
  <scheme>.nonfinite.bin  ggml_quantize_chunk(<scheme>, kquant_nonfinite)
  iq4_nl_ref.bin          quantize_row_iq4_nl_ref(kquant_input): llama.cpp's other IQ4_NL path
for <scheme> in q2_k q3_k q4_k q5_k q6_k iq4_nl nvfp4. Only the Python standard library is used.
"""
import array
import math
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from build_llama_reference import PIN, Reference  # noqa: E402

QK_K = 256
SCHEMES = {"q2_k": "q2_K", "q3_k": "q3_K", "q4_k": "q4_K", "q5_k": "q5_K", "q6_k": "q6_K",
           "iq4_nl": "iq4_nl", "nvfp4": "nvfp4"}
OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/math/tests/fixtures/ggml"

rng = random.Random(20261123)


def normal(n, sigma=1.0):
    return [rng.gauss(0.0, sigma) for _ in range(n)]


def laplace(n, b):
    return [rng.choice((-b, b)) * rng.expovariate(1.0) for _ in range(n)]


def with_outlier(values, at, value):
    values = list(values)
    values[at] = value
    return values


def finite_superblocks():
    """One list of 256 values per super-block, each a case the quantizers treat differently."""
    blocks = [normal(QK_K) for _ in range(8)]                           # ordinary weights
    blocks.append(normal(QK_K, 1e-6))                                   # FP16-subnormal scales
    blocks.append([v * 1e-39 for v in normal(QK_K)])                    # f32 subnormal inputs
    blocks += [laplace(QK_K, 30.0) for _ in range(2)]                   # heavy tails
    blocks.append([0.0] * QK_K)                                         # all zero
    blocks.append([0.75] * QK_K)                                        # constant, positive
    blocks.append([-2.5] * QK_K)                                        # constant, negative
    blocks.append(with_outlier(normal(QK_K), 37, 1e4))                  # one outlier
    blocks.append(with_outlier(normal(QK_K, 0.02), 200, -60.0))         # one negative outlier
    # Zero sub-blocks beside ordinary ones, and a lone value in an otherwise zero sub-block.
    mixed = normal(QK_K)
    mixed[0:48] = [0.0] * 48
    mixed[128:160] = [0.0] * 32
    mixed[140] = 0.3
    blocks.append(mixed)
    blocks.append([rng.random() for _ in range(QK_K)])                  # all positive
    blocks.append([-rng.random() - 0.5 for _ in range(QK_K)])           # all negative
    blocks.append([-1 + 2 * i / 255 for i in range(QK_K)])              # an even grid
    blocks.append([(i % 7 - 3) * 0.25 for i in range(QK_K)])            # few distinct values
    blocks.append(normal(QK_K, 1e8))                                    # scales beyond FP16
    blocks.append(normal(QK_K, 3e4))                                    # scales near FP16 max
    return blocks


def nonfinite_superblocks():
    nan, inf = math.nan, math.inf
    return [
        with_outlier(normal(QK_K), 5, nan),
        with_outlier(normal(QK_K), 70, inf),
        with_outlier(normal(QK_K), 200, -inf),
        [nan] * QK_K,
        with_outlier(with_outlier(normal(QK_K), 0, inf), 1, -inf),
    ]


def f32(blocks):
    return array.array("f", [v for block in blocks for v in block])


def main():
    ref = Reference.build()
    OUT.mkdir(parents=True, exist_ok=True)
    finite, nonfinite = f32(finite_superblocks()), f32(nonfinite_superblocks())
    (OUT / "kquant_input.f32").write_bytes(finite.tobytes())
    (OUT / "kquant_nonfinite.f32").write_bytes(nonfinite.tobytes())
    for ours, theirs in SCHEMES.items():
        blocks = ref.quantize(theirs, finite)
        (OUT / f"{ours}.bin").write_bytes(blocks)
        (OUT / f"{ours}.dequant.f32").write_bytes(ref.dequantize(theirs, blocks).tobytes())
        (OUT / f"{ours}.nonfinite.bin").write_bytes(ref.quantize(theirs, nonfinite))
        print(f"{ours:8} {len(blocks):6} bytes")
    (OUT / "iq4_nl_ref.bin").write_bytes(ref.quantize_row_ref("iq4_nl", finite))
    print(f"from llama-cpp-python {PIN}; {len(finite)} finite and {len(nonfinite)} non-finite inputs")


if __name__ == "__main__":
    main()
