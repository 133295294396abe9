#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# v8_opts.sh: leakray on heap snapshots written with the options and through the paths users
# have, against the peers' answers (scripts/golden-v8-opts.sh writes snapshots and goldens):
# - tests/data/v8/node24-opts-{baseline,target,final}: Node 24, v8.writeHeapSnapshot with
#   exposeInternals and exposeNumericValues, three of one process; node22-opts-internals:
#   Node 22, exposeInternals; node24-opts-worker: worker.getHeapSnapshot() of a Worker;
#   tests/data/browser/chromium-opts-tracked (taken while HeapProfiler.startTrackingHeapObjects
#   ran) and chromium-opts-final: Chromium 156, a page with iframes and detached DOM.
# Checks:
# - the files really carry what the options add: small-integer "smi number" nodes with
#   exposeNumericValues, no user root with exposeInternals (the root holds only synthetic
#   nodes), trace_node_id with allocation tracking; `info` reads every node and edge with no
#   diagnostic and names the size model DevTools applies: recorded sizes without user roots;
# - `histo --retained` equals DevTools' Summary (heap-snapshot-toolkit 1.1.3), `diff` its
#   Comparison, `top` its self size, retained size and distance of the 100 objects retaining
#   most, `show` its allocation stacks;
# - `leaks` on the Node trio: memlab 2.0.5's --trace-all-objects rows (name, count, retained)
#   but for the V8 internals leakray filters (`object shape` rows);
# - `analyze --watch OptsLeak`: one group of the 200 objects, through the `leaks` array, on
#   the option trio and in the Worker's heap; the detached DOM of the page: 60 panels, 40 <p>
#   of the iframe; `dupes`: the copies of one string text each OptsLeak holds;
# - with Node (20 or later) installed, the same program's snapshots taken live by every other
#   path: writeHeapSnapshot with each option alone, v8.getHeapSnapshot() streamed, a Worker
#   writing its own, --heapsnapshot-signal, --heapsnapshot-near-heap-limit (near OOM), without
#   --expose-gc: each loads with no diagnostic and holds the 200 OptsLeak objects, with the
#   same retained bytes wherever sizes are re-attributed; exposeInternals and the near-OOM
#   snapshot have no user root (recorded sizes, as DevTools shows them); `diff` and `leaks`
#   between snapshots of one process taken with different options warn (numbers then differ
#   because of the options: objects holding small integers change class).
set -euo pipefail
: "${LEAKRAY:?}" "${LEAKRAY_SRC:?}" "${LEAKRAY_BUILD:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
work="$LEAKRAY_BUILD/tmp/v8_opts"
rm -rf "$work" && mkdir -p "$work"
gold=$LEAKRAY_SRC/tests/e2e/expected/devtools
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
chk() { python3 "$LEAKRAY_SRC/tests/e2e/browser_check.py" "$@"; }
names="v8/node24-opts-baseline v8/node24-opts-target v8/node24-opts-final
v8/node22-opts-internals v8/node24-opts-worker browser/chromium-opts-tracked
browser/chromium-opts-final"
for n in $names; do
    python3 -c "import lzma, shutil, sys
shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
        "$LEAKRAY_SRC/tests/data/$n.heapsnapshot.xz" "$work/${n#*/}.heapsnapshot"
done
B=$work/node24-opts-baseline.heapsnapshot T=$work/node24-opts-target.heapsnapshot
F=$work/node24-opts-final.heapsnapshot I22=$work/node22-opts-internals.heapsnapshot
W=$work/node24-opts-worker.heapsnapshot CT=$work/chromium-opts-tracked.heapsnapshot
CF=$work/chromium-opts-final.heapsnapshot

# 1. What the options put in the files; info's counts and size model.
for n in $names; do
    n=${n#*/}
    f=$work/$n.heapsnapshot
    "$LEAKRAY" info --json --no-timing "$f" >"$work/$n.info.json"
    if python3 - "$f" "$work/$n.info.json" "$n" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1], encoding='utf-8'))
info, name = json.load(open(sys.argv[2])), sys.argv[3]
m = d['snapshot']['meta']
nf, ef = len(m['node_fields']), len(m['edge_fields'])
types, nodes, strings = m['node_types'][0], d['nodes'], d['strings']
smi = sum(1 for i in range(0, len(nodes), nf)
          if types[nodes[i]] == 'number' and strings[nodes[i + 1]] == 'smi number')
