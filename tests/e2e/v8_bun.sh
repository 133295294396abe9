#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_bun.sh: leakray on the V8-format heap snapshots Bun (JavaScriptCore) writes:
# tests/data/v8/bun13-{baseline,target,final} (Bun 1.3.0: 24-bit ids an object keeps, root
# `(root)` with id 0) and bun14-* (Bun 1.4.5: root `` id 1,
# `(GC roots)` id 2, then ids that go on counting from the previous snapshot, so no object
# keeps its id), taken of tests/programs/bun/bun_leak.js (one leak per pattern, 40 each) by
# scripts/golden-bun.sh, which also writes the goldens (xz files, inflated here).
# - `info` counts the header's nodes and edges, with no diagnostic;
# - `histo --retained` equals DevTools' Summary (heap-snapshot-toolkit 1.1.3) class key by
#   class key, and the heap total; `top` gives DevTools' self size, retained size and distance
#   of the 100 objects retaining most, in DevTools' order;
# - `diff`: on bun13, DevTools' Comparison; on bun14 the ids are renumbered, so `diff`
#   compares per class (each planted class +40) and says why, while --match-ids still gives
#   DevTools' Comparison (every object new and deleted);
# - `leaks`: on bun14 exit 2 naming the renumbered ids (memlab and the old leakray answered
#   "no leak"); on bun13 memlab's --trace-all-objects rows, but the `object shape` row, and
#   the Map's keys and values, which Bun's writer leaves without a retainer: not clustered,
#   they are listed apart (`unretained`) with memlab's counts (docs/formats/v8.md, "Bun");
# - `analyze --watch BunLeak --full`: one group of 40 through `leaked`, on both; `path` to
#   one of them is DevTools' retaining path, one hop per unit of distance;
# - Bun's own (JavaScriptCore) snapshot format is refused with exit 3, named as such.
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_bun"
rm -rf "$work" && mkdir -p "$work"
data=$LEAKRAY_SRC/tests/data/v8
gold=$LEAKRAY_SRC/tests/e2e/expected/devtools
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
names=""
for v in 13 14; do
    for k in baseline target final; do
        n=bun$v-$k
        names="$names $n"
        python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
            "$data/$n.heapsnapshot.xz" "$work/$n.heapsnapshot"
    done
done

# 1. info's counts against the header, and DevTools' Summary.
for n in $names; do
    f=$work/$n.heapsnapshot
    "$LEAKRAY" info --json --no-timing "$f" >"$work/$n.info.json"
    "$LEAKRAY" histo --retained --json --no-timing "$f" >"$work/$n.histo.json"
    if python3 - "$f" "$work/$n.info.json" "$work/$n.histo.json" \
        "$gold/$n.heapsnapshot.xz.classes.tsv" <<'PY'; then
import json, sys
head = open(sys.argv[1], encoding='utf-8').read(4096)
snap = json.loads(head[head.index('{', 1):head.index('},"nodes"') + 1])
info, histo = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
if info['format'] != 'v8' or info['objects']['count'] != snap['node_count']:
    sys.exit('  %s objects, header %d' % (info['objects']['count'], snap['node_count']))
if info['edges'] != snap['edge_count'] or info['diagnostics']:
    sys.exit('  %s edges, header %d, diagnostics %s' % (info['edges'], snap['edge_count'],
                                                       info['diagnostics']))
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
got = {esc(c['key']): (esc(c['name']), c['count'], c['distance'], c['shallow'], c['retained'])
       for c in histo['classes']}
want, total = {}, None
for line in open(sys.argv[4], encoding='utf-8'):
    p = line.rstrip('\n').split('\t')
    if p[0] == '#total':
        total = int(p[1])
    else:
        want[p[0]] = (p[1], int(p[2]), int(p[3]), int(p[4]), int(p[5]))
bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
for k in bad[:5]:
    print('  %r: devtools %s, leakray %s' % (k, want.get(k), got.get(k)), file=sys.stderr)
rets = [c['retained'] for c in histo['classes']]
sys.exit(0 if not bad and histo['total']['heap_total'] == total and len(want) > 50
         and rets == sorted(rets, reverse=True)
         and want.get(',BunLeak', (0, 0))[1] == (0 if 'baseline' in sys.argv[1] else 40)
         else 1)
