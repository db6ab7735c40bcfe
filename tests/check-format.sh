#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what .clang-format makes of it, and names the files.
# clang-format 14 (Debian 12's) is the reference: other versions format a few constructs differently.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files '*.cpp' '*.h')
bad=()
for f in "${files[@]}"; do
    "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
    echo "check-format: ${#bad[@]} file(s) are not formatted (run: $formatter -i FILE):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
fi
echo "check-format: ${#files[@]} files formatted"
