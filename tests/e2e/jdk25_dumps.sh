#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# jdk25_dumps.sh: a dump written by JDK 25, checked without JDK 25 (CI runs JDK 17 only).
# tests/data/jdk25/vthreads-coh.hprof.gz (scripts/golden-jdk25.sh) is VirtualLeaks
# (tests/programs/vthreads) on JDK 25 with compact object headers: leaks held by a parked
# (unmounted) and a running (mounted) virtual thread's locals, a virtual thread's
# ThreadLocal and a static. `leakray analyze` must give Shark 2.14's traces on that very dump
# (expected/jdk25/vthreads-coh.json), show the same trace of each group in Shark's order (a
# thread's local comes with the thread's other traces: order.txt), print Shark's size lines
# under --size-model shark (but a thread node's), and `histo` must give the instances and
# bytes of the JVM's own class histogram taken just before the dump (8-byte headers: a
# Screen is 16 bytes, not 24). `path` and `show` name the thread and frame of a local's root,
# and `threads` gives a virtual thread's own state (PARKED, RUNNING). A parked virtual
# thread's stack weighs what the JVM's histogram says (parked-stacks.hprof.gz, and
# parked-stacks-a128.hprof.gz with 128-byte object alignment). FFM arenas' allocations are
# native bytes (ffm.hprof.gz).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/jdk25_dumps"
exp="$LEAKRAY_SRC/tests/e2e/expected/jdk25"
py="$LEAKRAY_SRC/tests/e2e/shark_parity.py"
known="$LEAKRAY_SRC/tests/e2e/expected/shark/known-differences.txt"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

name=vthreads-coh
dump="$LEAKRAY_SRC/tests/data/jdk25/$name.hprof.gz"
"$LEAKRAY" analyze "$dump" --json --no-timing > "$work/lr.json" || [ $? = 1 ] ||
    fail "analyze --json failed"
python3 "$py" norm-leakray "$work/lr.json" > "$work/lr.canon"
python3 "$py" compare "$name" "$exp/$name.json" "$work/lr.canon" "$known" ||
    fail "traces differ from Shark's"
python3 - "$work/lr.json" <<'PY' || fail "leaks, roots or counts"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["leaking_objects"] == 4 and d["also_retained"] == 0, d["leaking_objects"]
assert d["unreachable_objects"] == [], d["unreachable_objects"]
by = {}
for t in d["traces"]:
    key = [l for l in t["elements"][-1]["labels"] if l.startswith("key = ")][0]
    by[key] = (t["gc_root"]["kind"], t["elements"][0]["class"])
# the locals of both virtual threads, mounted or not, are roots under their thread objects
for k in ("key = vt-2", "key = vt-4", "key = vt-3"):
    assert by[k] == ("thread object", "java.lang.VirtualThread"), (k, by[k])
assert by["key = vt-1"][0] == "sticky class", by
print("4 leaks: 3 held by virtual threads (2 locals, 1 ThreadLocal), 1 by a static")
PY
"$LEAKRAY" analyze "$dump" --no-timing > "$work/lr.txt" || [ $? = 1 ]
grep -o 'key = vt-[0-9]*' "$work/lr.txt" > "$work/order.txt"
diff -u "$exp/$name.order.txt" "$work/order.txt" ||
    fail "groups or their shown traces not in Shark's order"
"$LEAKRAY" analyze "$dump" --no-timing --no-suspects --size-model shark \
    > "$work/lr.shark.txt" || [ $? = 1 ]
# not a thread node's (the parked virtual thread: Shark 63.6 kB in 15 objects, leakray 63.5 kB
# in 13): Shark updates dominators as its search goes and keeps under the thread what a static
# also reaches (docs/design.md, "Parity with Shark"), as on the shark4 dumps
python3 "$py" sizes-no-threads "$name" "$exp/$name.retaining.txt" "$work/lr.shark.txt" "$known" ||
    fail "--size-model shark figures differ from Shark's"
# same_as_jvm HISTO_JSON JVM_HISTOGRAM MIN_CLASSES: every class the JVM's histogram lists has
# its instances and bytes in leakray's histo.
same_as_jvm() {
    python3 - "$@" <<'PY'
import json, sys
got = {c["name"]: (c["count"], c["shallow"]) for c in json.load(open(sys.argv[1]))["classes"]}
n = 0
for line in open(sys.argv[2]):
    count, size, cls = line.split()
    assert got.get(cls) == (int(count), int(size)), (cls, got.get(cls), (count, size))
    n += 1
assert n >= int(sys.argv[3]), n
print("histo: %d classes, instances and bytes as the JVM's class histogram" % n)
PY
}
"$LEAKRAY" histo "$dump" --json --no-timing > "$work/histo.json"
same_as_jvm "$work/histo.json" "$exp/$name.jvm-histo.txt" 2 ||
    fail "histo differs from the JVM's histogram"
# the JVM's layout (compact headers: 8-byte header, 4-byte references) is said where it
# replaced VisualVM's guesses
"$LEAKRAY" info "$dump" | grep -qx "  *with the JVM's layout from the dump: 8-byte object header, 4-byte references" ||
    fail "info does not name the JVM's layout"
"$LEAKRAY" info "$dump" --json | python3 -c 'import json, sys
assert json.load(sys.stdin)["object_layout"] == {"header": 8, "reference": 4}' ||
    fail "info --json object_layout"
