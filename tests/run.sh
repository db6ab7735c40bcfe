#!/usr/bin/env bash
# Installs everything the tests need (apt packages; npm packages pinned by tests/peer/package-lock.json),
# builds with warnings as errors and runs every test with ctest, the peer and conformance tests included,
# with a throwaway PostgreSQL cluster for the store tests' second backend,
# then builds the server and the libFuzzer targets once with clang, ASan and UBSan: runs the load
# test against that build (its clean exit is LeakSanitizer's verdict) and each fuzz target for a
# bounded time. Prints how long each stage took at the end, passed or not.
# Extra arguments go to ctest (for example -L peer, or -R dispatcher).
set -euo pipefail
cd "$(dirname "$0")/.."

began=$SECONDS
stage_name=""
stage_began=$SECONDS
stage_times=""
stage() { # ends the stage running, begins the one named (none: "")
    if [ -n "$stage_name" ]; then
        stage_times+=$(printf '  %-52s %5d s' "$stage_name" $((SECONDS - stage_began)))$'\n'
    fi
    stage_name=$1
    stage_began=$SECONDS
}
pg_dir=""
asan_pid=""
finish() {
    local status=$?
    stage ""
    if [ -n "$asan_pid" ]; then
        kill -- "-$asan_pid" 2>/dev/null || true # its process group: cmake, ninja and the compilers
    fi
    if [ -n "$pg_dir" ]; then
        tests/support/postgres.sh stop "$pg_dir" || true
    fi
    printf '\ntests/run.sh stages (exit %d):\n%s  %-52s %5d s\n' "$status" "$stage_times" total $((SECONDS - began))
    exit "$status"
}
trap finish EXIT
# Stopped from outside: the summary says so (bash would give the EXIT trap a status of 0).
trap 'exit 143' TERM
trap 'exit 130' INT

stage "install: apt packages, npm ci"
packaging/install-deps.sh --tests
(cd tests/peer && npm ci --no-audit --no-fund --loglevel=error)
stage "build: gcc, warnings as errors"
cmake --preset ci >/dev/null
cmake --build --preset ci
# A throwaway PostgreSQL 15 cluster: the store tests run on it as well as on SQLite.
stage "ctest (and the clang build beside it, at idle priority)"
pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/countersign-postgres.XXXXXX")
COUNTERSIGN_TEST_POSTGRES=$(tests/support/postgres.sh start "$pg_dir")
export COUNTERSIGN_TEST_POSTGRES
# One clang build with ASan and UBSan for the load run (errors abort, and a leak makes the server's
# exit fail the test) and the libFuzzer targets (each for a bounded time from its seed corpus): the
# sources they share are compiled once. It is built while ctest runs, on the CPU time the tests
# leave idle (most of them wait on processes, sockets and timers): SCHED_IDLE and idle I/O, so it
# never takes a moment from a test.
cmake --preset asan >/dev/null
asan_log=$(mktemp "${TMPDIR:-/tmp}/countersign-asan-build.XXXXXX")
setsid chrt --idle 0 ionice -c 3 cmake --build --preset asan -j 2 --target countersign countersign-test-decide fuzz_http \
    fuzz_dispatcher fuzz_ticket fuzz_config fuzz_httpanswer fuzz_shell >"$asan_log" 2>&1 &
asan_pid=$!
# Two at a time (the tests use ports of their own and folders of their own; the agent tests take
# turns by their RESOURCE_LOCK). The load test runs once, against the ASan build below, whose clean
# exit is also LeakSanitizer's verdict (ctest -L load with this build runs it here by hand).
if [ $# -eq 0 ]; then
    set -- -LE load
fi
ctest --preset ci --timeout 1500 --parallel 2 "$@"
stage "build: clang, ASan and UBSan (what ctest left of it)"
asan_status=0
wait "$asan_pid" || asan_status=$?
asan_pid=""
cat "$asan_log"
rm -f "$asan_log"
if [ "$asan_status" -ne 0 ]; then
    echo "tests/run.sh: the ASan build failed (exit $asan_status)" >&2
    exit "$asan_status"
fi
stage "ctest under ASan: load and gateway"
ctest --preset asan -L "load|asan" --timeout 1500
stage "fuzz: each target from its corpus"
ctest --preset asan -L fuzz --timeout 900 --parallel 2
