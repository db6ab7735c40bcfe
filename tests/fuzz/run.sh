#!/usr/bin/env bash
# Runs one fuzz target from its seed corpus for a bounded time; new inputs go to a scratch corpus,
# never into the repository. A crash leaves its input in ./crash-* (add it to the seed corpus as a
# regression once fixed).
#   tests/fuzz/run.sh FUZZ_BINARY SEED_CORPUS_DIR SECONDS
set -euo pipefail
binary=$1 seeds=$2 seconds=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$binary" "$scratch" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 -detect_leaks=1
