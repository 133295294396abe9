#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_newer.sh: leakray on heap snapshots written by Node versions newer than the one CI runs:
# tests/data/v8/node22-final (V8 12.4: 7 node fields, trace_node_id kept) and node24-baseline,
# -target, -final (V8 13.6: 6 node fields, no trace_node_id, extra_native_bytes in the header),
# taken of tests/programs/node/v8_newer.js (one leak per pattern, 40 each) by
# scripts/golden-v8-newer.sh, which also writes the goldens (xz files, inflated here).
# - the snapshots really have those two shapes of meta (a regeneration that lost one fails);
# - `info` counts the header's nodes and edges, with no diagnostic;
# - `histo --retained` equals DevTools' Summary (heap-snapshot-toolkit 1.1.3) class key by
#   class key: count, distance, shallow, retained, and the heap total; `diff` baseline ->
#   target and target -> final equal DevTools' Comparison; `top` gives DevTools' self size,
#   retained size and distance of the 100 objects retaining most, in DevTools' order;
# - `analyze --watch CLASS --full` gives one group of 40 per pattern, reached through the
#   reference that leaks it, never through a WeakRef (weak); the WeakRef-only objects and the
#   target-only ones are gone from the final snapshot;
# - a transferred ArrayBuffer (detached) holds no backing store; a Buffer's does;
# - `path` is DevTools' retaining path: one hop per unit of distance;
# - `leaks`: memlab 2.0.5's default filter finds nothing on a Node heap (it looks for detached
#   DOM and React fibers) where leakray reports every new object, as memlab's
#   --trace-all-objects does: each row of memlab's table for those objects (name, count,
#   retained as memlab prints it) equals leakray's clusters summed by name, except the V8
#   internals leakray filters (`object shape` rows) and one closure memlab sizes with its own
#   dominator tree (docs/formats/v8.md, "Snapshots of newer Node versions").
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_newer"
rm -rf "$work" && mkdir -p "$work"
data=$LEAKRAY_SRC/tests/data/v8
gold=$LEAKRAY_SRC/tests/e2e/expected/devtools
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }
names="node22-final node24-baseline node24-target node24-final"
for n in $names; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$data/$n.heapsnapshot.xz" "$work/$n.heapsnapshot"
done
B=$work/node24-baseline.heapsnapshot T=$work/node24-target.heapsnapshot
F=$work/node24-final.heapsnapshot F22=$work/node22-final.heapsnapshot

# 1. The two meta shapes, and info's counts against the header.
for n in $names; do
    f=$work/$n.heapsnapshot
    "$LEAKRAY" info --json --no-timing "$f" >"$work/$n.info.json"
    if python3 - "$f" "$work/$n.info.json" "$n" <<'PY'; then
import json, sys
head = open(sys.argv[1], encoding='utf-8').read(4096)
snap = json.loads(head[head.index('{', 1):head.index('},\n"nodes"') + 1])
info, name = json.load(open(sys.argv[2])), sys.argv[3]
nf = snap['meta']['node_fields']
want = (['trace_node_id' in nf, len(nf), 'extra_native_bytes' in snap] ==
        ([True, 7, False] if name.startswith('node22') else [False, 6, True]))
if not want:
    sys.exit('  %s: node_fields %s, header %s' % (name, nf, sorted(snap)))
if info['format'] != 'v8' or info['objects']['count'] != snap['node_count']:
    sys.exit('  %s: %s objects, header %d' % (name, info['objects']['count'], snap['node_count']))
if info['edges'] != snap['edge_count']:
    sys.exit('  %s: %s edges, header %d' % (name, info['edges'], snap['edge_count']))
if info['diagnostics']:
    sys.exit('  %s: diagnostics %s' % (name, info['diagnostics']))
PY
        ok "$n: its meta shape, info's objects and edges equal the header's counts"
    else
        bad "$n: meta or info"
    fi
done

# 2. DevTools' Summary and Comparison.
for n in $names; do
    "$LEAKRAY" histo --retained --json --no-timing "$work/$n.heapsnapshot" >"$work/$n.histo.json"
    chk summary "$work/$n.histo.json" "$gold/$n.heapsnapshot.xz.classes.tsv" \
        && ok "histo $n equals DevTools' Summary" || bad "histo $n against DevTools"
done
for pair in "$B $T" "$T $F"; do
    set -- $pair
    na=$(basename "$1" .heapsnapshot) nb=$(basename "$2" .heapsnapshot)
    "$LEAKRAY" diff "$1" "$2" --json --no-timing >"$work/diff.json"
    chk compare "$work/diff.json" "$gold/$na--$nb.diff.tsv" \
        && ok "diff $na -> $nb equals DevTools' Comparison" || bad "diff $na -> $nb"
done

# DevTools' per-object numbers: the 100 objects retaining most, in the same order of size.
for f in "$F22" "$F"; do
    n=$(basename "$f" .heapsnapshot)
    "$LEAKRAY" top --top 0 --json --no-timing "$f" >"$work/$n.top.json"
    python3 "$LEAKRAY_SRC/tests/e2e/devtools_top.py" "$work/$n.top.json" "$gold/$n.top.tsv" \
        && ok "top $n: DevTools' self, retained, distance and order" || bad "top $n"