root_kids = [types[d['nodes'][d['edges'][j + 2]]] for j in range(0, nodes[4] * ef, ef)]
user_roots = any(t != 'synthetic' for t in root_kids)
# Chromium 156 writes every page snapshot as Node does with both options: small integers as
# nodes, no user root (docs/formats/v8.md, "Snapshot options")
chromium = name.startswith('chromium')
numerics = chromium or (name.startswith('node24-opts-') and name != 'node24-opts-worker')
internals = chromium or (name.startswith('node2') and name != 'node24-opts-worker')
want = {'smi': numerics, 'user_roots': not internals,
        'trace': name == 'chromium-opts-tracked'}
got = {'smi': smi > 0, 'user_roots': user_roots,
       'trace': 'trace_node_id' in m['node_fields'] and
                any(nodes[i + m['node_fields'].index('trace_node_id')]
                    for i in range(0, len(nodes), nf))}
model = 'DevTools (re-attributed)' if user_roots else 'DevTools (as recorded: no user roots)'
problems = []
if got != want:
    problems.append('file: %s, expected %s' % (got, want))
if info['objects']['count'] != d['snapshot']['node_count'] or \
        info['edges'] != d['snapshot']['edge_count'] or info['diagnostics']:
    problems.append('info: %s objects, %s edges, %s' % (info['objects']['count'],
                    info['edges'], info['diagnostics']))
if info['size_model'] != model:
    problems.append('size model %r, DevTools: %r' % (info['size_model'], model))
sys.exit('  %s: %s' % (name, '; '.join(problems)) if problems else 0)
PY
        ok "$n: the options' marks, info's counts and size model"
    else
        bad "$n: file or info"
    fi
done

# 2. DevTools' Summary, Comparison, per-object numbers and allocation stacks.
for n in $names; do
    n=${n#*/}
    "$LEAKRAY" histo --retained --json --no-timing "$work/$n.heapsnapshot" >"$work/$n.histo.json"
    chk summary "$work/$n.histo.json" "$gold/$n.heapsnapshot.xz.classes.tsv" \
        && ok "histo $n equals DevTools' Summary" || bad "histo $n against DevTools"
done
for pair in "$B $T" "$T $F" "$CT $CF"; do
    set -- $pair
    na=$(basename "$1" .heapsnapshot) nb=$(basename "$2" .heapsnapshot)
    "$LEAKRAY" diff "$1" "$2" --json --no-timing >"$work/diff.json"
    chk compare "$work/diff.json" "$gold/$na--$nb.diff.tsv" >/dev/null \
        && ok "diff $na -> $nb equals DevTools' Comparison" || bad "diff $na -> $nb"
done
for f in "$F" "$I22"; do
    n=$(basename "$f" .heapsnapshot)
    "$LEAKRAY" top --top 0 --json --no-timing "$f" >"$work/$n.top.json"
    python3 "$LEAKRAY_SRC/tests/e2e/devtools_top.py" "$work/$n.top.json" "$gold/$n.top.tsv" \
        && ok "top $n: DevTools' self, retained, distance and order" || bad "top $n"
done
stacks=$gold/chromium-opts-tracked.stacks.tsv
: >"$work/stacks.got"
for id in $(cut -f1 "$stacks"); do
    "$LEAKRAY" show "$CT" "$id" --json --no-timing --limit 1 >>"$work/stacks.got"
    echo >>"$work/stacks.got"
done
python3 - "$work/stacks.got" "$stacks" <<'PY' \
    && ok "show: DevTools' allocation stacks (objects of the page's code and others)" \
    || bad "show allocation stacks"
import json, sys
docs = [json.loads(b) for b in open(sys.argv[1]).read().split('\n\n') if b.strip()]
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[2], encoding='utf-8')]
bad, page = 0, 0
for doc, r in zip(docs, rows):
    o = doc['object']
    want = [tuple(r[i:i + 4]) for i in range(1, len(r), 4)]
    got = [(f['function'], f['script'], str(f['line']), str(f['column']))
           for f in o.get('allocation_stack', [])]
    page += any(w[1].endswith('frames.html') for w in want)
    if o['id'] != r[0] or got != want:
        bad += 1
        if bad <= 3:
            print('  %s: devtools %s, leakray %s' % (r[0], want, got), file=sys.stderr)
# up to 20 of each kind: how many of the page's allocations V8 tracks varies run to run
print('  %d stacks, %d of the page\'s code' % (len(rows), page))
sys.exit(0 if not bad and len(docs) == len(rows) >= 20 and page >= 5 else 1)
PY

