#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_memlab_leaks.sh: `leakray leaks` reports the leaks memlab's find-leaks reports on a
# page with two known leaks among ordinary page churn (tests/programs/browser/churn.html: 40
# closed dialogs a growing array keeps, 60 toasts timer closures keep; a re-rendered feed, an
# LRU, parsed responses, a log ring alive but no leak).
# 1. The committed snapshots (tests/data/browser/churn-*.heapsnapshot.gz) against memlab
#    2.0.5's answer on them (tests/e2e/expected/browser/churn-memlab.txt, both from
#    scripts/golden-memlab.sh churn): the same 2 clusters, each with memlab's count of similar
#    leaks, retained size and trace head; before memlab's filter leakray listed 378.
# 2. Fresh snapshots of the same page from headless Chromium: the same 2 clusters, and
#    memlab's own find-leaks on these snapshots (npm memlab@2.0.5) gives the same answer;
#    --trace-all-objects still lists the churn (every new object, as before).
# Part 2 skips (77) only when chromium, node or the npm packages cannot be had; fails under CI.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
command -v python3 >/dev/null || browser_skip "python3 is not installed"
work="$LEAKRAY_BUILD/tmp/browser_memlab_leaks"
rm -rf "$work" && mkdir -p "$work"
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
cmp_memlab() { python3 "$LEAKRAY_SRC/tests/e2e/memlab_leaks.py" "$@"; }
D=$LEAKRAY_SRC/tests/data/browser
golden=$LEAKRAY_SRC/tests/e2e/expected/browser/churn-memlab.txt

leaks() {
    "$LEAKRAY" leaks --baseline "$1/$2baseline.heapsnapshot$3" \
        --target "$1/$2target.heapsnapshot$3" --final "$1/$2final.heapsnapshot$3" "${@:4}"
}
leaks "$D" churn- .gz --json --no-timing --top 0 >"$work/committed.json"
cmp_memlab "$work/committed.json" "$golden" 2 \
    && ok "committed snapshots: memlab's 2 clusters, similar leaks, retained sizes, heads" \
    || bad "committed snapshots against memlab"
leaks "$D" churn- .gz --no-timing >"$work/committed.txt"
grep -q "^leaked: 1,542 objects, retained .*, in 2 clusters of similar traces (memlab's)$" \
    "$work/committed.txt" && grep -q ', 1,361 leaked objects on its traces$' "$work/committed.txt" \
    && ok "text: memlab's totals" || bad "text totals"
leaks "$D" churn- .gz --json --no-timing --top 0 --trace-all-objects >"$work/all.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(0 if d['leak_filter'] == 'all-objects' and d['total_clusters'] > 100 else 1)" \
    "$work/all.json" && ok "--trace-all-objects: every new object, the churn included" \
    || bad "--trace-all-objects"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }

browser_need_chromium
pw=$(browser_npm playwright-core@1.65.1) || browser_skip "npm cannot install playwright-core"
PAGE=churn.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work" >"$work/snap.log" 2>&1 \
    || { cat "$work/snap.log"; echo "FAIL: snapshots"; exit 1; }
leaks "$work" "" "" --json --no-timing --top 0 >"$work/live.json"
cmp_memlab "$work/live.json" "$golden" 2 && ok "fresh snapshots: memlab's clusters (golden)" \
    || bad "fresh snapshots against the golden"
# A page that tears a view down and keeps parts of it (tests/programs/browser/teardown.html):
# a 20,000-row feed a cache holds made the snapshots read as two processes (its nodes keep
# their ids and become "Detached <li>": 33 % of ids kept their class, exit 2), and clusters
# came in the order of what their representative alone retains (the 300-row page, held
# through its Text note, came after a 560-byte badge and went under --top 2).
PAGE=teardown.html node "$LEAKRAY_SRC/tests/programs/browser/snap.mjs" \
    "$pw/node_modules/playwright-core" "$work/td" >"$work/td.log" 2>&1 \
    || { cat "$work/td.log"; echo "FAIL: teardown snapshots"; exit 1; }
rc=0
leaks "$work/td" "" "" --json --no-timing --top 0 >"$work/td.json" 2>"$work/td.err" || rc=$?
if [ $rc = 0 ] && python3 - "$work/td.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
c = d['clusters']
ret = [x['retained'] for x in c]
assert ret == sorted(ret, reverse=True), ret
assert d['leaked_objects'] >= 40000, d['leaked_objects']
assert c[0]['similar_leaks'] >= 40000 and 'feed' in c[0]['title'], (c[0]['title'], ret)
PY
    ok "teardown: one process, clusters by the sizes they print, the feed first"
else
    bad "teardown (exit $rc): $(head -c 400 "$work/td.err")"
fi
# memlab's package pulls puppeteer, whose browser download is not wanted (Debian's chromium)
ml=$(browser_npm memlab@2.0.5) || browser_skip "npm cannot install memlab"
node --expose-gc --max-old-space-size=4096 "$ml/node_modules/@memlab/cli/bin/memlab.js" \
    find-leaks --baseline "$work/baseline.heapsnapshot" --target "$work/target.heapsnapshot" \
    --final "$work/final.heapsnapshot" --work-dir "$work/memlab" >"$work/ml.out" 2>"$work/ml.err" \
    || { tail -5 "$work/ml.err"; bad "memlab find-leaks"; }
sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$work/ml.err" | tr '\r' '\n' | sed -n '/^MemLab found/,$p' \
    | grep -v '^\s*$\|clustering trace' >"$work/memlab.txt" || true
cmp_memlab "$work/live.json" "$work/memlab.txt" 2 \
    && ok "fresh snapshots: memlab's own find-leaks, cluster by cluster" \
    || bad "fresh snapshots against memlab"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
