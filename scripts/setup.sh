#!/usr/bin/env bash
# Installs what bitbudget needs, once: each step checks first and skips what is already there.
# Nothing comes from GitHub: Rust tools from crates.io, wasm-opt, the minifiers and playwright-core from npm,
# Chromium, chromedriver and Mesa's lavapipe from Debian.
#   scripts/setup.sh                  tools to build and serve the app
#   scripts/setup.sh --test           also the browser and GPU drivers the tests use
# The Rust tools take minutes to compile, so scripts/test.sh installs them apart, while its first
# checks run:
#   scripts/setup.sh --no-cargo-tools everything but wasm-bindgen-cli and trunk
#   scripts/setup.sh --cargo-tools    only wasm-bindgen-cli and trunk
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
export PATH="$HOME/.cargo/bin:$PWD/tools/node_modules/.bin:$PATH"

say() { printf '==> %s\n' "$*"; }

rust_targets() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  for component in rustfmt clippy; do
    if ! rustup component list --installed | grep -q "^$component"; then
      rustup component add "$component"
    fi
  done
}

cargo_tools() {
  # Neither tool downloads anything here (the test runner finds Debian's chromedriver through
  # CHROMEDRIVER, Trunk runs `offline`, and its update check is left out), so both are built
  # without their TLS stacks (--no-default-features).
  # The CLI must match the wasm-bindgen in Cargo.lock exactly. --locked fails on crates.io today
  # (a pinned dependency is missing from the registry), so it resolves fresh. First: the browser
  # tests need its test runner before the release build needs trunk.
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features --force
  fi
  # Trunk's own release profile is fat LTO in one codegen unit, which made it the slowest step of
  # a cold run (about 7 minutes on 2 cores). Trunk only orchestrates (cargo, wasm-bindgen and
  # wasm-opt do the work), so it is built unoptimised, without LTO: that halves its 14 CPU-minutes
  # against opt-level 1, and a release build takes as long with it (docs/benchmarks.md).
  if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
    say "installing trunk $TRUNK_VERSION"
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features
  fi
}

npm_tools() {
  # npm's binaryen 132 (Debian's wasm-opt 108 silently breaks the output), terser and csso (the
  # release build's minifiers, scripts/minify_build.mjs) and playwright-core.
  if ! (cd tools && npm ls --depth=0 >/dev/null 2>&1) || ! wasm-opt --version 2>/dev/null | grep -q "version 132"; then
    say "installing npm tools (binaryen, terser, csso, playwright-core, axe-core)"
    (cd tools && npm ci --no-audit --no-fund)
  fi
}

test_system() {
  local need=()
  command -v chromium >/dev/null || need+=(chromium)
  command -v chromedriver >/dev/null || need+=(chromium-driver)
  ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]} from Debian"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}"
  fi
}

test=false cargo=true others=true
for arg in "$@"; do
  case "$arg" in
    --test) test=true ;;
    --no-cargo-tools) cargo=false ;;
    --cargo-tools) others=false ;;
    *) echo "setup.sh: unknown option '$arg' (--test, --no-cargo-tools, --cargo-tools)" >&2; exit 2 ;;
  esac
done
if $others; then
  rust_targets
  npm_tools
  if $test; then test_system; fi
fi
if $cargo; then cargo_tools; fi
