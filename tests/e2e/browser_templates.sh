#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_templates.sh: `analyze` on one page snapshot leaves a framework's templates out of
# the leaks (tests/programs/browser/templates.html, fresh snapshots from headless Chromium).
# The page keeps, for its life, a <template> to parse markup with (Vue), prepared <template>
# elements in a Map (Lit) and roots cut from a template's content to clone (Svelte), and
# leaks 6 widgets, each with a <template> inside, and a table whose rows it keeps through a
# <template> in each. The leaks are exactly the widgets and the rows: the caches read as
# application leaks (--fail-on-leak failed a clean Vue, Lit or Svelte page), and the rows a
# kept template holds were missed by the first cut of this.
# `leaks` still counts as memlab does (the caches exist before the baseline: none of them).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_templates"
rm -rf "$work" && mkdir -p "$work"
browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=templates.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
"$LEAKRAY" analyze "$work/final.heapsnapshot" --json --no-timing --no-suspects >"$work/an.json"
"$LEAKRAY" analyze "$work/baseline.heapsnapshot" --json --no-timing --no-suspects \
    >"$work/an0.json"
"$LEAKRAY" leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --json --no-timing --top 0 >"$work/leaks.json"
"$LEAKRAY" sql "$work/final.heapsnapshot" \
    "SELECT count(*) FROM objects WHERE class = 'Detached <template>'" >"$work/tpl.txt"
python3 - "$work" <<'PY' || { echo "FAIL: templates read as leaks"; exit 1; }
import json, sys
w = sys.argv[1]
tpl = int(open(w + "/tpl.txt").read().split()[-1])
assert tpl >= 9, "the page's templates are not in the snapshot: %d" % tpl
an = json.load(open(w + "/an.json"))
cls = [t["class"] for t in an["traces"]]
assert not any("template" in c for c in cls), cls
groups = {g["short_description"].split(".")[-1]: g for g in an["application_leaks"]}
assert sorted(groups) == ["kept", "tips"], sorted(groups)
kept = [an["traces"][i]["class"] for i in groups["kept"]["traces"]]
assert len(kept) == 6 and all(c.startswith("Detached <div") for c in kept), kept
# a kept <template> keeps the row it lies in: the table is a leak (it was missed)
tips = [an["traces"][i]["class"] for i in groups["tips"]["traces"]]
assert tips and not any("template" in c for c in tips), tips
assert groups["tips"]["retained_bytes"] > 0, groups["tips"]
base = json.load(open(w + "/an0.json"))
assert base["traces"] == [], [t["class"] for t in base["traces"]]
lk = json.load(open(w + "/leaks.json"))
print("ok: analyze traces the 6 widgets and no template (%d in the snapshot); leaks: %s"
      % (tpl, {k: lk[k] for k in lk if k.startswith("leaked")}))
PY
echo "browser_templates: ok"
