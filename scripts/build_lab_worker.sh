#!/usr/bin/env bash
# Builds the Quantize lab's Web Worker (crates/worker) for the browser tests, as Trunk does for the
# release build: wasm-bindgen's no-modules glue and the wasm, beside assets/lab-worker.js, in
# target/lab-worker/ (tests/browser/lab_workers.rs starts workers from there; wasm-bindgen-test-runner
# serves the repository's files). Usage: scripts/build_lab_worker.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target_dir="${CARGO_TARGET_DIR:-target}"
cargo build -p bitbudget-worker --bin bitbudget-worker --target wasm32-unknown-unknown --locked
out=target/lab-worker
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target no-modules --no-typescript --out-dir "$out" \
  "$target_dir/wasm32-unknown-unknown/debug/bitbudget-worker.wasm"
cp assets/lab-worker.js "$out/"
printf 'lab worker: %s bytes of wasm in %s\n' "$(wc -c <"$out/bitbudget-worker_bg.wasm")" "$out"
