#!/usr/bin/env bash
# Installs everything the tests need (apt packages; npm packages pinned by tests/peer/package-lock.json),
# builds with warnings as errors and runs every test with ctest, the peer and conformance tests included.
# Extra arguments go to ctest (for example -L peer, or -R dispatcher).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --tests
(cd tests/peer && npm ci --no-audit --no-fund --loglevel=error)
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci --timeout 1500 "$@"
