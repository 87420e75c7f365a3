#!/usr/bin/env bash
# Measures what only a real GPU can show, in one run of under 8 minutes, on a machine with an
# NVIDIA GPU, PyTorch and Transformers (no network needed):
#   (a) the validation setups on real CUDA tensors (validation/cuda_check.py): the caching
#       allocator's peaks, memory_stats() and the CUDA context's size → validation/results-cuda.json;
#   (b) the native wgpu benchmark (crates/gpu/examples/device_bench.rs): quantize alone and the
#       lab's whole pipeline at 64M values, CPU against GPU, upload/compute/readback apart;
#   (c) the Quantize page's benchmark in headless Chromium's WebGPU, where Chromium, node and a
#       release build (dist/) are there.
# With a GPU it adds a dated section naming the device to docs/benchmarks.md. Without one every
# part still runs as far as this machine allows (the plan for an 80 GiB GPU, CPU fallbacks,
# wgpu on whatever adapter there is), each labelled, and nothing is written outside --out: the
# test command runs it that way (--quick) to prove that it works.
#
# Usage: scripts/device_check.sh [--quick] [--out DIR]   (DIR: target/device_check by default)
# The bench binary: $BITBUDGET_DEVICE_BENCH, else .device/device_bench if present (a release
# build carried to a machine without cargo: `cargo build --release -p bitbudget-gpu --example
# device_bench && cp target/release/examples/device_bench .device/`), else built with cargo.
# Where `ldconfig -p` lists no libvulkan, .gl/*.deb (the Vulkan loader) are unpacked first.
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
out=target/device_check
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --out) [ $# -ge 2 ] || { echo "--out needs a folder" >&2; exit 2; }; out="$2"; shift ;;
    *) echo "unknown argument $1 (usage: scripts/device_check.sh [--quick] [--out DIR])" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$out" && out=$(cd "$out" && pwd)
failed=0
say() { printf '\n==> %s\n' "$*"; }

gpu_name=""
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu_name=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)
  echo "GPU: $gpu_name"
else
  echo "no NVIDIA GPU here: CPU fallbacks, labelled, written only under $out"
fi

say "(a) validation setups on CUDA tensors"
if [ -n "$gpu_name" ] && python3 -c "import torch, transformers, peft" 2>/dev/null; then
  (cd validation && PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
    python3 cuda_check.py --budget-s "$([ $quick = 1 ] && echo 60 || echo 270)") || failed=1
  cuda_json=validation/results-cuda.json
elif python3 -c "import torch, transformers, peft" 2>/dev/null; then
  (cd validation && python3 cuda_check.py --out "$out/results-cpu-fallback.json") || failed=1
  cuda_json="$out/results-cpu-fallback.json"
else
  echo "PyTorch, Transformers or peft is not installed here: the CUDA run needs them (validation/run.sh"
  echo "installs them for the fake-tensor harness). What a GPU of 80 GiB would run:"
  (cd validation && python3 cuda_check.py --plan-only --gpu-gib 80) || failed=1
  cuda_json=""
fi

say "(b) native wgpu benchmark"
if [ -n "$gpu_name" ] && ! ldconfig -p 2>/dev/null | grep -q libvulkan && ls .gl/*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd" __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export WGPU_BACKEND="${WGPU_BACKEND:-vulkan}" XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
bench="${BITBUDGET_DEVICE_BENCH:-}"
[ -z "$bench" ] && [ -x .device/device_bench ] && bench=.device/device_bench
# The browser's benchmark: its tensors up to 1M values quick, 16M in full (the page's sizes).
if [ $quick = 1 ]; then bench_args=(--weights 1048576 --reps 3); browser_largest=1048576
else bench_args=(--weights 67108864 --reps 5); browser_largest=16777216; fi
bench_json="$out/device_bench.json"
if [ -n "$bench" ]; then
  "$bench" "${bench_args[@]}" >"$bench_json" || failed=1
elif command -v cargo >/dev/null; then
  # The native crates' feature set (every crate but the app, as the test command builds them):
  # after the tests, a quick run compiles nothing again.
  profile=(--release); dir=release; [ $quick = 1 ] && profile=() && dir=debug
  cargo build -q "${profile[@]}" --locked --workspace --exclude bitbudget-app --example device_bench &&
    "${CARGO_TARGET_DIR:-target}/$dir/examples/device_bench" "${bench_args[@]}" >"$bench_json" || failed=1
else
  echo "no bench binary and no cargo: build one here and carry it as .device/device_bench" >&2
  echo '{"error": "no bench binary"}' >"$bench_json"
  failed=1
fi

say "(c) the Quantize page's benchmark in headless Chromium's WebGPU"
browser_log="$out/browser_bench.txt"
if [ -z "$gpu_name" ]; then
  echo "not run without a GPU: scripts/bench_release_wasm.mjs --only gpu runs it on SwiftShader" | tee "$browser_log"
elif command -v chromium >/dev/null && command -v node >/dev/null && [ -d dist ] && [ -d tools/node_modules/playwright-core ]; then
  node scripts/bench_release_wasm.mjs --only gpu --largest "$browser_largest" 2>&1 | tee "$browser_log" || failed=1
else
  echo "not run: this machine lacks Chromium, node, tools/node_modules or a release build (dist/)" | tee "$browser_log"
fi

say "report"
report_args=(--bench "$bench_json" --browser "$browser_log" --quick "$quick")
[ -n "$cuda_json" ] && report_args+=(--cuda "$cuda_json")
if [ -n "$gpu_name" ]; then
  python3 scripts/device_report.py "${report_args[@]}" --device "$gpu_name" --into docs/benchmarks.md || failed=1
else
  python3 scripts/device_report.py "${report_args[@]}" >"$out/benchmarks-section.md" || failed=1
  cat "$out/benchmarks-section.md"
fi
exit $failed