# 3. leaks on the option trio against memlab.
# memlab's rows are compared with the boilerplates kept (tests/e2e/memlab_sites.bash)
. "$LEAKRAY_SRC/tests/e2e/memlab_sites.bash"
leaks_sites "$B" "$T" "$F" "$work/leaks.json" "$work/leaks-default.json" \
    && ok "leaks: the default leaves out only boilerplates (Object, Array)" \
    || bad "leaks: the default dropped more than boilerplates"
python3 - "$work/leaks.json" "$LEAKRAY_SRC/tests/e2e/expected/js/node24-opts-memlab.txt" <<'PY' \
    && ok "leaks: memlab's --trace-all-objects rows (count, retained)" || bad "leaks against memlab"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ['LEAKRAY_SRC'], 'tests', 'e2e'))
from memlab_leaks import by_name, row_diff, table_rows
got = by_name(json.load(open(sys.argv[1])))
bad, seen = [], set()
for name, typ, count, ret in table_rows(sys.argv[2])[1]:
    if typ == 'object shape':
        continue
    seen.add(name)
    bad += filter(None, [row_diff(got, name, count, ret)])
bad += ['%r: leakray only %s' % (k, v) for k, v in got.items() if k not in seen]
for b in bad:
    print('  ' + b, file=sys.stderr)
sys.exit(1 if bad or 'OptsLeak' not in seen else 0)
PY

# 4. The planted leaks: one group of 200 through `leaks`; the page's detached DOM.
for f in "$F" "$W" "$I22"; do
    n=$(basename "$f" .heapsnapshot)
    "$LEAKRAY" analyze "$f" --watch OptsLeak --full --json --no-timing --no-suspects \
        >"$work/$n.watch.json"
    want=400  # the final snapshot of a trio holds two rounds
    [ "$f" = "$W" ] && want=200
    python3 "$LEAKRAY_SRC/tests/e2e/watch_group.py" "$work/$n.watch.json" OptsLeak leaks \
        "$want" --no-weak && ok "$n: analyze --watch OptsLeak, one group of $want through leaks" \
        || bad "$n: analyze --watch OptsLeak"
done
"$LEAKRAY" histo --detached --json --no-timing "$CF" >"$work/det.json"
python3 -c "import json, sys
c = {x['name']: x['count'] for x in json.load(open(sys.argv[1]))['classes']}
sys.exit(0 if c.get('Detached <section>') == 60 and c.get('Detached <p>', 0) >= 100
         and c.get('Detached HTMLDocument') == 1 else 1)" "$work/det.json" \
    && ok "chromium: 60 detached panels, their <p> and the iframe's, the dropped frame's document" \
    || bad "chromium detached DOM"
# analyze finds what the page keeps: the panels, the frame's <p>, and of the dropped frame
# its window and its document (each kept by a variable of the page), not the doctype or the
# elements under them (memlab's find-leaks and DevTools name the window, 180 kB)
"$LEAKRAY" analyze --json --no-timing --no-suspects "$CF" >"$work/det-an.json"
python3 -c "import json, sys, collections
d = json.load(open(sys.argv[1]))
c = collections.Counter(t['class'] for t in d['traces'])
sys.exit(0 if c == {'Detached <section>': 60, 'Detached <p>': 40, 'Detached Window': 1,
                    'Detached HTMLDocument': 1} else 1)" "$work/det-an.json" \
    && ok "chromium: analyze names the dropped frame's window and document, not what they hold" \
    || bad "chromium analyze: $(python3 -c "import json, sys, collections
print(dict(collections.Counter(t['class'] for t in json.load(open(sys.argv[1]))['traces'])))" \
        "$work/det-an.json")"

# dupes: each OptsLeak holds its own copy of "opts-dup" (V8 strings are the nodes' names).
"$LEAKRAY" dupes --json --no-timing "$F" >"$work/dupes.json"
python3 -c "import json, sys
g = [x for x in json.load(open(sys.argv[1]))['strings']['groups'] if x['value'] == 'opts-dup']
sys.exit(0 if len(g) == 1 and g[0]['count'] == 400 and g[0]['length'] == 8 and
         g[0]['wasted'] == 399 * g[0]['bytes'] else 1)" "$work/dupes.json" \
    && ok "dupes: the 400 copies of \"opts-dup\"" || bad "dupes on a V8 snapshot"

