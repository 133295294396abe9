#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# js_weakmap.sh: a WeakMap's entries are one leak, traced through their keys.
# tests/programs/js/weakmap.js keeps 100 keys of a WeakMap (and drops 50 others). V8 names
# each entry's edges by its index and the key's, value's and table's ids, so each entry was
# a leak group of its own (100 signatures) and a cluster of one, and the trace ran through the
# map's table, which holds a value only while its key lives (DevTools leaves that edge out).
# Now: one group of 100 whose trace reaches the value from its key, with no id in any
# reference; one cluster of 100 values in `leaks`; the dropped entries nowhere.
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
echo "js_weakmap: ok"
