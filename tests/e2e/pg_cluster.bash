# SPDX-License-Identifier: Apache-2.0
# pg_cluster.bash: a throwaway PostgreSQL server for tests (sourced, not a test itself). Uses
# Debian's postgresql binaries, initdb's a cluster in a fresh temporary folder and starts it
# on loopback (127.0.0.1, a free port picked at start, as a fleet's clients reach a server:
# over TCP) and on a Unix socket in that folder, with no system service and trust
# authentication. As root the server runs as the `postgres` account that
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
    # a free port: the kernel picks one; another process could take it before the server
    # binds it, so a failed start is retried with a new port
    local try
    for try in 1 2 3; do
        PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0));
print(s.getsockname()[1])')
        if "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
            -o "-k $PG_DIR -p $PG_PORT -c listen_addresses=127.0.0.1 -c fsync=off \
                -c max_connections=64" start >/dev/null; then
            PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
            return 0
        fi
    done
    cat "$PG_DIR/server.log" >&2
    exit 1
}

pg_stop() {
    if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/data" ]; then
        "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    fi
    [ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
}

pg_psql() {
    "$PG_BIN/psql" -X -q -At -h "$PG_DIR" -p "$PG_PORT" -U postgres -d "${2:-postgres}" -c "$1"
}
