#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_chains.sh: a chain whose links alternate two kinds of object is one leak, as a linked
# list is. tests/programs/js/chains.js leaks, in Node snapshots, a promise chain that never
# settles (Promise -> PromiseReaction -> Promise ..., a Step kept by each step's closure), a
# list of Entry objects joined by Link objects, and 200 Conn objects in a global array.
# `leaks` must give the chain's objects a cluster per kind (400 Steps in one, not 400 of
# one each: 3,204 clusters before, the Conn leak pushed out of the top 20), and `analyze
# --watch` at most two signatures for each chain (400 Steps gave 100 groups), the closure
# holding each Step named by its function's name.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/js_chains"
rm -rf "$work"
mkdir -p "$work"
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/chains.js" "$work" 400
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --json --no-timing --top 0 >"$work/leaks.json"
python3 - "$work/leaks.json" <<'PY' || fail "leaks splits the chains"
import json, sys
d = json.load(open(sys.argv[1]))
cl = d["clusters"]
assert d["total_clusters"] <= 40, d["total_clusters"]
by = {}
for c in cl:
    by.setdefault(c["title"], []).append(c["count"])
assert max(by.get("Step", [0])) == 400, by.get("Step")
assert max(by.get("Conn", [0])) == 200, by.get("Conn")
assert max(by.get("Link", [0])) >= 399, by.get("Link")
top = [c["title"] for c in cl[:20]]
assert "Conn" in top, top
PY
# the closure that keeps each Step is named in its trace (a label: signatures stay the class's)
"$LEAKRAY" analyze "$work/final.heapsnapshot" --watch Step --json --no-timing >"$work/step.json"
python3 - "$work/step.json" <<'PY' || fail "the step's closure is not named in its trace"
import json, sys
d = json.load(open(sys.argv[1]))
labels = [l for t in d["traces"] for e in t["elements"] for l in e.get("labels", [])]
assert "Function name: nextStep" in labels, labels[:5]
PY
for c in Step Entry; do
    n=$("$LEAKRAY" analyze "$work/final.heapsnapshot" --watch "$c" --json --no-timing |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print(len(d["application_leaks"]))')
    [ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "analyze --watch $c: $n leak groups"
done
echo "js_chains: ok"