done

# 3. One group per planted leak, through the reference that leaks it.
for f in "$F22" "$F"; do
    n=$(basename "$f" .heapsnapshot)
    for pair in NewerClosureBlob:blob NewerMapValue:table NewerListener:state \
        NewerTimerPayload:p NewerBufferOwner:owners NewerDetached:detached NewerPinned:pinned; do
        c=${pair%%:*} via=${pair#*:}
        "$LEAKRAY" analyze "$f" --watch "$c" --full --json --no-timing --no-suspects \
            >"$work/$n.$c.json"
        if python3 "$LEAKRAY_SRC/tests/e2e/watch_group.py" "$work/$n.$c.json" "$c" "$via" 40 \
            --no-weak; then
            ok "$n: analyze --watch $c, one group of 40 through $via"
        else
            bad "$n: analyze --watch $c"
        fi
    done
    "$LEAKRAY" histo --json --no-timing "$f" >"$work/$n.h.json"
    python3 -c "import json, sys
c = {x['name']: x['count'] for x in json.load(open(sys.argv[1]))['classes']}
sys.exit(0 if 'NewerWeakOnly' not in c and 'NewerTransient' not in c
         and c.get('NewerPinned') == 40 else 1)" \
        "$work/$n.h.json" && ok "$n: WeakRef-only and target-only objects collected" \
        || bad "$n: collected objects"
done

# 4. Backing stores: detached ArrayBuffers hold none, a Buffer's holds its 16 KiB.
"$LEAKRAY" top --top 0 --json --no-timing "$F" >"$work/top.json"
ids=$(python3 -c "import json,sys; o=json.load(open(sys.argv[1]))['objects']
print(' '.join(next(x['id'] for x in o if x['class'] == c)
               for c in ('NewerDetached', 'NewerBufferOwner')))" \
    "$work/top.json")
set -- $ids
det=$("$LEAKRAY" show "$F" "$1" --no-timing | awk '/\.ab \(property\)/ { print $1 }')
"$LEAKRAY" show "$F" "$det" --no-timing >"$work/det.txt"
grep -q '^edges (1):' "$work/det.txt" && grep -q '^retained size: *96 bytes' "$work/det.txt" \
    && ok "a transferred ArrayBuffer: no backing store" \
    || bad "detached ArrayBuffer: $(head -6 "$work/det.txt")"
"$LEAKRAY" show "$F" "$2" --no-timing >"$work/own.txt"
python3 - "$work/own.txt" <<'PY' && ok "a NewerBufferOwner retains both 16 KiB backing stores" \
    || bad "NewerBufferOwner retained: $(grep retained "$work/own.txt")"
import re, sys
m = re.search(r'^retained size: *([\d,]+) bytes', open(sys.argv[1]).read(), re.M)
sys.exit(0 if m and 32768 < int(m.group(1).replace(',', '')) < 34000 else 1)
PY

# 5. path: one hop per unit of distance.
"$LEAKRAY" path "$F" "$1" --no-timing >"$work/path.txt"
python3 - "$work/path.txt" <<'PY' && ok "path: one hop per unit of distance, to NewerDetached" \
    || bad "path $(tail -3 "$work/path.txt")"
import re, sys
t = open(sys.argv[1]).read()
d = [int(x) for x in re.findall(r'\(distance (\d+),', t)]
hops = int(re.search(r'^(\d+) references$', t, re.M).group(1))
sys.exit(0 if d == list(range(1, len(d) + 1)) and hops == len(d) and 'NewerDetached' in
         t.strip().splitlines()[-2] else 1)
PY

# 6. leaks against memlab's answers.
# memlab's rows are compared with the boilerplates kept (tests/e2e/memlab_sites.bash)
. "$LEAKRAY_SRC/tests/e2e/memlab_sites.bash"
leaks_sites "$B" "$T" "$F" "$work/leaks.json" "$work/leaks-default.json" \
    && ok "leaks: the default leaves out only boilerplates (Object, Array)" \
    || bad "leaks: the default dropped more than boilerplates"
python3 - "$work/leaks.json" "$LEAKRAY_SRC/tests/e2e/expected/js/node24-memlab.txt" <<'PY' \
    && ok "leaks: memlab's --trace-all-objects rows (count, retained)" || bad "leaks against memlab"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['LEAKRAY_SRC'], 'tests', 'e2e'))
from memlab_leaks import by_name, row_diff, table_rows
d = json.load(open(sys.argv[1]))
first, rows = table_rows(sys.argv[2])
assert first == 'MemLab found 0 leak(s)', first
assert d['leak_filter'] == 'all-objects', d['leak_filter']
got = by_name(d)
bad, seen = [], 0
for name, typ, count, ret in rows:
    if typ == 'object shape' or (typ == 'closure' and name == 'get'):
        continue
    seen += 1
    bad += filter(None, [row_diff(got, name, count, ret)])
for b in bad:
    print('  ' + b, file=sys.stderr)
sys.exit(1 if bad or seen < 15 else 0)
PY
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all checks passed"
