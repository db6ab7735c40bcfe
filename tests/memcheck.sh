#!/usr/bin/env bash
# The load test with the server under valgrind memcheck (leaks and memory errors), smaller than
# the ctest run because valgrind is ~30 times slower. Fails on any definite or indirect leak or any
# memory error; the server's valgrind log is printed. (tests/run.sh covers leaks in CI with
# LeakSanitizer over the full load run; this is the second opinion.)
#   tests/memcheck.sh [COUNTERSIGN_BINARY] [--clients 20] [--calls 1000]
# Needs valgrind (apt install valgrind) and tests/peer/node_modules (tests/run.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$(realpath "${1:-build/ci/app/countersign}")
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# PCRE2's JIT code (QRegularExpression) is opaque to memcheck; the interpreter is not.
cat > "$work/countersign" <<WRAP
#!/bin/sh
export QT_ENABLE_REGEXP_JIT=0
exec valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
    --child-silent-after-fork=yes --suppressions=$PWD/tests/valgrind.supp --log-file=$work/valgrind.%p.log \
    "$binary" "\$@"
WRAP
chmod +x "$work/countersign"
status=0
node tests/peer/load.mjs "$work/countersign" --clients 20 --calls 1000 --max-seconds 900 "$@" || status=$?
for log in "$work"/valgrind.*.log; do
    [[ -s $log ]] && { echo "== $log"; cat "$log"; }
done
if ((status == 0)); then echo "memcheck: no leak, no memory error"; else echo "memcheck FAILED"; fi
exit $status
