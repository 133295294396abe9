#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_postgres.sh: the leak store on PostgreSQL, end to end, on a real server this test
# starts itself (pg_cluster.bash): the same cases as on SQLite (store_lib.bash: idempotent
# ingest, occurrences, diff, trend, show, bad input, 16 concurrent ingesters on 16
# connections, kill -9 mid-ingest, prune), then the same store read back through psql, so the
# rows are really in PostgreSQL and not in a file beside it; three concurrent ingests of
# 6,000 leaks each.
set -euo pipefail
. "$(dirname "$0")/store_lib.bash"
. "$(dirname "$0")/pg_cluster.bash"
store_init store_postgres
pg_start
pg_psql "CREATE DATABASE leaks" >/dev/null
url="postgres://postgres@127.0.0.1:$PG_PORT/leaks"
store_cases "$url"
pg_psql "CREATE DATABASE fresh" >/dev/null
store_fresh_concurrent "postgres:///fresh?host=$PG_DIR&port=$PG_PORT&user=postgres"
[ "$(pg_psql "SELECT value FROM store_meta WHERE key = 'schema_version'" leaks)" = 2 ] ||
    fail "schema_version not 2 in PostgreSQL"
[ "$(pg_psql "SELECT count(*) FROM report" leaks)" = 2 ] || fail "reports not in PostgreSQL"
# A server that is not there: exit 4 with libpq's reason, not a crash.
rc=0
"$LEAKRAY" store leaks --db "postgres:///leaks?host=$PG_DIR/none&port=$PG_PORT&user=postgres" \
    >/dev/null 2>"$W/err" || rc=$?
[ "$rc" = 4 ] && grep -q "cannot connect to PostgreSQL" "$W/err" ||
    fail "unreachable server: exit $rc: $(cat "$W/err")"
pg_psql "CREATE DATABASE fleet" >/dev/null
store_fleet_cases "postgres://postgres@127.0.0.1:$PG_PORT/fleet"
# A message about the store never shows its password.
pg_psql "UPDATE store_meta SET value = '99' WHERE key = 'schema_version'" fleet >/dev/null
rc=0
"$LEAKRAY" store leaks --db "postgres://postgres:s3cret@127.0.0.1:$PG_PORT/fleet" \
    >/dev/null 2>"$W/err" || rc=$?
[ "$rc" = 3 ] && grep -q 'postgres:\*\*\*@127.0.0.1' "$W/err" && ! grep -q s3cret "$W/err" ||
    fail "newer store through a URL with a password: exit $rc: $(cat "$W/err")"
# libpq's key=value form is a PostgreSQL store too, not a file of that name.
"$LEAKRAY" store leaks --db "host=127.0.0.1 port=$PG_PORT dbname=leaks user=postgres" \
    >/dev/null || fail "a key=value connection string"
[ ! -e "host=127.0.0.1 port=$PG_PORT dbname=leaks user=postgres" ] ||
    fail "a key=value connection string became a SQLite file"
# A server that takes the connection and never answers: exit 4 after libpq's connect timeout
# (10 s unless the URL sets one), not a wait without end
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0));
print(s.getsockname()[1])')
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); kept = []
end = time.time() + 60
while time.time() < end:
    s.settimeout(1)
    try: kept.append(s.accept()[0])
    except OSError: pass' "$port" &
silent=$!
sleep 0.5
t0=$(date +%s)
rc=0
"$LEAKRAY" store leaks --db "postgres://postgres@127.0.0.1:$port/leaks" >/dev/null \
    2>"$W/err" || rc=$?
kill "$silent" 2>/dev/null || true
[ "$rc" = 4 ] && grep -q "timeout" "$W/err" || fail "a silent server: exit $rc: $(cat "$W/err")"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "a silent server held store leaks $(($(date +%s) - t0)) s"
# A database with no store: commands that read say so and write nothing; another
# program's database is left untouched, as on SQLite
pg_psql "CREATE DATABASE empty" >/dev/null
rc=0
"$LEAKRAY" store leaks --db "postgres://postgres@127.0.0.1:$PG_PORT/empty" >/dev/null \
    2>"$W/err" || rc=$?
