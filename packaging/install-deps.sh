#!/usr/bin/env bash
# Installs what building, running and testing Countersign needs on Debian 12, and nothing when it
# is already there. Used by packaging/run.sh, tests/run.sh (which passes --tests for what only the
# tests need: a D-Bus session and a Secret Service for the keychain test, clang for the fuzz targets, clang-format for
# the format check, git and sqlite3 for the security tests: real repositories, and rows written around the store;
# PostgreSQL 15 for the store tests' second backend, a throwaway cluster tests/support/postgres.sh starts;
# Xvfb and xdotool for the real-agent tests, which press the window's keys on a virtual display;
# chromium and ImageMagick for the phone page's test, which reads the pairing QR code off the screen)
# and tests/bench/run.sh (--bench: Xvfb, for the start-up benchmark's window; PostgreSQL; wrk and nginx for
# tools/list under load beside a server that only answers, nginx's own service stopped and disabled).
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    qt6-base-dev libqt6sql6-sqlite libqt6sql6-psql qtkeychain-qt6-dev libgl-dev
    nlohmann-json3-dev libsodium-dev libgit2-dev libssl-dev libqrencode-dev
    nodejs npm
)
for arg in "$@"; do
    case $arg in
        --tests) packages+=(dbus dbus-user-session gnome-keyring clang clang-format git curl make sqlite3 postgresql-15 xvfb xauth xdotool chromium imagemagick) ;;
        --bench) packages+=(xvfb xauth postgresql-15 wrk nginx-light) ;;
        *) echo "install-deps: unknown option $arg" >&2; exit 2 ;;
    esac
done
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm may come from elsewhere than Debian (a newer build is fine); only require them.
if command -v node >/dev/null && command -v npm >/dev/null; then
    filtered=()
    for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || filtered+=("$p"); done
    missing=("${filtered[@]}")
fi
if ((${#missing[@]})); then
    echo "install-deps: installing ${missing[*]}" >&2
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    # The benchmark starts an nginx of its own on a free loopback port; the package's service (on
    # port 80, started when installed) is not wanted.
    if [[ " ${missing[*]} " == *" nginx-light "* ]] && command -v systemctl >/dev/null; then
        $sudo systemctl disable --now nginx >/dev/null 2>&1 || true
    fi
fi