# 5. Live: every other way Node writes a snapshot (Node 20 or later).
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ]
then
    prog=$LEAKRAY_SRC/tests/programs/node/v8_opts.js live=$work/live
    for m in plain internals numerics both stream worker; do
        node --expose-gc "$prog" "$live" "$m" 200 >/dev/null
    done
    node "$prog" "$live/nogc" plain 200
    mv "$live/nogc/plain.heapsnapshot" "$live/nogc.heapsnapshot"
    node --expose-gc --heapsnapshot-signal=SIGUSR2 "$prog" "$live/sig" signal 200
    mv "$live"/sig/Heap.*.heapsnapshot "$live/signal.heapsnapshot"
    # dies of OOM after writing the snapshot (the subshell keeps bash's "Aborted" quiet)
    (node --heapsnapshot-near-heap-limit=1 --max-old-space-size=16 "$prog" "$live/oom" oom 200 \
        >/dev/null 2>&1 || true) 2>/dev/null
    mv "$live"/oom/Heap.*.heapsnapshot "$live/oom.heapsnapshot"
    for m in plain internals numerics both stream worker nogc signal oom; do
        "$LEAKRAY" info --json --no-timing "$live/$m.heapsnapshot" >"$live/$m.info.json"
        "$LEAKRAY" histo --retained --json --no-timing "$live/$m.heapsnapshot" \
            >"$live/$m.histo.json"
    done
    "$LEAKRAY" dupes --json --no-timing "$live/plain.heapsnapshot" >"$live/dupes.json"
    python3 - "$live" <<'PY' && ok "live Node $(node --version): every path, 200 OptsLeak each" \
        || bad "live Node snapshots"
import json, os, sys
live, bad = sys.argv[1], []
ret = {}
for m in 'plain internals numerics both stream worker nogc signal oom'.split():
    info = json.load(open(os.path.join(live, m + '.info.json')))
    cls = {c['name']: c for c in json.load(open(os.path.join(live, m + '.histo.json')))['classes']}
    raw = m in ('internals', 'both', 'oom')  # Node writes near-OOM snapshots so
    if info['diagnostics'] or ('no user roots' in info['size_model']) != raw:
        bad.append('%s: %s, %s' % (m, info['size_model'], info['diagnostics']))
    c = cls.get('OptsLeak', {'count': 0, 'retained': 0})
    if c['count'] != 200 and not (m == 'oom' and c['count'] > 1000):
        bad.append('%s: %d OptsLeak' % (m, c['count']))
    ret[m] = c['retained']
dup = [x['count'] for x in json.load(open(os.path.join(live, 'dupes.json')))['strings']['groups']
       if x['value'] == 'opts-dup']
if dup != [200]:
    bad.append('dupes: "opts-dup" groups %s' % dup)
# each OptsLeak retains its 1 KiB string and its heap number wherever sizes are re-attributed
same = {ret[m] for m in ('plain', 'numerics', 'stream', 'worker', 'nogc', 'signal')}
if len(same) != 1 or ret['internals'] != ret['both']:
    bad.append('OptsLeak retained: %s' % ret)
for b in bad:
    print('  ' + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
    # Snapshots of one process taken with different options: diff and leaks warn.
    node --expose-gc "$prog" "$live" mixed 200
    M=$live/mixed
    "$LEAKRAY" diff "$M-plain.heapsnapshot" "$M-numerics.heapsnapshot" --no-timing \
        >/dev/null 2>"$live/w1.txt"
    "$LEAKRAY" diff "$M-plain.heapsnapshot" "$M-internals.heapsnapshot" --no-timing \
        >/dev/null 2>"$live/w2.txt"
    "$LEAKRAY" leaks --baseline "$M-plain.heapsnapshot" --target "$M-numerics.heapsnapshot" \
        --final "$M-numerics.heapsnapshot" --no-timing >/dev/null 2>"$live/w3.txt" || true
    "$LEAKRAY" diff "$M-numerics.heapsnapshot" "$M-numerics.heapsnapshot" --no-timing \
        >/dev/null 2>"$live/w4.txt"
    grep -q 'second was written with small integers as nodes (exposeNumericValues)' \
        "$live/w1.txt" && grep -q 'second has no user roots' "$live/w2.txt" &&
        grep -q 'exposeNumericValues' "$live/w3.txt" && ! [ -s "$live/w4.txt" ] &&
        ok "diff, leaks: a warning between snapshots taken differently" \
        || bad "option warnings: $(cat "$live"/w[1-4].txt)"
else
    echo "skip: live snapshots (Node 20 or later not installed)"
fi
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all checks passed"
