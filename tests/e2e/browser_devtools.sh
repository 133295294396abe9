#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# browser_devtools.sh: three heap snapshots of a real Chromium page (tests/data/browser, written
# by tests/programs/browser/snap.mjs through the DevTools protocol; scripts/browser-snapshots.sh
# regenerates them) read as DevTools reads them:
# - `histo --json` of each equals DevTools' Summary class key by class key (goldens from
#   scripts/golden-devtools.sh), and sorts by retained size by default;
# - `diff --json` of each pair equals DevTools' Comparison view class key by class key
#   (goldens from scripts/golden-devtools-diff.sh), including the DOM nodes that kept their
#   id but became detached between target and final (`Detached <div>` +250, `<div>` -250);
# - detachedness: `histo --detached` lists only detached classes, with the planted counts;
#   `info` counts them, `top`, `diff` and `clusters --detached` list only them;
# - `leaks --trace-all-objects` groups the planted causes, one top-level group each: the 250
#   detached panel roots (`<div class="panel" id="panel-N">`) are one group, their
#   <h2>/<ul>/<li> nested in it, the 300 resize listeners under one group, the 5,000 Map values one group; Chrome's
#   `system / ...` internals are never a group;
# - text output shows names unescaped and `path` names the roots `(root)`, `(GC roots)`.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
. "$LEAKRAY_SRC/tests/e2e/browser_lib.bash"
data="$LEAKRAY_SRC/tests/data/browser"
gold="$LEAKRAY_SRC/tests/e2e/expected/devtools"
work="$LEAKRAY_BUILD/tmp/browser_devtools"
rm -rf "$work" && mkdir -p "$work"
B=$data/browser-baseline.heapsnapshot.gz T=$data/browser-target.heapsnapshot.gz
F=$data/browser-final.heapsnapshot.gz
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }

# 1. Summary, every class, each snapshot.
for f in "$B" "$T" "$F"; do
    b=$(basename "$f")
    "$LEAKRAY" histo --json --no-timing "$f" >"$work/$b.json"
    chk summary "$work/$b.json" "$gold/$b.classes.tsv" \
        && ok "histo $b equals DevTools' Summary" || bad "histo $b"
done

# 2. Comparison, every class, each pair.
for pair in "$B $T" "$T $F" "$B $F"; do
    set -- $pair
    na=$(basename "$1"); nb=$(basename "$2")
    "$LEAKRAY" diff "$1" "$2" --json --no-timing >"$work/diff.json"
    chk compare "$work/diff.json" "$gold/${na%%.heapsnapshot*}--${nb%%.heapsnapshot*}.diff.tsv" \
        && ok "diff $na -> $nb equals DevTools' Comparison" || bad "diff $na -> $nb"
done

# 3. Detachedness: the panels kept their ids and became detached.
"$LEAKRAY" diff "$T" "$F" --json --no-timing >"$work/tf.json"
"$LEAKRAY" histo --detached --json --no-timing "$F" >"$work/det.json"
chk detached "$work/tf.json" "$work/det.json" \
    && ok "target -> final: Detached <div> +250, <li> -> Detached <li>; histo --detached" \
    || bad "detached rows"
"$LEAKRAY" histo --json --no-timing "$B" >"$work/bdet.json"
python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['total']['detached_count'])" \
    "$work/bdet.json" && ok "baseline: nothing detached" || bad "baseline detached count"

"$LEAKRAY" diff "$T" "$F" --detached --json --no-timing >"$work/tfdet.json"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); c=j['classes']; sys.exit(0 if len(c) == 10 and all(x['name'].startswith('Detached ') for x in c) and j['total']['new'] == sum(x['new'] for x in c) else 1)" \
    "$work/tfdet.json" && ok "diff --detached: the 10 detached classes" || bad "diff --detached"
"$LEAKRAY" info --json --no-timing "$F" >"$work/info.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['dom']; sys.exit(0 if d['detached'] == 6154 and d['attached'] > 0 else 1)" \
    "$work/info.json" && ok "info: 6,154 detached DOM nodes" || bad "info detached count"
"$LEAKRAY" top --detached --top 0 --json --no-timing "$F" >"$work/topdet.json"
python3 -c "import json,sys; o=json.load(open(sys.argv[1]))['objects']; sys.exit(0 if len(o) == 6154 and all(x['class'].startswith('Detached ') for x in o) else 1)" \
    "$work/topdet.json" && ok "top --detached: the 6,154 detached nodes only" || bad "top --detached"
"$LEAKRAY" clusters --detached --json --no-timing --top 0 "$F" >"$work/cldet.json"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['clusters']; sys.exit(0 if c and all(x['rule'] == 'dom' for x in c) and c[0]['count'] == 250 else 1)" \
    "$work/cldet.json" && ok "clusters --detached: DOM groups, the 250 panel roots first" \
    || bad "clusters --detached"

# 4. leaks: one top-level group per planted cause.
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --json --no-timing --top 0 \
    --trace-all-objects >"$work/leaks.json"
chk causes "$work/leaks.json" && ok "leaks: one top-level group per planted cause" \
    || bad "leaks groups"

# 5. Text: names unescaped, roots named.
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --no-timing >"$work/leaks.txt"
grep -q 'Detached <div class="panel"> (detached tree roots)' "$work/leaks.txt" \
    && ok "text shows <div class=\"panel\"> unescaped" || bad "escaped names in text"
id=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print([c['representative']['id'] for c in j['clusters'] if c['title'].startswith('Detached <div class')][0])" "$work/leaks.json")
"$LEAKRAY" path "$F" "$id" --no-timing >"$work/path.txt"
grep -q '(GC roots)' "$work/path.txt" && ! grep -q '(synthetic)' "$work/path.txt" \
    && ok "path names the roots (GC roots)" || bad "path root names"

# 6. analyze without --watch: the detached DOM nodes still retained are the leaks.
browser_analyze_detached "$F" "$work"
"$LEAKRAY" report "$F" --format json -o "$work/rep.json" --no-timing
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); g=d['groups']; sys.exit(0 if len(g) == 1 and g[0]['count'] == 250 and d['summary']['traces'] == 250 else 1)" \
    "$work/rep.json" && ok "report: the same detached-panel leak as analyze" \
    || bad "report detached DOM"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
