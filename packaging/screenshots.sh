#!/usr/bin/env bash
# Takes the README's screenshots (docs/screenshots/*.png) of the real app under Xvfb.
#   packaging/screenshots.sh [COUNTERSIGN_BINARY]     (default: build/dev/app/countersign)
# Needs xvfb, imagemagick, xdotool and node (apt install xvfb imagemagick xdotool).
set -euo pipefail
cd "$(dirname "$0")/.."
binary=${1:-build/dev/app/countersign}
xvfb-run -a -s "-screen 0 1100x760x24" node packaging/screenshots.mjs "$binary" docs/screenshots
