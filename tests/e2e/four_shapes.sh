#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# four_shapes.sh: the verbs against each other and against Shark 2.14 on a fresh dump of
# tests/programs/shapes4/FourShapes.java (a WeakHashMap whose value holds its key, a
# java.util.Timer task, a listener list in a pool thread's ThreadLocal, a driver registered
# from its own class loader):
#  - analyze finds Shark's three traces, nodes, statuses and signatures
#    (expected/shark/four.json, scripts/golden-shark.sh) and, as Shark, lists the closed
#    loader as unreachable (the dump has no reference from an object to its class;
#    docs/design.md, "Parity with Shark");
#  - `path` to each leaking object runs through the objects its trace shows (and an
#    ArrayList's array, which the trace reads through as Shark does);
#  - sizes are exact dominators over the trace's references: the timer thread does not
#    retain the task's screen (a static Timer holds the same queue), where Shark, whose
#    dominators are updated while its search runs, gives the thread 60.3 kB;
#  - `threads` gives the pool thread at least what its trace says it retains.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/four_shapes"
rm -rf "$work"
mkdir -p "$work/classes" "$work/driver"
fail() { echo "FAIL: $*" >&2; exit 1; }
P=$LEAKRAY_SRC/tests/programs/shapes4
javac -d "$work/classes" "$LEAKRAY_SRC"/tests/programs/leaks/KeyedWeakReference.java \
    "$P/FourShapes.java"
javac -d "$work/driver" "$P/driver/FakeDriver.java"
java -cp "$work/classes" com.example.four.FourShapes "$work/four.hprof" "file:$work/driver/" \
    > /dev/null

exp="$LEAKRAY_SRC/tests/e2e/expected/shark"
py="$LEAKRAY_SRC/tests/e2e/shark_parity.py"
"$LEAKRAY" analyze "$work/four.hprof" --json --no-timing --no-suspects > "$work/four.json"
python3 "$py" norm-leakray "$work/four.json" > "$work/four.canon"
python3 "$py" compare four "$exp/four.json" "$work/four.canon" "$exp/known-differences.txt" \
    > "$work/four.diff" || fail "differs from Shark: $(grep -v '^known ' "$work/four.diff")"

"$LEAKRAY" threads "$work/four.hprof" --json --no-timing > "$work/threads.json"
python3 - "$work/four.json" "$work/threads.json" > "$work/targets.txt" <<'PY' ||
import json, sys
d = json.load(open(sys.argv[1]))
th = {t["name"]: t["retained_bytes"] for t in json.load(open(sys.argv[2]))["threads"]}
assert len(d["traces"]) == 3 and len(d["unreachable_objects"]) == 1, d["unreachable_objects"]
for t in d["traces"]:
    el = t["elements"]
    first = el[0]
    if first["class"] == "java.util.TimerThread":
        # exact: the static Timer holds the queue too, so the thread keeps no task
        assert first["retained_bytes"] < 1000 and el[-2]["retained_bytes"] > 60000, el
    if first["class"] == "java.lang.Thread":
        assert first["retained_bytes"] >= 120000, first
        assert th["pool-1-thread-1"] >= first["retained_bytes"], (th, first)
    print(el[-1]["id"], " ".join(e["id"] for e in el))
PY
    fail "traces: $(head -c 2000 "$work/four.json")"
while read -r id ids; do
    "$LEAKRAY" path "$work/four.hprof" "$id" --json --no-timing > "$work/path.json"
    python3 - "$work/path.json" "$ids" <<'PY' || fail "path to $id is not its trace's"
import json, sys
path = json.load(open(sys.argv[1]))["path"]
p = [h["id"] for h in path]
t = sys.argv[2].split()
# the trace's objects, in order, on the path; the path adds only what the trace reads
# through as Shark does (an ArrayList's elementData array: `ArrayList[0]` in the trace)
it = iter(p)
assert all(x in it for x in t) and p[0] == t[0] and p[-1] == t[-1], (p, t)
extra = [h["class"] for h in path if h["id"] not in t]
assert all(c == "java.lang.Object[]" for c in extra), extra
PY
done < "$work/targets.txt"
echo "four_shapes: ok"
