#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# direct_buffers.sh: memory off the Java heap counted where its owner is. Runs
# tests/programs/direct/DirectLeak.java on the machine's JDK: 8 direct buffers of 1 MiB and
# two views of the first in a static pool, 3 closed connections each holding a 2 MiB direct
# buffer in a static registry (the leak), 4 buffers of 1 MiB dropped before the dump. Checks
# that each owning buffer carries the bytes its Cleaner's Deallocator records (the views none,
# the dropped ones nothing), in `info`, `show`, `sql`, `top` and `analyze`: the leaking connection
# retains its 2 MiB, the pool its 8 MiB, and the suspects (Eclipse MAT's) name the buffers;
# under --size-model shark (Shark's rule) none of it. Buffers made from an address without a
# Cleaner (tests/programs/direct/NoCleaner.java, as Netty's) count their capacity while reached;
# the JDK's own (its mapped class image, 100+ MB, and its performance counters) do not.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$LEAKRAY_BUILD/tmp/direct_buffers
rm -rf "$work"
mkdir -p "$work/classes"
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/direct/DirectLeak.java"
java -Xmx64m -cp "$work/classes" DirectLeak "$work/d.hprof"
D=$work/d.hprof
MiB=1048576

# buffers made from an address: 3 of 1 MiB held (and a view of one), none of the JDK's
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/direct/NoCleaner.java"
java -Xmx64m --add-opens java.base/java.nio=ALL-UNNAMED -cp "$work/classes" NoCleaner \
    "$work/n.hprof"
n=$("$LEAKRAY" sql --no-timing "$work/n.hprof" "select sum(native) from objects" | tail -1)
[ "$n" = $((3 * MiB)) ] || fail "buffers without a Cleaner: native $n, want $((3 * MiB))"
"$LEAKRAY" top --json --no-timing --model strong --top 5 "$work/n.hprof" > "$work/ntop.json"
python3 - "$work/ntop.json" "$MiB" <<'PY' || fail "top: the list does not retain 3 MiB"
import json, sys
t, mib = json.load(open(sys.argv[1])), int(sys.argv[2])
assert any(r['retained'] >= 3 * mib and 'NoCleaner' in r['class'] for r in t['objects']), t['objects'][:3]
PY

# info: the native total is the live buffers' bytes, 8 + 3 x 2 MiB, none of the dropped four
"$LEAKRAY" info --json --no-timing "$D" > "$work/info.json"
python3 -c 'import json, sys
n = json.load(open(sys.argv[1])).get("native_total")
assert n == 14 * int(sys.argv[2]), n' "$work/info.json" "$MiB" || fail "info: native_total"

# show: an owning buffer has its capacity as native size; a view has none
"$LEAKRAY" sql --no-timing "$D" "select printf('0x%x', id), class from objects
    where class in ('java.nio.DirectByteBuffer', 'java.nio.DirectByteBufferR')" > "$work/bufs.tsv"
[ "$(grep -c 'DirectByteBuffer$' "$work/bufs.tsv")" = 12 ] || fail "12 DirectByteBuffers expected"
owning=0 views=0
while read -r id cls; do
    case $id in 0x*) ;; *) continue ;; esac
    n=$("$LEAKRAY" show --json --no-timing "$D" "$id" | python3 -c 'import json, sys
o = json.load(sys.stdin)["object"]; print(o.get("native", 0))')
    case $n in
    "$MiB" | $((2 * MiB))) owning=$((owning + 1)) ;;
    0) views=$((views + 1)) ;;
    *) fail "show $id ($cls): native $n" ;;
    esac
done < "$work/bufs.tsv"
[ "$owning" = 11 ] && [ "$views" = 2 ] || fail "owning $owning (11), views $views (2)"
"$LEAKRAY" show --no-timing "$D" "$(awk '$2 == "java.nio.DirectByteBuffer" {print $1; exit}' \
    "$work/bufs.tsv")" | grep -Eq '^native size: +(1,048,576|2,097,152) bytes' ||
    fail "show text: no native size line"

# sql: the native column, per class
"$LEAKRAY" sql --no-timing "$D" "select class, count(*), sum(native) from objects
    where native > 0 group by class" > "$work/sql.tsv"
[ "$(tail -n +2 "$work/sql.tsv")" = "$(printf 'java.nio.DirectByteBuffer\t11\t%d' $((14 * MiB)))" ] ||
    fail "sql: native column: $(cat "$work/sql.tsv")"

# top (strong references): the registry's map retains the 3 connections' 6 MiB, and the pool
# list at least the 6 buffers no view or local also holds
"$LEAKRAY" top --json --no-timing --model strong --top 50 "$D" > "$work/top.json"
python3 - "$work/top.json" "$MiB" <<'PY' || fail "top: native bytes not in retained sizes"
import json, sys
rows, mib = json.load(open(sys.argv[1]))["objects"], int(sys.argv[2])
maps = [r for r in rows if r["class"] == "java.util.HashMap" and 6 * mib <= r["retained"] < 6 * mib + 4096]
lists = [r for r in rows if r["class"] == "java.util.ArrayList" and 6 * mib <= r["retained"] < 8 * mib + 4096]
assert maps and lists, [(r["class"], r["retained"]) for r in rows[:10]]
print("top: registry %d, pool %d bytes retained" % (maps[0]["retained"], lists[0]["retained"]))
PY

# analyze: each leaking connection retains its buffer's 2 MiB; the suspects name the buffers
"$LEAKRAY" analyze --json --no-timing --watch 'DirectLeak$Connection' "$D" > "$work/an.json" ||
    [ $? = 1 ] || fail "analyze failed"
python3 - "$work/an.json" "$MiB" <<'PY' || fail "analyze: sizes of the leak"
import json, sys
d, mib = json.load(open(sys.argv[1])), int(sys.argv[2])
assert d["leaking_objects"] == 3, d["leaking_objects"]
for t in d["traces"]:
    last = t["elements"][-1]
    assert last["class"] == "DirectLeak$Connection", last
    assert 2 * mib < last["retained_bytes"] < 2 * mib + 1024, last["retained_bytes"]
# the pool's 8 buffers (VisualVM's model: each Cleaner's referent holds its buffer too, so
# they are top-level instances) and the 3 connections' buffers
got = sorted((s["count"] if s["kind"] == "instances" else 1, s["retained_bytes"] // mib)
             for s in d["suspects"] if s["class"] == "java.nio.DirectByteBuffer")
assert got == [(1, 2), (1, 2), (1, 2), (8, 8)], got
print("analyze: 3 connections of 2 MiB each; suspects: %s" % got)
PY
# --size-model shark is Shark's rule: no direct buffer's memory (its trace sizes stay Shark's)
"$LEAKRAY" analyze --json --no-timing --size-model shark --watch 'DirectLeak$Connection' "$D" \
    > "$work/an-shark.json" || [ $? = 1 ] || fail "analyze --size-model shark failed"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sizes = [t["elements"][-1]["retained_bytes"] for t in d["traces"]]
assert len(sizes) == 3 and all(0 < s < 1024 for s in sizes), sizes' "$work/an-shark.json" ||
    fail "analyze --size-model shark counts direct buffers' memory"
echo "direct_buffers: ok"
