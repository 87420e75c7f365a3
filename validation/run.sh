#!/usr/bin/env bash
# Measures every setup in setups.py with real PyTorch under fake tensors and writes results.json.
# Creates validation/.venv on first use (torch, transformers, peft from PyPI; CPU only, no GPU and no
# model download needed). Usage: validation/run.sh [--only NAME ...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import torch, transformers, peft" 2>/dev/null; then
  "$venv/bin/pip" install --quiet torch transformers peft
fi
cd "$here"
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 exec "$venv/bin/python" harness.py "$@"
