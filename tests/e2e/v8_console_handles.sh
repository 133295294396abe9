#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_console_handles.sh: a handle of the DevTools console (an object a page logged, an element
# a test harness holds) does not hide the program's own hold. tests/programs/node/
# console_handles.js logs five Sidebars that a registry's closures keep, and one LoggedOnly
# that nothing else keeps, with an inspector session on (the console then holds what it
# logged). `analyze --watch Sidebar`: five traces from the global object through
# `registry` and `onSidebarResize`, none from "(Global handles)"; `leaks`: the Sidebars are one
# cluster of 5 under `registry` (one cluster per console handle before), and LoggedOnly,
# which only the console holds, still has its chain through the console's handle, as in
# `analyze`.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v node >/dev/null || { echo "SKIP: node not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_console_handles"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
node "$LEAKRAY_SRC/tests/programs/node/console_handles.js" "$work" > /dev/null
grep -q "DevTools console" "$work/final.heapsnapshot" ||
    fail "this Node keeps no DevTools console handle: the test proves nothing"
for c in Sidebar LoggedOnly; do
    "$LEAKRAY" analyze "$work/final.heapsnapshot" --watch "$c" --json --no-timing \
        --no-suspects > "$work/$c.json" || fail "analyze --watch $c failed"
done
"$LEAKRAY" leaks --json --no-timing --top 0 --trace-all-objects \
    --baseline "$work/base.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" > "$work/leaks.json" || fail "leaks failed"
python3 - "$work" <<'PY' || fail "the console's handle hides the program's hold"
import json, sys
w = sys.argv[1]
s = json.load(open(w + "/Sidebar.json"))
tr = [t for t in s["traces"] if t["class"] == "Sidebar"]
assert len(tr) == 5, len(tr)
for t in tr:
    names = [e.get("reference", {}).get("name") for e in t["elements"]]
    assert t["gc_root"]["description"] == "Global object", t["gc_root"]
    assert "registry" in names and "el" in names, names
    assert any(e.get("function_name") == "onSidebarResize" or
               "onSidebarResize" in json.dumps(e) for e in t["elements"]), t["elements"]
lo = json.load(open(w + "/LoggedOnly.json"))
lt = [t for t in lo["traces"] if t["class"] == "LoggedOnly"]
assert len(lt) == 1 and "DevTools console" in json.dumps(lt[0]), lt
d = json.load(open(w + "/leaks.json"))
cl = [c for c in d["clusters"] if c["title"] == "Sidebar"]
assert len(cl) == 1 and cl[0]["count"] == 5, [(c["title"], c["count"]) for c in d["clusters"]]
chain = json.dumps(cl[0])
assert "registry" in chain and "DevTools console" not in chain, chain
lc = [c for c in d["clusters"] if c["title"] == "LoggedOnly"]
assert len(lc) == 1 and "DevTools console" in json.dumps(lc[0]), lc
print("v8_console_handles: ok (5 Sidebars through registry / onSidebarResize, one cluster; "
      "LoggedOnly through the console)")
PY
