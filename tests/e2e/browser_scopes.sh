#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_scopes.sh: a leak keeps its stable signature from one page load to the next when
# its trace passes a closure's scope. Chromium names a scope "system / Context / scope @N",
# N drawn per run: the same page with more closures made before (scopes-a.html and
# scopes-b.html, tests/programs/browser/scopes.js) gave the same leak two stable signatures,
# and `store diff` read a "new" and a "fixed" leak on an unchanged page.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_scopes"
rm -rf "$work" && mkdir -p "$work"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
for v in a b; do
    PAGE=scopes-$v.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
        "$pw/node_modules/playwright-core" "$work/$v" >"$work/snap-$v.log" 2>&1 \
        || { cat "$work/snap-$v.log"; echo "FAIL: snapshots of scopes-$v.html"; exit 1; }
    "$LEAKRAY" analyze "$work/$v/final.heapsnapshot" --json --no-timing --no-suspects \
        > "$work/$v.json"
done
python3 - "$work/a.json" "$work/b.json" <<'PY' || { echo "FAIL: stable signatures"; exit 1; }
import json, sys
def leak(f):
    d = json.load(open(f))
    for g in d["application_leaks"]:
        for i in g["traces"]:
            el = d["traces"][i]["elements"]
            scopes = [e["class"] for e in el if e["class"].startswith("system / Context")]
            if el[-1]["class"].startswith("Detached <div") and scopes:
                return g.get("stable_signature") or g["signature"], scopes
    raise AssertionError("no trace through a closure's scope to the panel in " + f)
a, b = leak(sys.argv[1]), leak(sys.argv[2])
print(a, b)
assert a[0] == b[0], ("two stable signatures for one leak", a, b)
PY
echo "ok: one stable signature for the leak through a closure's scope on both pages"