[ "$rc" = 4 ] && grep -q "no leak store at" "$W/err" || fail "empty database: exit $rc"
[ "$(pg_psql "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'" \
    empty)" = 0 ] || fail "store leaks made tables in an empty database"
pg_psql "CREATE DATABASE app" >/dev/null
pg_psql "CREATE TABLE report (id INT, title TEXT)" app >/dev/null
for cmd in "store leaks" "store ingest $W/v10.json"; do
    rc=0
    read -r -a args <<<"$cmd"
    "$LEAKRAY" "${args[@]}" --db "postgres://postgres@127.0.0.1:$PG_PORT/app" >/dev/null \
        2>"$W/err" || rc=$?
    [ "$rc" = 3 ] || [ "$rc" = 4 ] || fail "$cmd on another program's database: exit $rc"
    grep -q "left untouched\|no leak store" "$W/err" || fail "$cmd: $(cat "$W/err")"
done
[ "$(pg_psql "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'" \
    app)" = 1 ] || fail "another program's database got tables"
# whatever libpq keyword comes first (channel_binding, sslcert, one newer than leakray)
cd "$W"
for kv in "channel_binding=prefer host=127.0.0.1 port=$PG_PORT dbname=leaks user=postgres" \
          "sslrootcert=/nonexistent host=127.0.0.1 port=$PG_PORT dbname=leaks user=postgres" \
          "zz_future=1 host=127.0.0.1 port=$PG_PORT dbname=leaks password=kvsecret"; do
    "$LEAKRAY" store leaks --db "$kv" >/dev/null 2>"$W/err" || true
    [ ! -e "$kv" ] || fail "'$kv' became a SQLite file"
    ! grep -q kvsecret "$W/err" || fail "a password in: $(cat "$W/err")"
done
# libpq's own messages quote what they could not parse: a password's piece never shows
for url in "postgres://postgres:50%off@127.0.0.1:$PG_PORT/leaks" \
           "host=127.0.0.1 port=$PG_PORT dbname=leaks password=my SPACEsecret" \
           "host=127.0.0.1 password='it\\'sQUOTEsecret' zz"; do
    rc=0
    "$LEAKRAY" store leaks --db "$url" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 4 ] || fail "$url: exit $rc"
    ! grep -q '50%off\|SPACEsecret\|QUOTEsecret' "$W/err" || fail "a password in: $(cat "$W/err")"
done
# Reports of thousands of leaks, three at once: each ingest holds a bounded number of
# advisory locks (one per signature ran the server's lock table out, "out of shared memory",
# past about 4,000 leaks at 64 connections, and the report was lost)
python3 - "$W/v10.json" "$W" <<'PY'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
g0 = (d["application_leaks"] or d["library_leaks"])[0]
for w in range(3):
    d["application_leaks"] = [dict(g0, signature=hashlib.sha1(b"many%d-%d" % (w, i)).hexdigest(),
                                   short_description="Many%d.f%d" % (w, i)) for i in range(6000)]
    d["library_leaks"] = []
    json.dump(d, open("%s/many%d.json" % (sys.argv[2], w), "w"))
PY
pg_psql "CREATE DATABASE many" >/dev/null
murl="postgres://postgres@127.0.0.1:$PG_PORT/many"
pids=()
for w in 0 1 2; do
    "$LEAKRAY" store ingest --db "$murl" --app many "$W/many$w.json" >"$W/many$w.out" \
        2>"$W/many$w.err" &
    pids+=($!)
done
for w in 0 1 2; do
    wait "${pids[$w]}" || fail "ingest of 6,000 leaks: $(cat "$W/many$w.err")"
done
[ "$(pg_psql "SELECT count(*) FROM report" many)" = 3 ] || fail "reports of many leaks lost"
[ "$(pg_psql "SELECT count(*) FROM leak" many)" = 18000 ] ||
    fail "leaks: $(pg_psql "SELECT count(*) FROM leak" many), want 18000"
echo "store_postgres: ok"
