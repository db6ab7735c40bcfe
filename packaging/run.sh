#!/usr/bin/env bash
# Quick start: installs the build dependencies, builds Countersign and starts it with its window.
# Extra arguments go to countersign (for example --headless or --listen 127.0.0.1:0).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh
cmake --preset dev -DCOUNTERSIGN_BUILD_TESTS=OFF >/dev/null
cmake --build --preset dev
exec build/dev/app/countersign "$@"