PY
        ok "$n: info's counts equal the header's, histo equals DevTools' Summary"
    else
        bad "$n: info or histo against DevTools"
    fi
done

# 2. DevTools' per-object numbers: the 100 objects retaining most, in the same order of size.
for v in 13 14; do
    n=bun$v-final
    "$LEAKRAY" top --top 0 --json --no-timing "$work/$n.heapsnapshot" >"$work/$n.top.json"
    python3 "$LEAKRAY_SRC/tests/e2e/devtools_top.py" "$work/$n.top.json" "$gold/$n.top.tsv" \
        && ok "top $n: DevTools' self, retained, distance and order" || bad "top $n"
done

# 3. diff: DevTools' Comparison where ids follow objects; per class where they do not.
chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }
for v in 13 14; do
    for pair in baseline:target target:final; do
        a=bun$v-${pair%%:*} b=bun$v-${pair#*:}
        extra=()
        [ "$v" = 14 ] && extra=(--match-ids)
        "$LEAKRAY" diff "$work/$a.heapsnapshot" "$work/$b.heapsnapshot" --json --no-timing \
            "${extra[@]}" >"$work/diff.json" 2>"$work/diff.err"
        chk compare "$work/diff.json" "$gold/$a--$b.diff.tsv" >/dev/null \
            && ok "diff ${extra[*]} $a -> $b equals DevTools' Comparison" || bad "diff $a -> $b"
    done
done
A=$work/bun14-baseline.heapsnapshot B=$work/bun14-target.heapsnapshot
"$LEAKRAY" diff "$A" "$B" --json --no-timing >"$work/diff14.json" 2>"$work/diff14.err"
python3 - "$work/diff14.json" "$work/bun14-baseline.histo.json" "$work/bun14-target.histo.json" \
    <<'PY' && grep -q 'object ids renumbered' "$work/diff14.err" \
    && ok "diff bun14: ids renumbered, compared per class, each planted class +40" \
    || bad "diff bun14 per class: $(head -c 300 "$work/diff14.json") $(cat "$work/diff14.err")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {c['name']: c for c in d['classes']}
count = lambda p: {c['name']: c['count'] for c in json.load(open(p))['classes']}
ca, cb = count(sys.argv[2]), count(sys.argv[3])
planted = ['BunClosureBlob', 'BunMapValue', 'BunCacheEntry', 'BunBufferOwner', 'BunPinned',
           'BunLeak', 'BunTransient']
sys.exit(0 if d['match'] == 'class' and d['inputs']['ids_renumbered'] and d['inputs']['related']
         and all(rows[c]['count_delta'] == 40 for c in planted)
         and all(r['count_delta'] == cb.get(n, 0) - ca.get(n, 0) for n, r in rows.items()
                 if n in ca or n in cb)
         and any('renumbered' in w for w in d.get('warnings', [])) else 1)
PY

# 4. leaks: refused where no id follows an object; memlab's rows where ids do.
rc=0
"$LEAKRAY" leaks --baseline "$A" --target "$B" --final "$work/bun14-final.heapsnapshot" \
    --no-timing >"$work/leaks14.txt" 2>"$work/leaks14.err" || rc=$?
[ "$rc" = 2 ] && grep -q 'numbers objects afresh in every snapshot' "$work/leaks14.err" \
    && ok "leaks bun14: exit 2, the ids are renumbered" \
    || bad "leaks bun14: exit $rc, $(cat "$work/leaks14.txt" "$work/leaks14.err")"
head -1 "$LEAKRAY_SRC/tests/e2e/expected/js/bun14-memlab.txt" | grep -q '^MemLab found 0 leak' \
    && [ "$(wc -l <"$LEAKRAY_SRC/tests/e2e/expected/js/bun14-memlab.txt")" = 1 ] \
    && ok "memlab on bun14 finds nothing, --trace-all-objects included (the golden)" \
    || bad "bun14-memlab.txt changed"
"$LEAKRAY" leaks --baseline "$work/bun13-baseline.heapsnapshot" \
    --target "$work/bun13-target.heapsnapshot" --final "$work/bun13-final.heapsnapshot" \
    --json --no-timing --top 0 >"$work/leaks13.json"
python3 - "$work/leaks13.json" "$LEAKRAY_SRC/tests/e2e/expected/js/bun13-memlab.txt" <<'PY' \
    && ok "leaks bun13: memlab's --trace-all-objects rows (count, retained)" \
    || bad "leaks bun13 against memlab"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['LEAKRAY_SRC'], 'tests', 'e2e'))