# a local's root names its thread and frame, in path and show (text and JSON), for the
# parked (unmounted) and the running (mounted) virtual thread alike
"$LEAKRAY" instances "$dump" 'com.example.vthreads.VirtualLeaks$Screen' --json --no-timing \
    > "$work/screens.json"
for want in "parked-local vt-parked parked 63" "running-local vt-running running 75"; do
    set -- $want
    id=$(python3 - "$work/screens.json" "$1" "$LEAKRAY" "$dump" <<'PY'
import json, subprocess, sys
for o in json.load(open(sys.argv[1]))["instances"]:
    s = json.loads(subprocess.check_output([sys.argv[3], "show", "--json", sys.argv[4],
                                            o["id"]]))["object"]
    if any(f["name"] == "name" and f.get("string") == sys.argv[2] for f in s["fields"]):
        print(o["id"])
PY
)
    [ -n "$id" ] || fail "no Screen named $1"
    frame="com.example.vthreads.VirtualLeaks.$3(VirtualLeaks.java:$4)"
    "$LEAKRAY" path --no-timing "$dump" "$id" | head -1 > "$work/root.txt"
    grep -qxF "GC root: Java local variable in thread \"$2\" (serial $(
        "$LEAKRAY" path --json "$dump" "$id" | python3 -c 'import json, sys
print(json.load(sys.stdin)["root"]["thread_serial"])')) at $frame" "$work/root.txt" ||
        fail "path of $1: $(cat "$work/root.txt")"
    "$LEAKRAY" path --json "$dump" "$id" | python3 -c 'import json, sys
r = json.load(sys.stdin)["root"]
assert (r["thread_name"], r["frame"]) == (sys.argv[1], sys.argv[2]), r' "$2" "$frame" ||
        fail "path --json of $1: no thread name or frame"
    "$LEAKRAY" show --json "$dump" "$id" | python3 -c 'import json, sys
t = json.load(sys.stdin)["object"]["thread_roots"]
assert [(x["kind"], x["thread_name"], x["frame"]) for x in t] == [
    ("Java frame", sys.argv[1], sys.argv[2])], t' "$2" "$frame" ||
        fail "show --json of $1: thread_roots"
    "$LEAKRAY" show --no-timing "$dump" "$id" |
        grep -qxF "  Java local variable in thread \"$2\" (serial $(
            "$LEAKRAY" path --json "$dump" "$id" | python3 -c 'import json, sys
print(json.load(sys.stdin)["root"]["thread_serial"])')) at $frame" || fail "show of $1: no thread root"
done
# a virtual thread's state is its own (VirtualThread.state named by the class's constants,
# whose values differ between JDK releases), and it is a daemon
"$LEAKRAY" threads --json --no-timing "$dump" | python3 -c 'import json, sys
t = {x["name"]: (x["state"], x["daemon"]) for x in json.load(sys.stdin)["threads"]}
assert t["vt-parked"] == ("PARKED", True) and t["vt-running"] == ("RUNNING", True), t' ||
    fail "threads: virtual threads state or daemon flag"

# A parked virtual thread's frames are a jdk.internal.vm.StackChunk whose stack follows its
# fields: tests/data/jdk25/parked-stacks.hprof.gz (scripts/golden-jdk25-stacks.sh, 300
# threads 5 to 65 frames deep, default layout) must weigh them as the JVM's histogram does
# (1,494,592 bytes; the dump's fields alone gave 9,600), in `histo` (through the graph: the
# streamed walk keeps no record) and in the heap total `top` reaches.
stacks="$LEAKRAY_SRC/tests/data/jdk25/parked-stacks.hprof.gz"
"$LEAKRAY" histo "$stacks" --json --no-timing > "$work/stacks.json"
same_as_jvm "$work/stacks.json" "$exp/parked-stacks.jvm-histo.txt" 2 ||
    fail "histo: StackChunk sizes differ from the JVM's"
# the same with -XX:ObjectAlignmentInBytes=128: a chunk's fixed part is a multiple of the
# alignment, as every instance is (it was 8 bytes' multiple: 127 B a chunk short)
"$LEAKRAY" histo "$LEAKRAY_SRC/tests/data/jdk25/parked-stacks-a128.hprof.gz" --json --no-timing \
    > "$work/stacks128.json"
same_as_jvm "$work/stacks128.json" "$exp/parked-stacks-a128.jvm-histo.txt" 2 ||
    fail "histo: StackChunk sizes differ from the JVM's at a 128-byte alignment"
# FFM arenas (tests/data/jdk25/ffm.hprof.gz, scripts/golden-jdk25-ffm.sh): a shared arena's
# 20 MiB and an automatic one's 30 MiB allocation are native bytes their cleanups own, beside
# a 10 MiB direct buffer; a closed arena's 8 MiB are not (its list keeps the cleanup)
ffm="$LEAKRAY_SRC/tests/data/jdk25/ffm.hprof.gz"
"$LEAKRAY" info "$ffm" --json --no-timing | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["native_total"] == 60 << 20, d["native_total"]' || fail "info: FFM native total"
got=$("$LEAKRAY" sql "$ffm" "SELECT native FROM objects WHERE native > 0 AND class LIKE 'jdk.internal.foreign.%' ORDER BY 1" | tr '\n' ' ')
[ "$got" = "native 20971520 31457280 " ] || fail "sql: FFM cleanups' native bytes: $got"
"$LEAKRAY" top --json --no-timing --top 1 "$stacks" | python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d["reachable_bytes"] > 1494592, d["reachable_bytes"]' ||
    fail "top: the stacks are not in the heap's total"
echo "jdk25_dumps: ok"
