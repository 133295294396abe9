#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# wide_shapes.sh: dumps wide where others are big, on which analyses were quadratic
# (tests/programs/scale/WideShapes.java). Each run must finish well inside a bound that the
# quadratic code missed by far (measured on the 2-core machine: 4,000 threads' `analyze` 9.1 s,
# now 0.1 s; `threads` on 25,000 synthetic threads 47 s, now 0.5 s; 200,000 watched objects in
# one array 10.3 s, now 0.8 s), with the answers checked: every thread listed with its
# seven frames' locals, and one leak group of 200,000 traces naming their array entries.
# A list of 100,000 nodes is a run or two of them (it was one cluster per node).
# (`threads` on these 4,000 real threads took 2.2 s: its bound checks the answer's speed
# only loosely; the synthetic 25,000 are in the benchmark notes.)
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools javac java python3
work="$LEAKRAY_BUILD/tmp/wide_shapes"
rm -rf "$work"
mkdir -p "$work/classes"
fail() { echo "FAIL: $*" >&2; exit 1; }
javac -d "$work/classes" "$LEAKRAY_SRC/tests/programs/scale/WideShapes.java"
java -Xmx512m -XX:+UseSerialGC -cp "$work/classes" WideShapes threads 4000 "$work/t.hprof"
java -Xmx512m -XX:+UseSerialGC -cp "$work/classes" WideShapes star 200000 "$work/s.hprof"
java -Xmx512m -XX:+UseSerialGC -cp "$work/classes" WideShapes list 100000 "$work/l.hprof"

# Bounds are for an optimised build; a sanitized one runs 2-4x slower on a shared machine
# (analyze-star took 6.9 s there), so they stretch 4x: the quadratic code stays far past them.
scale=1
[[ $(ldd "$LEAKRAY" 2>/dev/null) == *libasan* ]] && scale=4
# timed VERB LIMIT_S ARGS...: runs leakray, fails past LIMIT_S seconds (times scale)
timed() {
    local what=$1 limit=$2 s0 ms rc=0
    shift 2
    s0=$(date +%s%N)
    "$LEAKRAY" "$@" >"$work/$what.out" 2>"$work/$what.err" || rc=$?
    ms=$((($(date +%s%N) - s0) / 1000000))
    [ $rc -le 1 ] || fail "$what: exit $rc: $(cat "$work/$what.err")"
    limit=$((limit * scale))
    [ $ms -le $((limit * 1000)) ] || fail "$what took $ms ms (bound ${limit} s)"
    echo "$what: $ms ms"
}
timed analyze-threads 5 analyze "$work/t.hprof" --no-timing --json
timed threads 10 threads "$work/t.hprof" --no-timing --json
timed report-threads 8 report "$work/t.hprof" -o "$work/t.html" --no-timing
python3 - "$work/threads.out" <<'PY' || fail "threads: the workers and their locals"
import json, sys
d = json.load(open(sys.argv[1]))
w = [t for t in d["threads"] if t["name"].startswith("w-")]
assert len(w) == 4000, len(w)
for t in w[:50]:
    held = [l for f in t["frames"] for l in f["locals"]]
    assert sum(1 for f in t["frames"] if f["method"] == "deep") == 7, t["name"]
    assert len(held) >= 7, (t["name"], len(held))
PY
timed analyze-star 5 analyze "$work/s.hprof" --watch 'WideShapes$Spoke' --no-timing
grep -q "^1 APPLICATION LEAKS" "$work/analyze-star.out" &&
    grep -q "Displaying only 1 leak trace out of 200000 with the same signature" \
        "$work/analyze-star.out" && grep -q "Object\[0\]" "$work/analyze-star.out" ||
    fail "analyze --watch: the 200,000 spokes as one leak"
timed clusters-list 5 clusters "$work/l.hprof" --no-timing --json --top 0
python3 - "$work/clusters-list.out" <<'PY' || fail "clusters: the list's nodes as one group"
import json, sys
d = json.load(open(sys.argv[1]))
nodes = [c for c in d["clusters"] if c["title"] == "java.util.LinkedList$Node"]
# a doubly linked list is walked from both ends (first.next..., last.prev...): two runs
assert len(nodes) <= 4 and sum(c["count"] for c in nodes) == 100000, [c["count"] for c in nodes]
assert d["total_clusters"] < 2000, d["total_clusters"]
PY
echo "wide_shapes: ok"