from memlab_leaks import by_name, row_diff, table_rows
d = json.load(open(sys.argv[1]))
first, rows = table_rows(sys.argv[2])
assert first == 'MemLab found 0 leak(s)', first
assert d['leak_filter'] == 'all-objects' and not d['inputs']['ids_renumbered'], d['inputs']
got = by_name(d, closures=False)
bad, seen = [], 0
unret = {c['name']: (c['count'], c['shallow']) for c in d['unretained']['classes']}
for name, typ, count, ret in rows:
    if typ == 'object shape':
        continue
    if name in ('BunMapKey', 'BunMapValue'):  # no retainer: listed apart, with memlab's count
        if name in got or unret.get(name, (0, 0))[0] != int(count):
            bad.append('%r: memlab %s, leakray clusters %s, unretained %s'
                       % (name, count, got.get(name), unret.get(name)))
        continue
    seen += 1
    bad += filter(None, [row_diff(got, name, count, ret)])
for b in bad:
    print('  ' + b, file=sys.stderr)
sys.exit(1 if bad or seen < 12 else 0)
PY

# 5. The planted leak: one group of 40 through the module's `leaked` array; DevTools' path.
for v in 13 14; do
    f=$work/bun$v-final.heapsnapshot
    "$LEAKRAY" analyze "$f" --watch BunLeak --full --json --no-timing --no-suspects \
        >"$work/an$v.json"
    python3 "$LEAKRAY_SRC/tests/e2e/watch_group.py" "$work/an$v.json" BunLeak leaked 40 \
        --no-weak && ok "bun$v: analyze --watch BunLeak, one group of 40 through leaked" \
        || bad "bun$v: analyze --watch BunLeak"
    id=$(python3 -c "import json,sys
print(next(x['id'] for x in json.load(open(sys.argv[1]))['objects'] if x['class'] == 'BunLeak'))" \
        "$work/bun$v-final.top.json" 2>/dev/null || true)
    [ -n "$id" ] || id=$("$LEAKRAY" instances "$f" BunLeak --no-timing | awk '$1 == "1:" { print $2 }')
    "$LEAKRAY" path "$f" "$id" --no-timing >"$work/path$v.txt"
    python3 - "$work/path$v.txt" <<'PY' && ok "bun$v: path to $id, one hop per unit of distance" \
        || bad "bun$v: path $(tail -4 "$work/path$v.txt")"
import re, sys
t = open(sys.argv[1]).read()
d = [int(x) for x in re.findall(r'\(distance (\d+),', t)]
hops = int(re.search(r'^(\d+) references$', t, re.M).group(1))
sys.exit(0 if d == list(range(1, len(d) + 1)) and hops == len(d) and '[context leaked]' in t
         and 'BunLeak' in t.strip().splitlines()[-2] else 1)
PY
done
# 6. Bun's own format (JavaScriptCore's, what Bun.generateHeapSnapshot() gives without "v8"):
#    exit 3 with a message that says so and how to write the V8 format; the head is Bun 1.4.5's.
printf '%s' '{"version":3,"type":"Inspector","nodes":[0,0,0,0,266,1895,1,0],"nodeClassNames":' \
    '["Structure","string"],"edges":[0,1,0,0],"edgeTypes":["Internal"],"edgeNames":[]}' \
    >"$work/jsc.json"
rc=0
"$LEAKRAY" info "$work/jsc.json" >/dev/null 2>"$work/jsc.err" || rc=$?
[ "$rc" = 3 ] && grep -q 'a JavaScriptCore heap snapshot.*generateHeapSnapshot("v8")' \
    "$work/jsc.err" && ok "a JavaScriptCore snapshot: exit 3, named, with the way to V8's" \
    || bad "JavaScriptCore snapshot: exit $rc, $(cat "$work/jsc.err")"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all checks passed"
