#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# leaks_order.sh: `leakray leaks` follows objects by id, and refuses what would make that
# follow the wrong objects, where a --fail-on-leak gate would otherwise pass or report
# objects that never leaked.
# - V8 (tests/programs/js/order.js): in order, the 500 Leaked are the one leak; the target
#   given as the baseline, or the final as the target, is refused (exit 2, "looks taken
#   after"): V8 numbers new objects upward. So is a swapped pair of a program that only grew
#   (tests/programs/js/grow_only.js: no object dies, so only the new ones tell the order;
#   it read "0 leaked", exit 0, under --fail-on-leak), and a final snapshot older than the
#   target (it keeps objects numbered before the target's new ones that the target lacks).
# - HotSpot (tests/programs/leaks/ThreeDumps.java): an HPROF id is an address. Under G1 the
#   collections before each dump move objects, and the method reported objects from before
#   the baseline (500 Preexisting, System.out) as leaks and missed LeakRec: refused (exit 2,
#   "moved"), and --force runs it with a warning (in --json's warnings too). Under Epsilon (no collection, no move) it
#   runs, and finds exactly the 1,000 LeakRec, not their Strings, the Strings' value arrays,
#   the list's new backing array, nor the classes and method handles the JVM made on first
#   use (rules/hprof.rules' leak-ignore lines; they were half the report); the filler arrays of the threads' allocation
#   buffers, whose addresses new objects take, do not count as moves. Class objects on a
#   chain are named ("class ThreeDumps"), not "class".
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node javac java python3
work="$LEAKRAY_BUILD/tmp/leaks_order"
rm -rf "$work"
mkdir -p "$work/js" "$work/g1" "$work/eps" "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }

node --expose-gc "$LEAKRAY_SRC/tests/programs/js/order.js" "$work/js"
J=$work/js
leaks() { # leaks OUT ARGS...: rc in $rc
    local out=$1
    shift
    rc=0
    "$LEAKRAY" leaks --no-timing "$@" >"$out" 2>"$out.err" || rc=$?
}
leaks "$work/js.json" --json --top 0 --fail-on-leak --baseline "$J/baseline.heapsnapshot" \
    --target "$J/target.heapsnapshot" --final "$J/final.heapsnapshot"
[ $rc = 1 ] || fail "in order: exit $rc $(cat "$work/js.json.err")"
python3 - "$work/js.json" <<'PY' || fail "in order: the leak"
import json, sys
d = json.load(open(sys.argv[1]))
titles = {c["title"]: c["count"] for c in d["clusters"]}
assert titles.get("Leaked") == 500, titles
assert not any(t in titles for t in ("Old", "Temp", "Late")), titles
PY
leaks "$work/js.swap1" --fail-on-leak --baseline "$J/target.heapsnapshot" \
    --target "$J/baseline.heapsnapshot" --final "$J/final.heapsnapshot"
[ $rc = 2 ] && grep -q "target.heapsnapshot looks taken after .*baseline.heapsnapshot" \
    "$work/js.swap1.err" || fail "baseline and target swapped: exit $rc"
leaks "$work/js.swap2" --fail-on-leak --baseline "$J/baseline.heapsnapshot" \
    --target "$J/final.heapsnapshot" --final "$J/target.heapsnapshot"
[ $rc = 2 ] && grep -q "looks taken after" "$work/js.swap2.err" ||
    fail "target and final swapped: exit $rc"
mkdir -p "$work/grow"
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/grow_only.js" "$work/grow"
W=$work/grow
leaks "$work/grow.txt" --fail-on-leak --baseline "$W/baseline.heapsnapshot" \
    --target "$W/target.heapsnapshot" --final "$W/final.heapsnapshot"
[ $rc = 1 ] && grep -q "Session" "$work/grow.txt" || fail "grow only, in order: exit $rc"
for fin in "$W/final.heapsnapshot" ""; do
    leaks "$work/grow.swap" --fail-on-leak --baseline "$W/target.heapsnapshot" \
        --target "$W/baseline.heapsnapshot" ${fin:+--final "$fin"}
    [ $rc = 2 ] && grep -q "target.heapsnapshot looks taken after .*baseline.heapsnapshot" \
        "$work/grow.swap.err" || fail "grow only, swapped (final '$fin'): exit $rc"
done
# the baseline given as the final snapshot of a program that only grew (a copy: not the same
# file): it holds none of the target's new objects and nothing newer, but objects numbered
# before them that died ("0 leaked", exit 0, under --fail-on-leak)
cp "$W/baseline.heapsnapshot" "$work/old-final.heapsnapshot"
leaks "$work/grow.old" --fail-on-leak --baseline "$W/baseline.heapsnapshot" \
    --target "$W/target.heapsnapshot" --final "$work/old-final.heapsnapshot"
