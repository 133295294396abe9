#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sql_distance_path.sh: `sql`'s distance is the number of references `path` prints, for
# every object asked (docs/sql.md: "as path"). Both walk the traces' order with the shipped
# rules; SQL took Shark's bare priorities, which follow the GC's pending-list link
# (Reference.discovered): in a live dump of 500 WeakReferences whose referents died
# (tests/programs/sql/Pending.java, the serial collector) a reference read distance 3 where
# `path` prints 4, reached through another reference's `discovered`.
set -euo pipefail
. "$(dirname "$0")/lib/common.bash"
cli_init sql-distance-path
cli_need_java
mkdir -p "$T/c"
javac -d "$T/c" "$LEAKRAY_SRC/tests/programs/sql/Pending.java"
java -XX:+UseSerialGC -cp "$T/c" Pending "$T/p.hprof"
run sql --csv --max-rows 0 "$T/p.hprof" "SELECT printf('0x%x', id), distance FROM objects
    WHERE distance >= 0 AND class = 'java.lang.ref.WeakReference'"
expect_rc 0
tail -n +2 "$T/out" >"$T/dist"
cut -d, -f1 "$T/dist" >"$T/ids"
[ "$(wc -l <"$T/ids")" -ge 500 ] || fail "$(wc -l <"$T/ids") WeakReferences with a distance"
run path "$T/p.hprof" --ids "$T/ids" --json --no-timing
expect_rc 0
python3 - "$T/dist" "$T/out" <<'PY' || fail "sql distance differs from path"
import json, sys
want = dict(l.strip().split(',') for l in open(sys.argv[1]))
paths = json.load(open(sys.argv[2]))['paths']
assert len(paths) == len(want), (len(paths), len(want))
bad = [(p['object']['id'], want[p['object']['id']], len(p['path']) - 1) for p in paths
       if int(want[p['object']['id']]) != len(p['path']) - 1]
assert not bad, bad[:5]
PY
echo "sql_distance_path: ok"
