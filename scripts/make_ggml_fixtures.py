#!/usr/bin/env python3
"""Writes reference GGML block bytes for crates/math/tests/math/native/ggml_reference.rs.

The `gguf` package's numpy quantizers mirror llama.cpp's quantize_row_*_ref bit for bit.
Run once (the outputs are committed):
    python3 -m venv /tmp/gg && /tmp/gg/bin/pip install gguf==0.19.0
    /tmp/gg/bin/python scripts/make_ggml_fixtures.py
"""
import pathlib

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants

out = pathlib.Path(__file__).resolve().parent.parent / "crates/math/tests/fixtures/ggml"
out.mkdir(parents=True, exist_ok=True)

rng = np.random.default_rng(20261122)
blocks = [
    rng.standard_normal((40, 32)),                    # ordinary weights
    rng.standard_normal((8, 32)) * 1e-6,              # scales that are FP16 subnormals
    rng.laplace(size=(8, 32)) * 30,                   # heavy tails
    np.zeros((2, 32)),                                # all-zero blocks
    np.full((2, 32), 0.75),                           # constant blocks
    np.tile(np.linspace(-1, 1, 32), (2, 1)),          # exact grid points and ties
    rng.standard_normal((2, 32)) * np.where(np.arange(32) == 5, 100, 1),  # one outlier
]
data = np.concatenate(blocks).astype(np.float32).reshape(-1)
data.tofile(out / "input.f32")
for name, qtype in [("q8_0", T.Q8_0), ("q4_0", T.Q4_0), ("q4_1", T.Q4_1), ("q5_0", T.Q5_0), ("q5_1", T.Q5_1), ("mxfp4", T.MXFP4)]:
    quants.quantize(data.reshape(-1, 32), qtype).tofile(out / f"{name}.bin")
    print(name, (out / f"{name}.bin").stat().st_size, "bytes")
