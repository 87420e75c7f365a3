#!/usr/bin/env bash
# Builds the app (release, as tested) and serves it on http://127.0.0.1:8080 without opening a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/tools/node_modules/.bin:$PATH"
exec trunk serve --release --address 127.0.0.1 --port 8080 --open=false
