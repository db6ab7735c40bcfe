#!/usr/bin/env bash
# Installs everything the tests need (apt packages; npm packages pinned by tests/peer/package-lock.json),
# builds with warnings as errors and runs every test with ctest, the peer and conformance tests included,
# with a throwaway PostgreSQL cluster for the store tests' second backend,
# then builds the server and the libFuzzer targets once with clang, ASan and UBSan: runs the load
# test against that build (its clean exit is LeakSanitizer's verdict) and each fuzz target for a
# bounded time.
# Extra arguments go to ctest (for example -L peer, or -R dispatcher).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/install-deps.sh --tests
(cd tests/peer && npm ci --no-audit --no-fund --loglevel=error)
cmake --preset ci >/dev/null
cmake --build --preset ci
# A throwaway PostgreSQL 15 cluster: the store tests run on it as well as on SQLite.
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/countersign-postgres.XXXXXX")
trap 'tests/support/postgres.sh stop "$pg_dir"' EXIT
COUNTERSIGN_TEST_POSTGRES=$(tests/support/postgres.sh start "$pg_dir")
export COUNTERSIGN_TEST_POSTGRES
# Two at a time (the tests use ports of their own and folders of their own; the agent tests take
# turns by their RESOURCE_LOCK). The load test runs once, against the ASan build below, whose clean
# exit is also LeakSanitizer's verdict (ctest -L load with this build runs it here by hand).
if [ $# -eq 0 ]; then
    set -- -LE load
fi
ctest --preset ci --timeout 1500 --parallel 2 "$@"
# One clang build with ASan and UBSan for the load run (errors abort, and a leak makes the server's
# exit fail the test) and the libFuzzer targets (each for a bounded time from its seed corpus): the
# sources they share are compiled once.
cmake --preset asan >/dev/null
cmake --build --preset asan --target countersign countersign-test-decide fuzz_http fuzz_dispatcher fuzz_ticket \
    fuzz_config fuzz_httpanswer fuzz_shell
ctest --preset asan -L "load|asan" --timeout 1500
ctest --preset asan -L fuzz --timeout 900 --parallel 2
