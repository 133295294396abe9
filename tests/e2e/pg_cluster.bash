# SPDX-License-Identifier: Apache-2.0
# pg_cluster.bash: a throwaway PostgreSQL server for tests (sourced, not a test itself). Uses
# Debian's postgresql binaries, initdb's a cluster in a fresh temporary folder and starts it
# listening on a Unix socket in that folder only (no TCP port, no system service, nothing to
# clash with), trust authentication. As root the server runs as the `postgres` account that
# the package creates (initdb refuses root). pg_start sets PG_URL; the server and its folder
# go away when the sourcing script exits.
#   pg_start            starts the server or skips the test (fails under CI=true)
#   pg_psql SQL         runs SQL as the superuser

pg_start() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
        [ "${CI:-}" = true ] && { echo "FAIL: postgresql required under CI=true" >&2; exit 1; }
        echo "SKIP: postgresql not installed (scripts/deps.sh test installs it)"
        exit 77
    fi
    PG_BIN=$bin
    PG_DIR=$(mktemp -d /tmp/leakray-pg.XXXXXX)
    chmod 755 "$PG_DIR"
    PG_AS=()
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$PG_DIR"
        PG_AS=(runuser -u postgres --)
    fi
    trap pg_stop EXIT
    "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres --no-sync \
        >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; exit 1; }
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
        -o "-k $PG_DIR -c listen_addresses='' -c fsync=off -c max_connections=64" start \
        >/dev/null || { cat "$PG_DIR/server.log" >&2; exit 1; }
    PG_URL="postgres:///postgres?host=$PG_DIR&user=postgres"
}

pg_stop() {
    if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
        "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    [ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
}

pg_psql() {
    "$PG_BIN/psql" -X -q -At -h "$PG_DIR" -U postgres -d "${2:-postgres}" -c "$1"
}
