#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# store_sqlite.sh: the leak store on SQLite, end to end (cases in store_lib.bash: idempotent
# ingest, occurrences, diff, trend, show, bad input, 16 concurrent ingesters, kill -9
# mid-ingest, prune), plus what only a file store has: PRAGMA integrity_check after the
# kills, and the upgrade of a store written by the first schema version
# (tests/e2e/expected/store/schema-v1.sql: its tables and one stored report); a crafted
# store carrying triggers, views or evaluated defaults is refused before they run.
set -euo pipefail
. "$(dirname "$0")/store_lib.bash"
store_init store_sqlite
db="$W/store.db"
store_cases "$db"
store_fresh_concurrent "$W/fresh.db"

# A native scan report (leakray native run --json): its groups are leaks of kind native.
if command -v cc >/dev/null; then
    printf '#include <stdlib.h>\n#include <string.h>\nstatic void lose(void) { char *p = malloc(64);\n memset(p, 1, 64); }\nint main(void) { for (int i = 0; i < 5; i++) lose(); return 0; }\n' \
        >"$W/nleak.c"
    cc -O0 -fno-omit-frame-pointer -o "$W/nleak" "$W/nleak.c"
    "$LEAKRAY" native run --json -- "$W/nleak" >"$W/nleak.json" 2>/dev/null ||
        fail "native run on a leaking program"
    "$LEAKRAY" store ingest --db "$W/native.db" "$W/nleak.json" >/dev/null ||
        fail "ingest of a native scan report"
    "$LEAKRAY" store leaks --db "$W/native.db" --json | jtrue 'len(d["leaks"]) >= 1 and
all(l["kind"] == "native" and l["retained_max"] >= 64 for l in d["leaks"])' "native report leaks"
fi

# What the JVM agent runs after a dump with report=db: the report lands in the store too.
mkdir -p "$W/agent"
cp "$DUMP" "$W/agent/leakray-1.hprof"
"$LEAKRAY" watch analyze "$W/agent/leakray-1.hprof" --quiet --store "$W/agent.db" >/dev/null ||
    fail "watch analyze --store"
"$LEAKRAY" store leaks --db "$W/agent.db" --json |
    jtrue 'len(d["leaks"]) == e["groups"]' "watch analyze --store did not fill the store"
python3 - "$db" <<'PY' || fail "integrity_check"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
r = c.execute("PRAGMA integrity_check").fetchall()
assert r == [("ok",)], r
PY

# Upgrade from schema version 1: the old report stays, a new ingest joins its leak.
old="$W/v1.db"
python3 - "$old" "$LEAKRAY_SRC/tests/e2e/expected/store/schema-v1.sql" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.executescript(open(sys.argv[2]).read())
c.commit()
PY
"$LEAKRAY" store export --db "$old" | jtrue 'd["store_schema_version"] == 2 and
len(d["reports"]) == 1 and d["reports"][0]["tool_version"] is None and
d["leaks"][0]["signature"] == "6f83e047ef35245f709411bcad14cb5241ad9e2f"' "upgrade from v1"
"$LEAKRAY" store ingest --db "$old" --at 2026-11-05 "$W/v10.json" >/dev/null
"$LEAKRAY" store leaks --db "$old" --json | jtrue '[l["occurrences"] for l in d["leaks"]
if l["signature"] == "6f83e047ef35245f709411bcad14cb5241ad9e2f"] == [2]' "old leak not joined"
python3 - "$old" <<'PY' || fail "upgraded store has no index"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
names = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
assert "occurrence_signature" in names, names
PY
# A store from a newer leakray is refused, not damaged.
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);
c.execute("UPDATE store_meta SET value = 99 WHERE key = '"'"'schema_version'"'"'"); c.commit()' "$old"
rc=0
"$LEAKRAY" store leaks --db "$old" >/dev/null 2>"$W/err" || rc=$?
[ "$rc" = 3 ] && grep -q "newer than this leakray" "$W/err" || fail "newer store not refused ($rc)"
# ... and a damaged version (-1 crashed it; 'abc' met a raw DDL error) is refused as damaged
for bad in -1 abc 2x; do
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);
c.execute("UPDATE store_meta SET value = ? WHERE key = '"'"'schema_version'"'"'", (sys.argv[2],));
c.commit()' "$old" "$bad"
    rc=0
    "$LEAKRAY" store leaks --db "$old" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 3 ] && grep -q "a damaged store" "$W/err" ||
        fail "schema_version '$bad': exit $rc: $(cat "$W/err")"
done

# Another program's SQLite database named as the store (a typo in --db) is refused before
# anything is written: no store tables added, its journal mode left as it was
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);
c.execute("CREATE TABLE users (id INTEGER)"); c.execute("INSERT INTO users VALUES (1)");
c.commit()' "$W/app.db"
for cmd in "store leaks" "store ingest $LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot"; do
    rc=0
    # shellcheck disable=SC2086
    "$LEAKRAY" $cmd --db "$W/app.db" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 3 ] && grep -q "no leakray store" "$W/err" ||
        fail "$cmd on another program's database: exit $rc: $(cat "$W/err")"
done
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);
t = [r[0] for r in c.execute("SELECT name FROM sqlite_master")]
m = c.execute("PRAGMA journal_mode").fetchone()[0]
sys.exit(0 if t == ["users"] and m == "delete" else 1)' "$W/app.db" ||
    fail "another program's database was changed"
# A crafted store that carries SQL of its own (a trigger that loops until the disk fills, a
# view in place of the leak table that never ends, a column computed on every read) is
# refused before any of it runs: exit 3, in seconds
for evil in \
    "CREATE TRIGGER t AFTER INSERT ON report BEGIN INSERT INTO leak_seen SELECT 'x', 'y', x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); END" \
    "ALTER TABLE leak RENAME TO leak_real; CREATE VIEW leak AS SELECT leak_real.* FROM leak_real, (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c) WHERE x = 0" \
    "ALTER TABLE leak ADD COLUMN pad TEXT GENERATED ALWAYS AS (hex(zeroblob(100000000))) VIRTUAL"; do
    cp "$db" "$W/evil.db"
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]);
c.commit()' "$W/evil.db" "$evil"
    for cmd in "store leaks" "store ingest $LEAKRAY_SRC/tests/data/v8/cliques.heapsnapshot"; do
        rc=0
        # shellcheck disable=SC2086
        timeout 20 "$LEAKRAY" $cmd --db "$W/evil.db" >/dev/null 2>"$W/err" || rc=$?
        [ "$rc" = 3 ] && grep -q "runs no SQL of its own" "$W/err" ||
            fail "$cmd on a store with '${evil:0:40}': exit $rc: $(cat "$W/err")"
    done
    rm -f "$W/evil.db"*
done
store_fleet_cases "$W/fleet.db"
rc=0
"$LEAKRAY" store leaks --db "" >/dev/null 2>"$W/err" || rc=$?
[ "$rc" = 2 ] && grep -q "names no file" "$W/err" || fail "--db '': exit $rc: $(cat "$W/err")"
# ... and so do SQLite's URI spellings of a database in memory (a store that vanished at exit
# after "stored ... report #1", exit 0)
for url in "file::memory:" "file:x?mode=memory"; do
    rc=0
    "$LEAKRAY" store ingest --db "$url" "$W/v10.json" >/dev/null 2>"$W/err" || rc=$?
    [ "$rc" = 2 ] && grep -q "names no file" "$W/err" || fail "--db '$url': exit $rc"
done
echo "store_sqlite: ok"
