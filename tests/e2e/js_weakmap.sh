#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_weakmap.sh: a WeakMap's entries are one leak, traced through their keys.
# tests/programs/js/weakmap.js keeps 100 keys of a WeakMap (and drops 50 others). V8 names
# each entry's edges by its index and the key's, value's and table's ids, so each entry was
# a leak group of its own (100 signatures) and a cluster of one, and the trace ran through the
# map's table, which holds a value only while its key lives (DevTools leaves that edge out).
# Now: one group of 100 whose trace reaches the value from its key, with no id in any
# reference; one cluster of 100 values in `leaks`; the dropped entries nowhere; each key
# retains its value in the traces, `path` and `--model strong` as in DevTools' tree.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/need_lib.bash"
need_tools node python3
work="$LEAKRAY_BUILD/tmp/js_weakmap"
rm -rf "$work"
mkdir -p "$work"
node --expose-gc "$LEAKRAY_SRC/tests/programs/js/weakmap.js" "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LEAKRAY" analyze "$work/final.heapsnapshot" --watch SessionData --json --no-timing \
    >"$work/a.json" || [ $? = 1 ]
python3 - "$work/a.json" <<'PY' || fail "analyze --watch SessionData"
import json, sys
d = json.load(open(sys.argv[1]))
groups = d["application_leaks"]
assert len(groups) == 1, [g["short_description"] for g in groups]
assert d["leaking_objects"] == 100, d["leaking_objects"]
for t in d["traces"]:
    els = t["elements"]
    assert els[-2]["class"] == "SessionKey", [e["class"] for e in els]
    for e in els[:-1]:
        assert "@" not in e["reference"]["display"], e["reference"]
PY
"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --json --no-timing --top 0 >"$work/leaks.json"
python3 - "$work/leaks.json" <<'PY' || fail "leaks"
import json, sys
d = json.load(open(sys.argv[1]))
data = [c["count"] for c in d["clusters"] if c["title"] == "SessionData"]
assert data == [100], data
PY

# The value is its key's: V8 frees it with the key. The traces' retained sizes, `path` and
# `--model strong` followed the table's half of each entry too: a watched key "retained" 32
# bytes where DevTools says 248 (its value), the leak 3,320 bytes for 24,800, `path` went
# through the map, and under --model strong a value belonged to nobody.
F=$work/final.heapsnapshot
"$LEAKRAY" analyze "$F" --watch SessionKey --json --no-timing >"$work/k.json" || [ $? = 1 ]
"$LEAKRAY" sql "$F" --json "select id, retained from objects where class = 'SessionKey'" \
    >"$work/keys.json"
"$LEAKRAY" sql "$F" --model strong --json \
    "select o.id, d.class from objects o join objects d on d.id = o.dominator where o.class = 'SessionData'" \
    >"$work/strong.json"
"$LEAKRAY" sql "$F" --json "select id from objects where class = 'SessionData' limit 1" \
    >"$work/one.json"
one=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["rows"][0][0])' "$work/one.json")
"$LEAKRAY" path "$F" "$one" --json --no-timing >"$work/path.json"
python3 - "$work" <<'PY' || fail "WeakMap values charged to their keys"
import json, sys
w = sys.argv[1]
d = json.load(open(w + "/k.json"))
keys = {str(r[0]): r[1] for r in json.load(open(w + "/keys.json"))["results"][0]["rows"]}
held = d["application_leaks"]
assert len(held) == 1 and d["leaking_objects"] == 100, [g["short_description"] for g in held]
for t in d["traces"]:
    k = t["elements"][-1]
    want = keys[k["id"].lstrip("@")]
    assert k["retained_bytes"] == want, (k["id"], k["retained_bytes"], want)
total = sum(keys[i] for i in keys if keys[i] > 100)
assert held[0]["retained_bytes"] >= total, (held[0]["retained_bytes"], total)
print("analyze: each key retains its value as DevTools says; the leak %d >= %d" %
      (held[0]["retained_bytes"], total))
rows = json.load(open(w + "/strong.json"))["results"][0]["rows"]
assert len(rows) == 100 and all(r[1] == "SessionKey" for r in rows), rows[:3]
print("--model strong: every value dominated by its key")
p = json.load(open(w + "/path.json"))
steps = p["path"]
assert steps[-2]["class"] == "SessionKey", [s["class"] for s in steps]
print("path: the value through its key:", " -> ".join(s["class"] for s in steps))
PY

# A gate on a fixed leak passes: the class is a constructor with no instance left, which a
# JavaScript heap names no class (it was "no class of that name", exit 2, and the gate could
# pass no build); a name no function has is still a usage error.
node --expose-gc -e '
class Gone { constructor(i) { this.i = i; } }
let tmp = []; for (let i = 0; i < 50; i++) tmp.push(new Gone(i)); tmp = null;
globalThis.keepClass = Gone; global.gc();
require("v8").writeHeapSnapshot(process.argv[1]);' "$work/fixed.heapsnapshot" >/dev/null
rc=0
"$LEAKRAY" analyze "$work/fixed.heapsnapshot" --watch Gone --fail-on-leak --no-suspects \
    >/dev/null 2>"$work/fixed.err" || rc=$?
[ $rc = 0 ] && grep -q "watch Gone: the dump holds no instance of it" "$work/fixed.err" ||
    fail "a watched constructor with no instance: exit $rc, $(cat "$work/fixed.err")"
rc=0
"$LEAKRAY" analyze "$work/fixed.heapsnapshot" --watch Gonne --fail-on-leak --no-suspects \
    >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "a watched name no function has: exit $rc"
echo "js_weakmap: ok"