[ $rc = 2 ] && grep -q "target.heapsnapshot looks taken after .*old-final.heapsnapshot" \
    "$work/grow.old.err" || fail "grow only, final older than target: exit $rc"
# a final snapshot keeping some of the target's new objects was taken after it, whatever its
# other objects' numbers say (the committed page snapshots; Bun's ordered snapshots hold dead
# objects numbered before the target's newest): it runs without a word
D=$LEAKRAY_SRC/tests/data/browser
leaks "$work/undo" --baseline "$D/browser-baseline.heapsnapshot.gz" \
    --target "$D/browser-target.heapsnapshot.gz" --final "$D/browser-final.heapsnapshot.gz"
[ $rc = 0 ] && [ ! -s "$work/undo.err" ] || fail "in order, some new objects kept: exit $rc"
leaks "$work/js.same" --baseline "$J/target.heapsnapshot" --target "$J/target.heapsnapshot"
[ $rc = 2 ] && grep -q "are the same file" "$work/js.same.err" || fail "one file twice: exit $rc"
# the baseline again as the final snapshot: every new object is absent from it, 0 leaked
leaks "$work/js.basefinal" --fail-on-leak --baseline "$J/baseline.heapsnapshot" \
    --target "$J/target.heapsnapshot" --final "$J/baseline.heapsnapshot"
[ $rc = 2 ] && grep -q "are the same file: the final snapshot" "$work/js.basefinal.err" ||
    fail "the baseline as the final snapshot: exit $rc"
# ... and a copy of it: nothing only one of them has ("0 leaked", the gate passed)
cp "$J/target.heapsnapshot" "$work/copy.heapsnapshot"
leaks "$work/js.copy" --fail-on-leak --baseline "$J/target.heapsnapshot" \
    --target "$work/copy.heapsnapshot" --final "$J/final.heapsnapshot"
[ $rc = 2 ] && grep -q "hold the same objects" "$work/js.copy.err" ||
    fail "a snapshot and its copy: exit $rc"

javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/leaks/ThreeDumps.java"
java -Xmx128m -XX:+UseG1GC -cp "$work/classes" ThreeDumps "$work/g1"
G=$work/g1
leaks "$work/g1.txt" --fail-on-leak --baseline "$G/baseline.hprof" --target "$G/target.hprof" \
    --final "$G/final.hprof"
[ $rc = 2 ] && grep -q "the collector moved objects between the dumps" "$work/g1.txt.err" ||
    fail "G1 dumps: exit $rc, $(cat "$work/g1.txt.err")"
leaks "$work/g1f.txt" --force --baseline "$G/baseline.hprof" --target "$G/target.hprof" \
    --final "$G/final.hprof"
[ $rc = 0 ] && grep -q "warning: .*objects moved between the dumps; compared as asked" \
    "$work/g1f.txt.err" || fail "G1 dumps with --force: exit $rc"
leaks "$work/g1f.json" --force --json --baseline "$G/baseline.hprof" --target "$G/target.hprof" \
    --final "$G/final.hprof"
python3 -c "import json,sys; w=json.load(open(sys.argv[1])).get('warnings', []); \
assert any('objects moved' in x for x in w), w" "$work/g1f.json" ||
    fail "--json: the --force warning is not among the warnings"

java -Xmx256m -Xlog:disable -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -cp "$work/classes" \
    ThreeDumps "$work/eps"
E=$work/eps
leaks "$work/eps.json" --json --top 0 --baseline "$E/baseline.hprof" --target "$E/target.hprof" \
    --final "$E/final.hprof"
[ $rc = 0 ] || fail "Epsilon dumps: exit $rc, $(cat "$work/eps.json.err")"
python3 - "$work/eps.json" <<'PY' || fail "Epsilon dumps: the leak"
import json, sys
d = json.load(open(sys.argv[1]))
count = {}
for c in d["clusters"]:
    count[c["title"]] = count.get(c["title"], 0) + c["count"]
assert count.get("ThreeDumps$LeakRec") == 1000, count
for other in ("Preexisting", "Doomed", "Transient", "LateAlloc", "PrintStream"):
    assert not any(other in t for t in count), (other, count)
for content in ("java.lang.String", "byte[]", "java.lang.Object[]", "(class)"):
    assert content not in count, (content, count)
assert not any(t.startswith("java.lang.invoke.") for t in count), count
rec = [c for c in d["clusters"] if c["title"] == "ThreeDumps$LeakRec"]
# a LeakRec's cluster still retains its String and the String's bytes
assert sum(c["retained"] for c in rec) >= 1000 * (16 + 24 + 24), rec
nodes = [k["node"] for c in d["clusters"] for k in c["chain"]]
assert "class ThreeDumps" in nodes, nodes[:20]
assert "class" not in nodes, "a class object named 'class'"
PY
echo "leaks_order: ok"
