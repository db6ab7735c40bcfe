#!/usr/bin/env bash
# Quick start: installs the build dependencies, builds Countersign and starts it with its window.
# Extra arguments go to countersign (for example --headless or --listen 127.0.0.1:0).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
# The app and its hook shim only, each target's sources compiled in batches (the run preset).
cmake --preset run >/dev/null
cmake --build --preset run
exec build/run/app/countersign "$@"
