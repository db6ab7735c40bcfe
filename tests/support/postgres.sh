#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests: a fresh data folder, trust authentication on
# 127.0.0.1 only, a free port, run as an unprivileged user (the "postgres" account when started as
# root: PostgreSQL refuses to run as root). fsync is off (a test cluster), unless COUNTERSIGN_PG_FSYNC=on
# (the benchmark: commits then reach the disk, as in use).
#   postgres.sh start DIR   starts it in DIR (made if missing) and prints its URL
#   postgres.sh stop DIR    stops it and removes DIR
set -euo pipefail
command=${1:-}
dir=${2:-}
if [[ -z $command || -z $dir ]]; then
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
fi
bin=/usr/lib/postgresql/15/bin
as_owner=()
if [[ $(id -u) -eq 0 ]]; then as_owner=(runuser -u postgres --); fi

case $command in
start)
    [[ -x $bin/initdb ]] || { echo "postgres.sh: PostgreSQL 15 is not installed ($bin)" >&2; exit 1; }
    mkdir -p "$dir"
    # The cluster's own folder, in the temporary directory (DIR's parents may be closed to the
    # account it runs as); DIR holds where it is.
    cluster=$(mktemp -d "${TMPDIR:-/tmp}/countersign-pgdata.XXXXXX")
    echo "$cluster" >"$dir/cluster"
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$cluster"; fi
    port=$(node -e "const s = require('net').createServer(); s.listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); });")
    "${as_owner[@]}" "$bin/initdb" -D "$cluster/data" -U countersign --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$cluster -c fsync=${COUNTERSIGN_PG_FSYNC:-off} -c max_connections=200" \
        start >/dev/null || { cat "$cluster/server.log" >&2; exit 1; }
    echo "postgresql://countersign@127.0.0.1:$port/postgres"
    ;;
stop)
    if [[ -f $dir/cluster ]]; then
        cluster=$(cat "$dir/cluster")
        if [[ -d $cluster/data ]]; then
            "${as_owner[@]}" "$bin/pg_ctl" -D "$cluster/data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
        [[ $cluster == "${TMPDIR:-/tmp}"/countersign-pgdata.* ]] && rm -rf "$cluster"
    fi
    rm -rf "$dir"
    ;;
*)
    echo "postgres.sh: unknown command $command" >&2
    exit 2
    ;;
esac
