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
# - `leaks` groups the planted causes, one top-level group each: the 250 detached panel
#   roots (`<div class="panel" id="panel-N">`) are one group, their <h2>/<ul>/<li> nested in
#   it, the 300 resize listeners under one group, the 5,000 Map values one group; Chrome's
#   `system / ...` internals are never a group;
# - text output shows names unescaped and `path` names the roots `(root)`, `(GC roots)`.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
data="$LEAKRAY_SRC/tests/data/browser"
gold="$LEAKRAY_SRC/tests/e2e/expected/devtools"
work="$LEAKRAY_BUILD/tmp/browser_devtools"
rm -rf "$work" && mkdir -p "$work"
B=$data/browser-baseline.heapsnapshot.gz T=$data/browser-target.heapsnapshot.gz
F=$data/browser-final.heapsnapshot.gz
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# 1. Summary, every class, each snapshot.
for f in "$B" "$T" "$F"; do
    b=$(basename "$f")
    "$LEAKRAY" histo --json --no-timing "$f" >"$work/$b.json"
    if python3 - "$work/$b.json" "$gold/$b.classes.tsv" <<'PY'; then ok "histo $b equals DevTools' Summary"; else bad "histo $b"; fi
import json, sys
doc = json.load(open(sys.argv[1]))
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
got = {esc(c["key"]): (esc(c["name"]), c["count"], c["distance"], c["shallow"], c["retained"])
       for c in doc["classes"]}
want, total = {}, None
for line in open(sys.argv[2], encoding="utf-8"):
    p = line.rstrip("\n").split("\t")
    if p[0] == "#total":
        total = int(p[1]); continue
    want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
for k in bad[:5]:
    print("  %r: devtools %s, leakray %s" % (k, want.get(k), got.get(k)), file=sys.stderr)
rets = [c["retained"] for c in doc["classes"]]
if bad or doc["total"]["heap_total"] != total or doc["sort"] != "retained" or \
        rets != sorted(rets, reverse=True):
    sys.exit(1)
PY
done

# 2. Comparison, every class, each pair.
for pair in "$B $T" "$T $F" "$B $F"; do
    set -- $pair
    na=$(basename "$1"); nb=$(basename "$2")
    g="$gold/${na%%.heapsnapshot*}--${nb%%.heapsnapshot*}.diff.tsv"
    "$LEAKRAY" diff "$1" "$2" --json --no-timing >"$work/diff.json"
    if python3 - "$work/diff.json" "$g" <<'PY'; then ok "diff $na -> $nb equals DevTools' Comparison"; else bad "diff $na -> $nb"; fi
import json, sys
doc = json.load(open(sys.argv[1]))
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
got = {esc(c["key"]): (esc(c["name"]), c["new"], c["deleted"], c["alloc_size"], c["freed_size"])
       for c in doc["classes"]}
want = {}
for line in open(sys.argv[2], encoding="utf-8"):
    p = line.rstrip("\n").split("\t")
    want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
for k in bad[:5]:
    print("  %r: devtools %s, leakray %s" % (k, want.get(k), got.get(k)), file=sys.stderr)
print("  %d changed classes, %d differ" % (len(want), len(bad)))
sys.exit(1 if bad or len(want) < 10 else 0)
PY
done
"$LEAKRAY" diff "$T" "$F" --json --no-timing >"$work/tf.json"
q() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }
row='{c["name"]: (c["new"], c["deleted"]) for c in j["classes"]}'
q "$work/tf.json" "$row.get('Detached <div>') == (250, 0) and $row.get('Detached <li>') == (1250, 0) and $row.get('<li>', (0, 0))[1] >= 1250" \
    && ok "target -> final: Detached <div> +250, Detached <li> +1,250, <li> deleted" \
    || bad "target -> final detached rows"

