#!/usr/bin/env bash
# Runs every check: formatting, clippy (native and wasm32), native tests of every crate but the
# app, browser tests in headless Chromium, a release build, and that build loaded in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
# wasm-bindgen-cli and trunk compile for minutes on a fresh machine: in the background, from the
# start (while Debian's and npm's packages download, then the checks that do not need them run);
# each step that needs them waits for them first.
mkdir -p target
scripts/setup.sh --cargo-tools >target/setup-cargo-tools.log 2>&1 &
cargo_tools_pid=$!
# What runs in the background is stopped with the command, however it ends.
stop_background() {
  for pid in "$cargo_tools_pid" "${gpu_tests_pid:-}" "${release_pid:-}"; do
    [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  done
}
trap stop_background EXIT
scripts/setup.sh --test --no-cargo-tools
cargo_tools() {
  if [ -n "$cargo_tools_pid" ]; then
    if ! wait "$cargo_tools_pid"; then
      cat target/setup-cargo-tools.log
      echo "installing wasm-bindgen-cli or trunk failed" >&2
      exit 1
    fi
    cat target/setup-cargo-tools.log
    cargo_tools_pid=
  fi
}
export PATH="$HOME/.cargo/bin:$PWD/tools/node_modules/.bin:$PATH"
# The GPU tests run on Mesa's lavapipe (a CPU Vulkan driver) and must not skip: BITBUDGET_REQUIRE_GPU
# turns "no adapter" into a failure.
export CHROMEDRIVER=/usr/bin/chromedriver WGPU_BACKEND=vulkan BITBUDGET_REQUIRE_GPU=1
# Mesa's Vulkan loader complains on every adapter request without a runtime directory.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

# One run never reads the incremental caches back (about 1.5 GB on a cold run); CARGO_INCREMENTAL=1
# keeps them for quick reruns while editing.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# Each step's start, in minutes:seconds since the command started, so a log shows where time goes.
step() { printf '\n==> %s [%d:%02d]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }
# A cold run needs about 5 GB under target/: say how much there is, so a full disk reads as one.
free_kb=$(df -Pk target | awk 'NR==2 {print $4}')
echo "free disk under target/: $((free_kb / 1024 / 1024)) GB (a cold run needs about 5 GB)"
[ "$free_kb" -ge $((5 * 1024 * 1024)) ] || echo "warning: less than 5 GB free; the build may stop with 'No space left on device'" >&2
step "cargo fmt --check"
cargo fmt --all -- --check
step "clippy, native"
# Natively every crate but the app; the app is linted for wasm32, its only target, below.
native=(--workspace --exclude bitbudget-app --locked)
cargo clippy "${native[@]}" --all-targets -- -D warnings
step "clippy, wasm32"
# Every target but the benchmarks, which are native (criterion); `--test '*'` takes in the wasm
# benchmarks that are test files with `test = false`.
cargo clippy -p bitbudget-app -p bitbudget-math -p bitbudget-charts -p bitbudget-gpu -p bitbudget-worker \
  --lib --bins --tests --test '*' --examples --target wasm32-unknown-unknown --locked -- -D warnings
step "native tests (the GPU kernels on lavapipe included)"
# Every crate but the app (its tests run in the browser, below), in one build: one feature
# resolution, so what the crates share compiles once.
cargo test "${native[@]}" --no-run
# The GPU kernels on lavapipe keep about one core busy and the CLI's tests about one and a half:
# the gpu crate's tests run beside the others'. Selected among the same packages (not with `-p`,
# which resolves other features and compiles wgpu and the math again); `--lib` runs every
# library's unit tests (seconds; the others' again) because it cannot pick one package's (the gpu
# crate has no doc tests).
cargo test "${native[@]}" --lib --test gpu >target/gpu-tests.log 2>&1 &
gpu_tests_pid=$!
cargo test "${native[@]}" --exclude bitbudget-gpu
gpu_tests_ok=0
wait "$gpu_tests_pid" || gpu_tests_ok=$?
gpu_tests_pid=
cat target/gpu-tests.log
[ "$gpu_tests_ok" = 0 ] || { echo "the gpu crate's tests failed" >&2; exit 1; }
step "scripts/device_check.sh --quick (no GPU here: its CPU fallbacks, written only under target/)"
committed() { for f in docs/benchmarks.md validation/results-cuda.json; do [ ! -f "$f" ] || cksum "$f"; done; }
before=$(committed)
scripts/device_check.sh --quick --out target/device_check
[ "$before" = "$(committed)" ] || { echo "device_check.sh changed committed results without a GPU" >&2; exit 1; }
grep -q 'CPU FALLBACK' target/device_check/benchmarks-section.md
step "browser tests (wasm-bindgen-test in headless Chromium): the math's, then the app's"
# In a headless browser the runner waits WASM_BINDGEN_TEST_TIMEOUT seconds for a whole test binary,
# not for each test (default 20): the app's 115 tests run in one page, its GPU tests on Chromium's
# WebGPU over SwiftShader (webdriver.json), a CPU emulation. On a slow day of the 2-core VM they
# took 487 s, where a limit of 300 s stopped them short of the end.
export WASM_BINDGEN_TEST_TIMEOUT=1200
cargo_tools
# The release build runs meanwhile, in a target directory of its own (no lock shared with the
# tests; its profiles share nothing with theirs): the tests' browser and its single-threaded link
# steps each leave a core to the other. Its output is shown when it is joined, below.
CARGO_TARGET_DIR=target/trunk-release trunk build --release >target/trunk-release.log 2>&1 &
release_pid=$!
# One build of every browser test and the lab's worker, then each runs (see the script).
scripts/browser_tests.sh
step "release build (trunk, wasm-opt -Oz), started before the browser tests"
release_ok=0
wait "$release_pid" || release_ok=$?
release_pid=
cat target/trunk-release.log
[ "$release_ok" = 0 ] || { echo "the release build failed" >&2; exit 1; }
step "release build in headless Chromium"
node tests/e2e/dist_check.mjs "$@"
step "byte budgets, widgets, embeds, themes, CSP, accessibility (dist/ under a sub-path, headless Chromium)"
node tests/e2e/widgets.mjs "$@"
step "every check passed"
