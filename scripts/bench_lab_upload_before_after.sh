#!/usr/bin/env bash
# The Quantize lab as users run it, before and after, in one run: builds REF's release
# app (default ed9d253, before the lab's speed work) in a temporary git worktree with its own target
# directory, builds this tree's, then uploads the same 42M-value .npy to both in headless Chromium
# (tests/e2e/lab_upload_ab.mjs) and prints the time to results, the longest frame gap and each
# scheme's time. Usage: scripts/bench_lab_upload_before_after.sh [REF] [ROUNDS] [AFTER_QUERY]
# (AFTER_QUERY defaults to the 14 schemes REF had; '' compares every scheme). Takes about 10 minutes
# the first time (REF's build), and needs what scripts/setup.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
ref="${1:-ed9d253}"
rounds="${2:-1}"
export PATH="$HOME/.cargo/bin:$PWD/tools/node_modules/.bin:$PATH" CARGO_INCREMENTAL=0
work="${BITBUDGET_BENCH_DIR:-${TMPDIR:-/tmp}/bitbudget-ab}"
mkdir -p "$work"
if [ ! -f "$work/dist-$ref/index.html" ]; then
  rm -rf "$work/tree-$ref"
  git worktree add --force --detach "$work/tree-$ref" "$ref"
  (cd "$work/tree-$ref" && CARGO_TARGET_DIR="$work/target-before" trunk build --release --dist "$work/dist-$ref")
  git worktree remove --force "$work/tree-$ref"
fi
trunk build --release
if [ $# -ge 3 ]; then
  node tests/e2e/lab_upload_ab.mjs "$work/dist-$ref" dist "$rounds" "$3"
else
  node tests/e2e/lab_upload_ab.mjs "$work/dist-$ref" dist "$rounds"
fi