# 3. Detachedness.
"$LEAKRAY" histo --detached --json --no-timing "$F" >"$work/det.json"
q "$work/det.json" "all(c['name'].startswith('Detached ') for c in j['classes']) and {c['name']: c['count'] for c in j['classes']}.get('Detached <div>') == 250 and j['total']['detached_count'] == j['total']['count'] > 0" \
    && ok "histo --detached: only detached classes, 250 panels" || bad "histo --detached"
"$LEAKRAY" histo --json --no-timing "$B" >"$work/bdet.json"
q "$work/bdet.json" "j['total']['detached_count'] == 0" && ok "baseline: nothing detached" \
    || bad "baseline detached count"

# 4. leaks: one top-level group per planted cause.
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --json --no-timing --top 0 \
    >"$work/leaks.json"
cat >"$work/causes.py" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
cl = j['clusters']
def top_of(c):
    while c['nested_in'] is not None:
        c = cl[c['nested_in'] - 1]
    return c['rank']
def causes(c):
    # A single object of a cause's shape (V8's literal boilerplate) is no group of its own.
    if c['count'] < 2:
        return None
    t = c['title']
    if t.startswith('Detached <div class="panel"> (detached tree roots)'):
        return 'dom'
    if 'onResize' in t or 'ResizePayload' in t:
        return 'listeners'
    if t.startswith('jsobject {key, hits, tags}'):
        return 'map'
    return None
tops = {}
for c in cl:
    k = causes(c)
    if k:
        tops.setdefault(k, set()).add(top_of(c))
heap = j['heap_retained']
other = [c for c in cl if c['nested_in'] is None and c['rank'] not in set().union(*tops.values())
         and c['retained'] * 100 > heap]
PY
python3 - "$work/leaks.json" <<'PY' && ok "leaks: one top-level group per planted cause" || bad "leaks groups"
import json, sys
exec(open(sys.argv[1].rsplit('/', 1)[0] + '/causes.py').read())
print('  groups per cause:', {k: sorted(v) for k, v in tops.items()},
      'other top-level groups above 1%:', [(c['title'][:50], c['retained']) for c in other])
dom = [c for c in cl if c['title'].startswith('Detached <div class="panel">')]
ok = (sorted(tops) == ['dom', 'listeners', 'map'] and all(len(v) == 1 for v in tops.values())
      and [c['count'] for c in dom] == [250]
      and [c['count'] for c in cl if 'onResize' in c['title']] == [300]
      and [c['count'] for c in cl if c['title'].startswith('jsobject {key, hits, tags}')
           and c['count'] > 1] == [5000]
      and not [c for c in cl if c['title'].startswith('system / ')]
      and len(other) <= 2)
sys.exit(0 if ok else 1)
PY
python3 - "$work/leaks.json" <<'PY' && ok "leaks: <h2>/<ul> nested in the panel roots" || bad "nesting"
import json, sys
j = json.load(open(sys.argv[1])); cl = j['clusters']
roots = [c['rank'] for c in cl if c['title'].startswith('Detached <div class="panel">')]
inner = [c for c in cl if c['title'].startswith(('Detached <h2>', 'Detached <ul>'))]
sys.exit(0 if inner and all(c['nested_in'] == roots[0] for c in inner) else 1)
PY

# 5. Text: names unescaped, roots named.
"$LEAKRAY" leaks --baseline "$B" --target "$T" --final "$F" --no-timing >"$work/leaks.txt"
grep -q 'Detached <div class="panel"> (detached tree roots)' "$work/leaks.txt" \
    && ok "text shows <div class=\"panel\"> unescaped" || bad "escaped names in text"
id=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print([c['representative']['id'] for c in j['clusters'] if c['title'].startswith('Detached <div class')][0])" "$work/leaks.json")
"$LEAKRAY" path "$F" "$id" --no-timing >"$work/path.txt"
grep -q '(GC roots)' "$work/path.txt" && ! grep -q '(synthetic)' "$work/path.txt" \
    && ok "path names the roots (GC roots)" || bad "path root names"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
