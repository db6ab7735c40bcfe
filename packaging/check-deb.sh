#!/usr/bin/env bash
# Builds the .deb from a build folder and checks it: the files it installs, its dependencies, and
# that the packaged binary starts (headless, on a free port) from the package's own layout.
# With --install (as root) it also installs it with apt, starts /usr/bin/countersign and removes it.
#   packaging/check-deb.sh BUILD_DIR [--install]
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap '[[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
(cd "$build" && cpack -G DEB -B "$work/out" >/dev/null)
deb=$(ls "$work"/out/countersign_*.deb)
echo "package: $(basename "$deb")"
dpkg-deb -x "$deb" "$work/root"
for f in usr/bin/countersign usr/share/applications/dev.countersign.Countersign.desktop \
         usr/share/metainfo/dev.countersign.Countersign.metainfo.xml \
         usr/share/icons/hicolor/scalable/apps/dev.countersign.Countersign.svg; do
    [[ -f $work/root/$f ]] || { echo "missing from the package: $f" >&2; exit 1; }
done
if dpkg-deb -c "$deb" | grep -q countersign-test-; then echo "a test tool is in the package" >&2; exit 1; fi
# The conformance fixture tools live in the test host only: not one of their names is in the binary.
if grep -a -q -e test_simple_text -e test_input_required_result "$work/root/usr/bin/countersign"; then
    echo "the packaged binary contains a conformance fixture tool" >&2; exit 1
fi
depends=$(dpkg-deb -f "$deb" Depends)
echo "depends: $depends"
for lib in libqt6widgets6 libqt6network6 libsodium23 libqt6keychain1 libqt6sql6-sqlite; do
    [[ $depends == *"$lib"* ]] || { echo "Depends lacks $lib" >&2; exit 1; }
done
recommends=$(dpkg-deb -f "$deb" Recommends)
[[ $recommends == *libqt6sql6-psql* ]] || { echo "Recommends lacks libqt6sql6-psql (a team's PostgreSQL store)" >&2; exit 1; }
command -v appstreamcli >/dev/null && appstreamcli validate --no-net "$work/root/usr/share/metainfo/dev.countersign.Countersign.metainfo.xml" >/dev/null
command -v desktop-file-validate >/dev/null && desktop-file-validate "$work/root/usr/share/applications/dev.countersign.Countersign.desktop"

start() { # binary: starts it headless and waits for its listening line
    "$1" --version
    "$1" --headless --listen 127.0.0.1:0 --data-dir "$work/data-$2" --config "$work/none.json" 2>"$work/log-$2" &
    pid=$!
    for _ in $(seq 100); do grep -q "listening on http://127.0.0.1" "$work/log-$2" && break; sleep 0.1; done
    grep "listening on" "$work/log-$2" || { cat "$work/log-$2" >&2; exit 1; }
    kill "$pid"; wait "$pid" || true; pid=
}
start "$work/root/usr/bin/countersign" extracted
if [[ ${2:-} == --install ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
    start /usr/bin/countersign installed
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq countersign >/dev/null
    echo "installed with apt, started, removed"
fi
echo "package ok"
