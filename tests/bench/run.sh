#!/usr/bin/env bash
# Every benchmark figure in one command (prints figures; asserts nothing about speed): installs what
# they need, builds the CI configuration (RelWithDebInfo), then prints
#   1. the app's start-up time to a shown window and its idle memory (under Xvfb),
#   2. the gate against the official TypeScript SDK 2.4.0 server, side by side in one run, then
#      Countersign by protocol era (2026-07-28, 2025-11-25) and transport (HTTP, the stdio bridge),
#   3. the gateway's added cost, a hook's cost for an allowed call (the shim, Claude Code's HTTP hook), the blast radius of rm -rf over 100,000 files, the tripwire and the net around a quiet call, and the store on PostgreSQL beside SQLite (gated and allowed calls,
#      decision-to-run across instances),
#   4. tools/list for a token holder while others flood the server (idle sockets, large bodies without
#      a token, held calls), with the server's memory; then tools/list over 32 keep-alive connections
#      (wrk) beside nginx answering the same bytes,
#   5. with --audit-view, the audit view over 100,000 operations as well.
# Other arguments go to the gate benchmark (for example --n 300 --concurrency 16).
set -euo pipefail
cd "$(dirname "$0")/../.."
audit_view=0
gate_args=()
for arg in "$@"; do
    if [[ $arg == --audit-view ]]; then audit_view=1; else gate_args+=("$arg"); fi
done
packaging/install-deps.sh --bench
(cd tests/peer && npm ci --no-audit --no-fund --loglevel=error)
cmake --preset ci >/dev/null
cmake --build --preset ci >/dev/null
binary=build/ci/app/countersign
echo "== $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -sr), Qt $(dpkg-query -W -f='${Version}' qt6-base-dev)"
echo
xvfb-run -a -s "-screen 0 1280x800x24" node tests/bench/startup.mjs "$binary"
echo
node tests/bench/gate.mjs "$binary" "${gate_args[@]}"
echo
node tests/bench/gateway.mjs "$binary" "${gate_args[@]}"
echo
node tests/bench/hooks.mjs "$binary"
echo
node tests/bench/blastradius.mjs build/ci/tests/support/countersign-test-judge
echo
build/ci/tests/countersign-bench-tripwire
echo
build/ci/tests/countersign-bench-net
echo
node tests/bench/team.mjs "$binary" build/ci/tests/countersign-test-decide
echo
node tests/bench/flood.mjs "$binary"
echo
node tests/bench/listload.mjs "$binary"
if ((audit_view)); then
    echo
    build/ci/tests/countersign-bench-auditview
fi
