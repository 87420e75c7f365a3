#!/usr/bin/env bash
# The browser tests (wasm-bindgen-test in headless Chromium, needs CHROMEDRIVER): the math's
# library (its wasm SIMD lanes), tests/math/ and the app's library unit tests, then the app's
# tests/browser/ with the Quantize lab's Web Worker that they start.
#
# Usage: scripts/browser_tests.sh            every browser test
#        scripts/browser_tests.sh FILTER     only the app's tests whose names hold FILTER (bits_page)
#
# One build for all of them: the three packages are resolved together, so what they share (the
# math, serde, wasm-bindgen and the proc macros) compiles once, not once per package and again for
# the worker. Cargo builds a package's binaries for its integration tests, so naming the worker's
# (tests/analyst.rs, native-only: empty in wasm32) builds the worker's binary in the same run.
# Running with the same packages builds nothing more; the worker's library unit tests are native,
# so `--lib` says "no tests to run!" for it in the browser.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
wasm_tests=(-p bitbudget-math -p bitbudget-app -p bitbudget-worker --target wasm32-unknown-unknown --locked)
cargo test "${wasm_tests[@]}" --lib --test math --test browser --test analyst --no-run

# The lab's worker as Trunk builds it for the release build: wasm-bindgen's no-modules glue and the
# wasm, beside assets/lab-worker.js, in target/lab-worker/ (tests/browser/lab_workers.rs starts
# workers from there; wasm-bindgen-test-runner serves the repository's files).
worker=target/lab-worker
rm -rf "$worker"
mkdir -p "$worker"
wasm-bindgen --target no-modules --no-typescript --out-dir "$worker" \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/debug/bitbudget-worker.wasm"
cp assets/lab-worker.js "$worker/"
printf 'lab worker: %s bytes of wasm in %s\n' "$(wc -c <"$worker/bitbudget-worker_bg.wasm")" "$worker"

if [ $# -eq 0 ]; then
  cargo test "${wasm_tests[@]}" --lib --test math
fi
cargo test "${wasm_tests[@]}" --test browser -- "$@"
